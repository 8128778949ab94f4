package session

// CREATE TABLE AS, SELECT INTO and CREATE MATERIALIZED VIEW: a table made
// from a query's output columns and filled with its rows.

import (
	"context"
	"fmt"

	"github.com/kvsql/kvsql/catalog"
	"github.com/kvsql/kvsql/exec"
	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/planner"
	"github.com/kvsql/kvsql/planner/parse"
	"github.com/kvsql/kvsql/types"
	"vitess.io/vitess/go/vt/sqlparser"
)

// createTableAs runs CREATE TABLE name AS query: a table with the query's
// output columns (their names and types; no primary key) filled with its
// rows, in one transaction. The tag is SELECT n, as in PostgreSQL.
func (s *Session) createTableAs(ctx context.Context, t *txn, ct *sqlparser.CreateTable, frames []parse.WindowFrame) (string, error) {
	name := ct.Table.Name.String()
	if ct.IfNotExists {
		if _, err := t.cat.Table(s.database, name); err == nil {
			s.notice(pgerror.Newf(pgerror.DuplicateTable, "relation %q already exists, skipping", name))
			return "CREATE TABLE AS", nil
		}
	}
	if ct.TableSpec != nil && len(ct.TableSpec.Columns) > 0 {
		return "", pgerror.New(pgerror.FeatureNotSupported, "CREATE TABLE name (columns) AS is not supported")
	}
	return s.createFromQuery(ctx, t, name, nil, &parse.Statement{AST: ct.Select, Frames: frames}, "", true)
}

// createAs runs CREATE TABLE ... AS with a column-name list or WITH [NO]
// DATA, and SELECT ... INTO.
func (s *Session) createAs(ctx context.Context, t *txn, ca *parse.CreateAsStmt) (string, error) {
	if _, err := t.cat.Table(s.database, ca.Name); err == nil && ca.IfNotExists {
		s.notice(pgerror.Newf(pgerror.DuplicateTable, "relation %q already exists, skipping", ca.Name))
		return "CREATE TABLE AS", nil
	}
	tag, err := s.createFromQuery(ctx, t, ca.Name, ca.Columns, ca.Query, "", !ca.NoData)
	if err != nil || !ca.NoData {
		return tag, err
	}
	return "CREATE TABLE AS", nil
}

// sourceDomain is the domain of the base-table column a query's output
// column c passes through unchanged (CREATE TABLE AS keeps it, as
// PostgreSQL does); 0 for any other column.
func sourceDomain(cat *catalog.Catalog, c planner.Column) uint32 {
	if c.TableID == 0 || c.Attr < 1 {
		return 0
	}
	t := cat.TableByID(uint64(c.TableID))
	if t == nil || int(c.Attr) > len(t.Columns) || t.Columns[c.Attr-1].Type != c.T {
		return 0
	}
	return t.Columns[c.Attr-1].Domain
}

// createFromQuery creates table name with the query's output columns,
// the first ones named by names, and, when fill, its rows. matView, when
// set, makes it a materialized view remembering that query text.
func (s *Session) createFromQuery(ctx context.Context, t *txn, name string, names []string, query *parse.Statement, matView string, fill bool) (string, error) {
	plan, _, err := s.planner(t.cat).Plan(query, nil)
	if err != nil {
		return "", err
	}
	def := catalog.TableDef{Name: name}
	seen := map[string]bool{}
	for _, c := range plan.Columns() {
		if c.Hidden {
			continue
		}
		if i := len(def.Columns); i < len(names) {
			c.Name = names[i]
		}
		if seen[c.Name] {
			return "", pgerror.Newf(pgerror.DuplicateColumn, "column %q specified more than once", c.Name)
		}
		seen[c.Name] = true
		typ := c.T
		if typ.Family == types.Unknown {
			typ = types.T{Family: types.Text}
		}
		col := catalog.Column{Name: c.Name, Type: typ, Domain: sourceDomain(t.cat, c)}
		if typ.Family == types.Record || typ.Elem == types.Record {
			if typ.Comp == nil || typ.Comp.OID == types.Record.OID() {
				return "", pgerror.Newf(pgerror.InvalidTableDefinition, "column %q has pseudo-type record", c.Name)
			}
			col.Composite = typ.Comp.OID
		}
		def.Columns = append(def.Columns, col)
	}
	if len(names) > len(def.Columns) {
		return "", pgerror.New(pgerror.SyntaxError, "too many column names were specified")
	}
	def.Owner = s.newOwner(t.cat)
	next, err := t.cat.CreateTable(t.kv, s.database, def)
	if err != nil {
		return "", err
	}
	if matView != "" {
		if next, err = next.AlterTable(t.kv, s.database, name, func(nt *catalog.Table) error {
			nt.MatView, nt.MatViewEmpty = matView, !fill
			return nil
		}); err != nil {
			return "", err
		}
	}
	t.setCatalog(next)
	if !fill {
		return "SELECT 0", nil
	}
	n, err := s.fillFromQuery(ctx, t, name, query)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("SELECT %d", n), nil
}

// fillFromQuery inserts the query's rows into table name (also a
// materialized view's, which only this writes).
func (s *Session) fillFromQuery(ctx context.Context, t *txn, name string, query *parse.Statement) (int64, error) {
	rows := query.AST
	if rows == nil {
		return 0, pgerror.New(pgerror.FeatureNotSupported, "this query cannot fill a table")
	}
	sel, ok := rows.(sqlparser.TableStatement)
	if !ok {
		return 0, pgerror.New(pgerror.FeatureNotSupported, "this query cannot fill a table")
	}
	p := s.planner(t.cat)
	p.WriteMatView = true
	ins, _, err := p.Plan(&parse.Statement{AST: &sqlparser.Insert{
		Table: &sqlparser.AliasedTableExpr{Expr: keyTableName(name)},
		Rows:  sel,
	}}, nil)
	if err != nil {
		return 0, err
	}
	n, err := exec.Run(s.execCtx(ctx, t, nil), ins)
	return int64(n), err
}
