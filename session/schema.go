package session

import (
	"context"
	"fmt"
	"math"
	"sort"
	"strings"

	"vitess.io/vitess/go/vt/sqlparser"

	"github.com/kvsql/kvsql/catalog"
	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/planner"
	"github.com/kvsql/kvsql/planner/parse"
)

// schemaStmt runs CREATE, DROP and ALTER ... RENAME of schemas, in t like
// any DDL.
func (s *Session) schemaStmt(ctx context.Context, t *txn, ss *parse.SchemaStmt) (string, error) {
	switch ss.Op {
	case "create":
		return "CREATE SCHEMA", s.createSchema(ctx, t, ss)
	case "drop":
		return "DROP SCHEMA", s.dropSchemas(t, ss)
	}
	next, err := t.cat.RenameSchema(t.kv, s.database, ss.Names[0], ss.NewName)
	if err != nil {
		return "", err
	}
	t.setCatalog(next)
	return "ALTER SCHEMA", nil
}

// createSchema adds the schema, then runs its schema elements with the
// new schema first on the search path, as PostgreSQL creates them in it.
func (s *Session) createSchema(ctx context.Context, t *txn, ss *parse.SchemaStmt) error {
	name := ss.Names[0]
	owner := ""
	if ss.Owner != "" {
		role, err := s.resolveRole(t.cat, ss.Owner) // role.go
		if err != nil {
			return err
		}
		owner = role
	}
	if _, err := t.cat.Schema(s.database, name); err == nil && ss.IfNotExists {
		if len(ss.Elements) > 0 {
			return pgerror.New(pgerror.FeatureNotSupported, "CREATE SCHEMA IF NOT EXISTS cannot include schema elements")
		}
		s.notice(pgerror.Newf(pgerror.DuplicateSchema, "schema %q already exists, skipping", name))
		return nil
	}
	next, err := t.cat.CreateSchema(t.kv, s.database, catalog.Schema{Name: name, Owner: owner})
	if err != nil {
		return err
	}
	t.setCatalog(next)
	if len(ss.Elements) == 0 {
		return nil
	}
	saved := s.pathOverride
	s.pathOverride = []string{name}
	defer func() { s.pathOverride = saved }()
	for i := range ss.Elements {
		el := &ss.Elements[i]
		if err := checkElementSchema(el, name); err != nil {
			return err
		}
		if _, err := s.ddlIn(ctx, t, el); err != nil {
			return err
		}
	}
	return nil
}

// checkElementSchema refuses a schema element that names another schema
// for what it creates (42P15, as PostgreSQL's transformCreateSchemaStmt).
func checkElementSchema(el *parse.Statement, schema string) error {
	q := elementQualifier(el)
	if q == "" || q == schema {
		return nil
	}
	return pgerror.Newf(pgerror.InvalidSchemaDefinition, "CREATE specifies a schema (%s) different from the one being created (%s)", q, schema)
}

// elementQualifier is the schema a schema element's statement writes
// before the name it creates, or "".
func elementQualifier(el *parse.Statement) string {
	switch ast := el.AST.(type) {
	case *sqlparser.CreateTable:
		return ast.Table.Qualifier.String()
	case *sqlparser.CreateView:
		return ast.ViewName.Qualifier.String()
	}
	if el.Sequence != nil {
		if _, schema, _ := planner.SplitRef(el.Sequence.Names[0]); schema != "" {
			return schema
		}
	}
	return ""
}

// dropSchemas drops each named schema. What a schema holds is dropped
// with it under CASCADE (one NOTICE listing it) and refused otherwise
// (2BP01 whose DETAIL lists it), as PostgreSQL's dependency walk reports.
func (s *Session) dropSchemas(t *txn, ss *parse.SchemaStmt) error {
	for _, name := range ss.Names {
		if _, err := t.cat.Schema(s.database, name); err != nil {
			if ss.IfExists && pgerror.HasCode(err, pgerror.InvalidSchemaName) {
				s.notice(pgerror.Newf(pgerror.SuccessfulCompletion, "schema %q does not exist, skipping", name))
				continue
			}
			return err
		}
		rels := t.cat.Relations(s.database, name)
		if !rels.Empty() {
			deps := dependentsText(t.cat, s.database, rels)
			if !ss.Cascade {
				e := pgerror.Newf(pgerror.DependentObjectsStillExist, "cannot drop schema %s because other objects depend on it", name)
				e.Detail = strings.Join(deps, "\n")
				e.Hint = "Use DROP ... CASCADE to drop the dependent objects too."
				return e
			}
			s.notice(cascadeNotice(deps))
			if err := s.dropSchemaContents(t, rels); err != nil {
				return err
			}
		}
		next, err := t.cat.DropSchema(t.kv, s.database, name)
		if err != nil {
			return err
		}
		t.setCatalog(next)
	}
	return nil
}

