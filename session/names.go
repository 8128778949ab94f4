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
		created := ast.Table
		r.create(&ast.Table)
		if ast.OptLike != nil {
			r.lookup(&ast.OptLike.LikeTable)
		}
		// A foreign key may reference the table being created.
		ref := func(tn *sqlparser.TableName) {
			if tn.Name.String() == created.Name.String() && (tn.Qualifier.IsEmpty() || tn.Qualifier == created.Qualifier) {
				*tn = ast.Table
				return
			}
			r.lookup(tn)
		}
		if ast.TableSpec != nil {
			for _, cd := range ast.TableSpec.Columns {
				if o := cd.Type.Options; o != nil && o.Reference != nil {
					ref(&o.Reference.ReferencedTable)
				}
			}
			for _, cd := range ast.TableSpec.Constraints {
				if fk, ok := cd.Details.(*sqlparser.ForeignKeyDefinition); ok {
					ref(&fk.ReferenceDefinition.ReferencedTable)
				}
			}
		}
	case *sqlparser.DropTable:
		for i := range ast.FromTables {
			r.lookupIf(&ast.FromTables[i], ast.IfExists)
		}
	case *sqlparser.CreateView:
		r.create(&ast.ViewName)
	case *sqlparser.DropView:
		for i := range ast.FromTables {
			r.lookupIf(&ast.FromTables[i], ast.IfExists)
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

// lookupIf is lookup for DROP ... IF EXISTS, where a schema that does not
// exist only means there is nothing to drop.
func (r *nameResolver) lookupIf(tn *sqlparser.TableName, ifExists bool) {
	if ifExists {
		r.set(tn, r.pl.LookupKey)
		return
	}
	r.lookup(tn)
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

// resolveRefs returns a copy of a statement whose own statement struct
// (the dialect layer's, not vitess's) has its relation names, written as
// parse.QualifiedRef, resolved to catalog keys.
func resolveRefs(pl *planner.Planner, p *parse.Statement) (*parse.Statement, error) {
	q := *p
	var err error
	all := func(refs []string) []string {
		out := make([]string, len(refs))
		for i, ref := range refs {
			if err == nil {
				out[i], err = pl.LookupRef(ref)
			}
		}
		return out
	}
	switch {
	case p.Sequence != nil:
		ss := *p.Sequence
		if ss.Op == "create" {
			var key string
			key, err = pl.CreateRef(ss.Names[0])
			ss.Names = []string{key}
		} else {
			ss.Names = all(ss.Names)
		}
		q.Sequence = &ss
	case p.DropConstraint != nil:
		d := *p.DropConstraint
		d.Table = all([]string{d.Table})[0]
		q.DropConstraint = &d
	case p.AttachIndex != nil:
		a := *p.AttachIndex
		names := all([]string{a.Parent, a.Child})
		a.Parent, a.Child = names[0], names[1]
		q.AttachIndex = &a
	case p.DropIndex != nil:
		d := *p.DropIndex
		d.Names = all(d.Names)
		q.DropIndex = &d
	case p.Truncate != nil:
		tr := *p.Truncate
		tr.Tables = all(tr.Tables)
		q.Truncate = &tr
	case p.Lock != nil:
		l := *p.Lock
		l.Tables = all(l.Tables)
		q.Lock = &l
	case p.Comment != nil && p.Comment.Kind != "schema" && p.Comment.Kind != "domain constraint":
		c := *p.Comment
		c.Name = all([]string{c.Name})[0]
		q.Comment = &c
	case p.Owner != nil && p.Owner.Kind != "database" && p.Owner.Kind != "schema":
		o := *p.Owner
		o.Name = all([]string{o.Name})[0]
		q.Owner = &o
	case p.SetSchema != nil:
		ss := *p.SetSchema
		if ss.IfExists {
			_, schema, name := planner.SplitRef(ss.Table)
			ss.Table, err = pl.LookupKey(schema, name)
		} else {
			ss.Table = all([]string{ss.Table})[0]
		}
		q.SetSchema = &ss
	case p.MatView != nil:
		m := *p.MatView
		if m.Op == "create" {
			var key string
			key, err = pl.CreateRef(m.Names[0])
			m.Names = []string{key}
		} else {
			m.Names = all(m.Names)
		}
		q.MatView = &m
	case p.Trigger != nil && p.Trigger.Table != "":
		tr := *p.Trigger
		tr.Table = all([]string{tr.Table})[0]
		q.Trigger = &tr
	case p.Analyze != nil:
		a := *p.Analyze
		a.Tables = all(a.Tables)
		q.Analyze = &a
	case p.Reindex != nil:
		ri := *p.Reindex
		ri.Name = all([]string{ri.Name})[0]
		q.Reindex = &ri
	case p.ViewDefault != nil:
		vd := *p.ViewDefault
		_, schema, name := planner.SplitRef(vd.View)
		if vd.View, err = pl.LookupKey(schema, name); err != nil && vd.IfExists {
			vd.View, err = p.ViewDefault.View, nil // refused with a NOTICE (alter.go)
		}
		q.ViewDefault = &vd
	case p.AlterColumn != nil:
		a := *p.AlterColumn
		a.Table = all([]string{a.Table})[0]
		q.AlterColumn = &a
	case p.AddIdentity != nil:
		a := *p.AddIdentity
		a.Table = all([]string{a.Table})[0]
		q.AddIdentity = &a
	case p.Inherit != nil:
		is := *p.Inherit
		var key string
		if key, err = pl.CreateRef(is.Name); err == nil {
			is.Name = key
			is.Parents = all(is.Parents)
			is.Elements = append([]parse.TableElement(nil), is.Elements...)
			for i, e := range is.Elements {
				if e.Like != "" {
					is.Elements[i].Like = all([]string{e.Like})[0]
				}
			}
		}
		q.Inherit = &is
	case p.Attach != nil:
		a := *p.Attach
		a.Parent = all([]string{a.Parent})[0]
		if a.Partition != "" {
			a.Partition = all([]string{a.Partition})[0]
		}
		q.Attach = &a
	case p.CreateAs != nil:
		ca := *p.CreateAs
		var key string
		if key, err = pl.CreateRef(ca.Name); err == nil {
			ca.Name = key
		}
		q.CreateAs = &ca
	}
	return &q, err
}

// keyTableName is the vitess name of the relation whose key is key,
// always schema-qualified, so that planning a statement the session
// builds around it does not depend on search_path (pg_dump restores
// with an empty one).
func keyTableName(key string) sqlparser.TableName {
	schema, name := catalog.SplitRelKey(key)
	return sqlparser.TableName{Qualifier: sqlparser.NewIdentifierCS(schema), Name: sqlparser.NewIdentifierCS(name)}
}

// keySQL is keyTableName as SQL text: "schema"."name".
func keySQL(key string) string {
	schema, name := catalog.SplitRelKey(key)
	return quoteIdent(schema) + "." + quoteIdent(name)
}
