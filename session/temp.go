package session

import (
	"context"
	"log/slog"
	"strconv"

	"vitess.io/vitess/go/vt/sqlparser"

	"github.com/kvsql/kvsql/catalog"
	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/planner"
	"github.com/kvsql/kvsql/planner/parse"
)

// Temporary relations. CREATE TEMP TABLE and CREATE TEMP VIEW create in
// the session's own schema, pg_temp_<backend pid>, made on first use in
// the creating transaction; the search path looks there first, so a
// temporary table hides a permanent one of the same name, and other
// sessions do not see it. The session's end drops the schema with
// everything in it; a schema left by a crash is dropped when the server
// next opens the store (dropOrphanTempSchemas).

// tempSchema is the name of the session's schema of temporary relations.
func (s *Session) tempSchema() string {
	return catalog.TempSchemaPrefix + strconv.FormatUint(uint64(s.pid), 10)
}

// tempTarget qualifies a CREATE TEMP TABLE or VIEW with the session's
// temporary schema, creating the schema in t when it is missing. A
// qualifier naming another schema is PostgreSQL's 42P16.
func (s *Session) tempTarget(t *txn, tn *sqlparser.TableName) error {
	if q := tn.Qualifier.String(); q != "" && q != "pg_temp" && q != s.tempSchema() {
		return pgerror.New(pgerror.InvalidTableDefinition, "cannot create temporary relation in non-temporary schema")
	}
	name := s.tempSchema()
	if _, err := t.cat.Schema(s.database, name); err != nil {
		next, err := t.cat.CreateSchema(t.kv, s.database, catalog.Schema{Name: name, Owner: s.user, Temp: true})
		if err != nil {
			return err
		}
		t.setCatalog(next)
	}
	tn.Qualifier = sqlparser.NewIdentifierCS(name)
	return nil
}

// tempStatement applies tempTarget to a CREATE TEMP TABLE or VIEW and
// returns the statement to run (a copy when it changed).
func (s *Session) tempStatement(t *txn, p *parse.Statement) (*parse.Statement, error) {
	switch ast := p.AST.(type) {
	case *sqlparser.CreateTable:
		if !ast.Temp {
			return p, nil
		}
		q := *p
		ct := *ast
		if err := s.tempTarget(t, &ct.Table); err != nil {
			return nil, err
		}
		q.AST = &ct
		return &q, nil
	case *sqlparser.CreateView:
		if !p.Temp {
			return p, nil
		}
		q := *p
		cv := *ast
		if err := s.tempTarget(t, &cv.ViewName); err != nil {
			return nil, err
		}
		q.AST = &cv
		return &q, nil
	}
	return p, nil
}

// dropTempSchema drops the session's temporary schema, with its
// relations, when it has one.
func (s *Session) dropTempSchema() error {
	if _, err := s.db.Catalog().Schema(s.database, s.tempSchema()); err != nil {
		return nil
	}
	if _, err := s.exec(context.Background(), "DROP SCHEMA IF EXISTS "+s.tempSchema()+" CASCADE", nil); err != nil {
		slog.Warn("kvsql: dropping the temporary schema of a closed session", "schema", s.tempSchema(), "err", err)
		return err
	}
	return nil
}

// dropOrphanTempSchemas drops the temporary schemas of sessions that
// ended without dropping them (a crash, a kill): no session of this
// server owns one yet.
func (db *DB) dropOrphanTempSchemas() error {
	cat := db.Catalog()
	for _, name := range cat.Databases() {
		for _, sc := range cat.Schemas(name) {
			if !sc.Temp {
				continue
			}
			s, err := db.Session(name)
			if err != nil {
				return err
			}
			_, err = s.exec(context.Background(), "DROP SCHEMA IF EXISTS "+sc.Name+" CASCADE", nil)
			if cerr := s.Close(); err == nil {
				err = cerr
			}
			if err != nil {
				return err
			}
		}
	}
	return nil
}

// tempInherit puts a CREATE TEMP TABLE ... INHERITS or PARTITION OF in
// the session's temporary schema, as tempStatement does for the others.
func (s *Session) tempInherit(t *txn, p *parse.Statement) (*parse.Statement, error) {
	if p.Inherit == nil || !p.Inherit.Temp {
		return p, nil
	}
	_, schema, name := planner.SplitRef(p.Inherit.Name)
	tn := sqlparser.TableName{Name: sqlparser.NewIdentifierCS(name), Qualifier: sqlparser.NewIdentifierCS(schema)}
	if err := s.tempTarget(t, &tn); err != nil {
		return nil, err
	}
	q := *p
	is := *p.Inherit
	is.Name = parse.QualifiedRef([]string{tn.Qualifier.String(), name})
	q.Inherit = &is
	return &q, nil
}