// dependentsText lists a schema's relations as PostgreSQL's DETAIL does,
// "table s.t depends on schema s": tables and sequences in the order they
// were created (their IDs, PostgreSQL's OID order), then views, which
// have no ID.
func dependentsText(cat *catalog.Catalog, db string, rels catalog.SchemaRelations) []string {
	type dep struct {
		id   uint64
		text string
	}
	var deps []dep
	add := func(id uint64, kind, key string) {
		schema, name := catalog.SplitRelKey(key)
		deps = append(deps, dep{id, fmt.Sprintf("%s %s.%s depends on schema %s", kind, schema, name, schema)})
	}
	for _, k := range rels.Tables {
		t, err := cat.Table(db, k)
		if err != nil {
			continue
		}
		kind := "table"
		if t.MatView != "" {
			kind = "materialized view"
		}
		add(t.ID, kind, k)
	}
	for _, k := range rels.Sequences {
		if s, err := cat.Sequence(db, k); err == nil {
			add(s.ID, "sequence", k)
		}
	}
	for _, k := range rels.Views {
		add(math.MaxUint64, "view", k)
	}
	sort.SliceStable(deps, func(i, j int) bool { return deps[i].id < deps[j].id })
	out := make([]string, len(deps))
	for i, d := range deps {
		out[i] = d.text
	}
	return out
}

// cascadeNotice is DROP ... CASCADE's NOTICE: one line for one object,
// else a count and the list in DETAIL.
func cascadeNotice(deps []string) *pgerror.Error {
	lines := make([]string, len(deps))
	for i, d := range deps {
		lines[i] = "drop cascades to " + d[:strings.Index(d, " depends on ")]
	}
	if len(lines) == 1 {
		return pgerror.New(pgerror.SuccessfulCompletion, lines[0])
	}
	e := pgerror.Newf(pgerror.SuccessfulCompletion, "drop cascades to %d other objects", len(lines))
	e.Detail = strings.Join(lines, "\n")
	return e
}

// dropSchemaContents drops the views, then the tables (with the foreign
// keys that reference them), then the sequences of a schema.
func (s *Session) dropSchemaContents(t *txn, rels catalog.SchemaRelations) error {
	cat, db := t.cat, s.database
	var err error
	for _, k := range rels.Views {
		if cat, err = cat.DropView(t.kv, db, k); err != nil {
			return err
		}
	}
	for _, k := range rels.Tables {
		if cat, err = dropReferences(t, cat, db, k, true, nil); err != nil {
			return err
		}
		if cat, err = cat.DropTable(t.kv, db, k); err != nil {
			return err
		}
	}
	for _, k := range rels.Sequences {
		if cat, err = cat.DropSequence(t.kv, db, k); err != nil {
			return err
		}
	}
	t.setCatalog(cat)
	return nil
}

// setTableSchema is ALTER TABLE ... SET SCHEMA: the table, its indexes
// and its serial columns' sequences move; its rows do not.
func (s *Session) setTableSchema(t *txn, ss *parse.SetSchemaStmt) error {
	tbl, err := t.cat.Table(s.database, ss.Table)
	if err != nil {
		if ss.IfExists && pgerror.HasCode(err, pgerror.UndefinedTable) {
			s.notice(pgerror.Newf(pgerror.SuccessfulCompletion, "relation %q does not exist, skipping", catalog.DisplayName(ss.Table)))
			return nil
		}
		return err
	}
	if catalog.SchemaName(tbl.Schema) == ss.Schema {
		return nil
	}
	next, err := t.cat.SetTableSchema(t.kv, s.database, ss.Table, ss.Schema)
	if err != nil {
		return err
	}
	t.setCatalog(next)
	return nil
}
