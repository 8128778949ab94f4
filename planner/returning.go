package planner

import (
	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/types"
	"vitess.io/vitess/go/vt/sqlparser"
)

// RETURNING lists of INSERT, UPDATE and DELETE.

// returning binds a RETURNING list over the table's full-width rows.
func (b *binder) returning(list []sqlparser.SelectExpr, s *scope) ([]Expr, []Column, error) {
	var exprs []Expr
	var cols []Column
	for _, se := range list {
		switch se := se.(type) {
		case *sqlparser.StarExpr:
			q := se.TableName.Name.String()
			found := false
			for i, c := range s.cols {
				if c.Hidden || q != "" && c.Table != q {
					continue
				}
				found = true
				exprs = append(exprs, &ColRef{Index: i, T: c.T, Name: c.Name})
				cols = append(cols, c)
			}
			if q != "" && !found {
				return nil, nil, pgerror.Newf(pgerror.UndefinedTable, "missing FROM-clause entry for table %q", q)
			}
		case *sqlparser.AliasedExpr:
			x, err := b.expr(se.Expr, s)
			if err != nil {
				return nil, nil, err
			}
			name := se.As.String()
			if name == "" {
				name = columnName(se.Expr)
			}
			if x.Type().Family == types.Unknown {
				x, _ = coerce(x, tText)
			}
			exprs = append(exprs, x)
			cols = append(cols, Column{Name: name, T: x.Type()})
		}
	}
	return exprs, cols, nil
}

// returningOID is returning over s with the hidden tableoid column after
// s's columns, for a RETURNING of the table's own (not of a view over
// it), and reports whether the list reads it: exec then appends the
// row's table OID (its partition's, for a routed INSERT) to the row
// RETURNING reads, as PostgreSQL's system column.
func (b *binder) returningOID(list []sqlparser.SelectExpr, s *scope, alias string) (exprs []Expr, cols []Column, oid bool, err error) {
	at := len(s.cols)
	s.cols = append(s.cols, tableoidColumn(alias))
	defer func() { s.cols = s.cols[:at] }()
	if exprs, cols, err = b.returning(list, s); err != nil {
		return nil, nil, false, err
	}
	for _, e := range exprs {
		walkExpr(e, func(x Expr) bool {
			if c, ok := x.(*ColRef); ok && c.Outer == 0 && c.Index == at {
				oid = true
			}
			return !oid
		})
	}
	return exprs, cols, oid, nil
}
