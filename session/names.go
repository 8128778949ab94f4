package session

import (
	"vitess.io/vitess/go/vt/sqlparser"

	"github.com/kvsql/kvsql/catalog"
	"github.com/kvsql/kvsql/planner"
	"github.com/kvsql/kvsql/planner/parse"
)

// resolveDDLNames returns a copy of a DDL statement whose relation names
// are catalog keys (planner.LookupKey, CreateKey): the names it creates go
// into their schema or the search path's first, the names it reads are
// looked up through the path. The DDL code below reads every name as a
// key. Queries inside the statement (CREATE VIEW's, CREATE TABLE AS's)
// are left alone: the planner resolves their names when it binds them.
func (s *Session) resolveDDLNames(pl *planner.Planner, p *parse.Statement) (*parse.Statement, error) {
	if p.AST == nil {
		return p, nil
	}
	q := *p
	q.AST = sqlparser.CloneStatement(p.AST)
	r := nameResolver{pl: pl}
	switch ast := q.AST.(type) {
	case *sqlparser.CreateTable:
		r.create(&ast.Table)
		if ast.TableSpec != nil {
			for _, cd := range ast.TableSpec.Columns {
				if o := cd.Type.Options; o != nil && o.Reference != nil {
					r.lookup(&o.Reference.ReferencedTable)
				}
			}
			for _, cd := range ast.TableSpec.Constraints {
				if fk, ok := cd.Details.(*sqlparser.ForeignKeyDefinition); ok {
					r.lookup(&fk.ReferenceDefinition.ReferencedTable)
				}
			}
		}
	case *sqlparser.DropTable:
		for i := range ast.FromTables {
			r.lookup(&ast.FromTables[i])
		}
	case *sqlparser.CreateView:
		r.create(&ast.ViewName)
	case *sqlparser.DropView:
		for i := range ast.FromTables {
			r.lookup(&ast.FromTables[i])
		}
	case *sqlparser.AlterTable:
		r.lookup(&ast.Table)
		schema, _ := catalog.SplitRelKey(ast.Table.Name.String())
		for _, opt := range ast.AlterOptions {
			switch o := opt.(type) {
			case *sqlparser.AddConstraintDefinition:
				if fk, ok := o.ConstraintDefinition.Details.(*sqlparser.ForeignKeyDefinition); ok {
					r.lookup(&fk.ReferenceDefinition.ReferencedTable)
				}
			case *sqlparser.RenameTableName:
				// RENAME TO keeps the table in its schema.
				o.Table = sqlparser.TableName{Name: sqlparser.NewIdentifierCS(catalog.RelKey(schema, o.Table.Name.String()))}
			}
		}
	}
	return &q, r.err
}

// nameResolver rewrites vitess table names to keys, keeping the first
// error.
type nameResolver struct {
	pl  *planner.Planner
	err error
}

func (r *nameResolver) lookup(tn *sqlparser.TableName) {
	r.set(tn, r.pl.DDLLookupKey)
}

func (r *nameResolver) create(tn *sqlparser.TableName) {
	r.set(tn, r.pl.CreateKey)
}

func (r *nameResolver) set(tn *sqlparser.TableName, resolve func(schema, name string) (string, error)) {
	if r.err != nil || tn.Name.IsEmpty() {
		return
	}
	key, err := resolve(tn.Qualifier.String(), tn.Name.String())
	if err != nil {
		r.err = err
		return
	}
	*tn = sqlparser.TableName{Name: sqlparser.NewIdentifierCS(key)}
}
