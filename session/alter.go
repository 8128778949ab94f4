package session

import (
	"context"
	"fmt"

	"github.com/kvsql/kvsql/catalog"
	"github.com/kvsql/kvsql/index"
	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/planner"
	"github.com/kvsql/kvsql/planner/parse"
	"vitess.io/vitess/go/vt/sqlparser"
)

// The ALTER TABLE forms that change one column or the table's name. Each
// rewrites the descriptor in the statement's transaction, so it commits or
// rolls back with it like every other catalog change.

// alterDefault is ALTER [COLUMN] c SET DEFAULT expr / DROP DEFAULT. The
// new default applies to later INSERTs; rows already stored keep their
// values (and rows written before an ADD COLUMN keep reading the default
// that column was added with).
func (s *Session) alterDefault(ctx context.Context, t *txn, table string, o *sqlparser.AlterColumn) error {
	if o.Invisible != nil {
		return pgerror.New(pgerror.FeatureNotSupported, "ALTER COLUMN ... SET VISIBLE/INVISIBLE is not supported")
	}
	name := o.Column.Name.String()
	def := ""
	if !o.DropDefault && o.DefaultVal != nil {
		if _, isNull := o.DefaultVal.(*sqlparser.NullVal); !isNull {
			def = sqlparser.String(o.DefaultVal)
		}
	}
	tbl, err := t.cat.Table(s.database, table)
	if err != nil {
		return err
	}
	i := tbl.ColumnOrdinal(name)
	if i < 0 || tbl.Columns[i].Hidden {
		return columnMissing(name, table)
	}
	if tbl.Columns[i].Serial {
		return pgerror.Newf(pgerror.FeatureNotSupported, "changing the default of serial or identity column %q is not supported", name)
	}
	if def != "" && isLiteral(o.DefaultVal) {
		// PostgreSQL casts a constant default when it is set:
		// SET DEFAULT 'x' on an integer column fails here, not later.
		if _, err := s.evalConstant(ctx, t, def, tbl.Columns[i].Type); err != nil {
			return err
		}
	}
	next, err := t.cat.AlterTable(t.kv, s.database, table, func(nt *catalog.Table) error {
		nt.Columns[i].Default = def
		return nil
	})
	if err != nil {
		return err
	}
	t.setCatalog(next)
	return nil
}

// viewDefault is ALTER VIEW v ALTER [COLUMN] c SET DEFAULT expr / DROP
// DEFAULT: what an INSERT or UPDATE through the view writes for c when it
// gives none or DEFAULT (planner/viewdml.go).
func (s *Session) viewDefault(t *txn, a *parse.ViewDefaultStmt) error {
	v, err := t.cat.View(s.database, a.View)
	if err != nil {
		if a.IfExists && pgerror.HasCode(err, pgerror.UndefinedTable) {
			_, _, name := planner.SplitRef(a.View)
			s.notice(pgerror.Newf(pgerror.SuccessfulCompletion, "relation %q does not exist, skipping", name))
			return nil
		}
		return err
	}
	if err := s.planner(t.cat).BindViewDefault(v, a.Column, a.Default); err != nil {
		return err
	}
	next, err := t.cat.SetViewDefault(t.kv, s.database, a.View, a.Column, a.Default)
	if err != nil {
		return err
	}
	t.setCatalog(next)
	return nil
}

func isLiteral(e sqlparser.Expr) bool {
	switch x := e.(type) {
	case *sqlparser.Literal, sqlparser.BoolVal:
		return true
	case *sqlparser.UnaryExpr:
		return isLiteral(x.Expr)
	}
	return false
}

// alterNotNull is ALTER [COLUMN] c SET NOT NULL (every stored row is
// checked: 23502 if one holds NULL) or DROP NOT NULL (42P16 for a
// primary-key column).
func (s *Session) alterNotNull(t *txn, a *parse.AlterColumnStmt) error {
	tbl, i, err := s.tableColumn(t, a.Table, a.Column)
	if err != nil {
		return err
	}
	if !a.NotNull && containsOrdinal(tbl.PrimaryKey, i) {
		return pgerror.Newf(pgerror.InvalidTableDefinition, "column %q is in a primary key", a.Column)
	}
	if !a.NotNull && (tbl.Columns[i].IdentityAlways || tbl.Columns[i].IdentityByDefault) {
		return pgerror.Newf(pgerror.InvalidTableDefinition, "column %q of relation %q is an identity column", a.Column, a.Table)
	}
	if a.NotNull && !tbl.Columns[i].NotNull {
		it, err := index.ScanMaster(t.kv, tbl, index.Span{}, false)
		if err != nil {
			return err
		}
		defer it.Close()
		for it.Next() {
			if it.Row()[i].IsNull() {
				e := pgerror.Newf(pgerror.NotNullViolation, "column %q of relation %q contains null values", a.Column, a.Table).OnTable(a.Table)
				e.Column = a.Column
				return e
			}
		}
		if err := it.Err(); err != nil {
			return err
		}
	}
	next, err := t.cat.AlterTable(t.kv, s.database, a.Table, func(nt *catalog.Table) error {
		nt.Columns[i].NotNull = a.NotNull
		return nil
	})
	if err != nil {
		return err
	}
	t.setCatalog(next)
	return nil
}

// renameColumn is RENAME [COLUMN] a TO b. CHECK expressions are rewritten
// to the new name; a view or trigger whose text names the column is
// refused rather than left broken (kvsql keeps them as SQL text, where
// PostgreSQL keeps parsed trees that follow the rename).
func (s *Session) renameColumn(t *txn, table string, o *sqlparser.RenameColumn) error {
	old, name := o.OldName.Name.String(), o.NewName.Name.String()
	if dep := s.textDependent(t, table, old); dep != "" {
		return pgerror.Newf(pgerror.FeatureNotSupported, "cannot rename column %q of table %q: %s refers to it, and kvsql keeps its SQL text", old, table, dep)
	}
	next, err := t.cat.RenameColumn(t.kv, s.database, table, old, name, func(expr string) (string, error) {
		return parse.RenameIdentifier(expr, old, name)
	})
	if err != nil {
		return err
	}
	t.setCatalog(next)
	return nil
}

// renameTable is RENAME TO name.
func (s *Session) renameTable(t *txn, table string, o *sqlparser.RenameTableName) error {
	name := o.Table.Name.String()
	if dep := s.textDependent(t, table, ""); dep != "" {
		return pgerror.Newf(pgerror.FeatureNotSupported, "cannot rename table %q: %s refers to it, and kvsql keeps its SQL text", table, dep)
	}
	next, err := t.cat.RenameTable(t.kv, s.database, table, name)
	if pgerror.HasCode(err, pgerror.UndefinedTable) {
		if _, serr := t.cat.Sequence(s.database, table); serr == nil {
			// ALTER TABLE works on a sequence too, as in PostgreSQL.
			next, err = t.cat.RenameSequence(t.kv, s.database, table, name)
		}
	}
	if err != nil {
		return err
	}
	t.setCatalog(next)
	return nil
}

// dropColumn is DROP [COLUMN] c: the indexes that include it, the table's
// foreign keys and checks over it go with it, as in PostgreSQL; a foreign
// key of another table referencing it, or a view that may read it, is
// 2BP01.
func (s *Session) dropColumn(t *txn, table string, o *sqlparser.DropColumn) error {
	col := o.Name.Name.String()
	tbl, err := t.cat.Table(s.database, table)
	if err != nil {
		return err
	}
	if i := tbl.ColumnOrdinal(col); i < 0 || tbl.Columns[i].Hidden {
		return pgerror.Newf(pgerror.UndefinedColumn, "column %q of relation %q does not exist", col, table)
	}
	tables, err := t.cat.Tables(s.database)
	if err != nil {
		return err
	}
	for _, other := range tables {
		for _, fk := range other.ForeignKeys {
			if fk.RefTable == table && slicesContains(fk.RefColumns, col) {
				return dependsOn(col, table, fmt.Sprintf("constraint %s on table %s depends on column %s of table %s", fk.Name, other.Name, col, table))
			}
		}
	}
	if dep := s.textDependent(t, table, col); dep != "" {
		return dependsOn(col, table, dep+" may depend on column "+col+" of table "+table)
	}
	var checks []string
	for _, ch := range tbl.Checks {
		if parse.Mentions(ch.Expr, col) {
			checks = append(checks, ch.Name)
		}
	}
	// An index over an expression of the column, or whose predicate reads
	// it, goes with it, as PostgreSQL drops it (with its hidden columns).
	cat := t.cat
	for _, idx := range tbl.Indexes {
		if indexReads(tbl, idx, col) {
			if cat, err = cat.DropIndex(t.kv, s.database, idx.Name); err != nil {
				return err
			}
		}
	}
	next, err := cat.DropColumn(t.kv, s.database, table, col, checks)
	if err != nil {
		return err
	}
	t.setCatalog(next)
	return nil
}

// indexReads reports whether idx has an expression or a predicate that
// reads column col of t.
func indexReads(t *catalog.Table, idx *catalog.Index, col string) bool {
	for _, o := range idx.Columns {
		if g := t.Columns[o].Generated; g != "" && parse.Mentions(g, col) {
			return true
		}
	}
	if o := t.ColumnOrdinal(idx.Predicate); idx.Predicate != "" && o >= 0 {
		return parse.Mentions(t.Columns[o].Generated, col)
	}
	return false
}

func dependsOn(col, table, detail string) error {
	e := pgerror.Newf(pgerror.DependentObjectsStillExist, "cannot drop column %s of table %s because other objects depend on it", col, table)
	e.Detail = detail
	e.Hint = "Use DROP ... CASCADE to drop the dependent objects too."
	return e
}

// textDependent names a view or trigger whose SQL text names table (and
// col, when given): "view v" or "trigger tr", or "".
func (s *Session) textDependent(t *txn, table, col string) string {
	views, _ := t.cat.Views(s.database)
	for _, v := range views {
		if parse.Mentions(v.SQL, table) && (col == "" || parse.Mentions(v.SQL, col)) {
			return "view " + v.Name
		}
	}
	tables, _ := t.cat.Tables(s.database)
	for _, other := range tables {
		for _, tr := range other.Triggers {
			text := tr.When
			for _, b := range tr.Body {
				text += " ; " + b
			}
			own := other.Name == table
			if (own || parse.Mentions(text, table)) && (col == "" && !own || col != "" && (parse.Mentions(text, col) || slicesContains(tr.Columns, col))) {
				return "trigger " + tr.Name
			}
		}
	}
	return ""
}

// tableColumn looks up table and its visible column col: the table's
// 42P01, or 42703 for a missing column.
func (s *Session) tableColumn(t *txn, table, col string) (*catalog.Table, int, error) {
	tbl, err := t.cat.Table(s.database, table)
	if err != nil {
		return nil, -1, err
	}
	i := tbl.ColumnOrdinal(col)
	if i < 0 || tbl.Columns[i].Hidden {
		return nil, -1, columnMissing(col, table)
	}
	return tbl, i, nil
}

func columnMissing(col, table string) error {
	return pgerror.Newf(pgerror.UndefinedColumn, "column %q of relation %q does not exist", col, table)
}

func containsOrdinal(s []int, v int) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

func slicesContains(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}
