package session

import (
	"context"

	"github.com/kvsql/kvsql/catalog"
	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/planner/parse"
)

// matView runs CREATE, REFRESH and DROP MATERIALIZED VIEW. A
// materialized view is a table (no primary key; a hidden row id) holding
// its query's rows as of the last REFRESH, with the query kept as text;
// REFRESH empties it and runs the query again in the same transaction.
func (s *Session) matView(ctx context.Context, t *txn, m *parse.MatViewStmt) (string, error) {
	switch m.Op {
	case "create":
		name := m.Names[0]
		if _, err := t.cat.Table(s.database, name); err == nil && m.IfNotExists {
			return "CREATE MATERIALIZED VIEW", nil
		}
		q, err := parse.ParseOne(m.Query)
		if err != nil {
			return "", err
		}
		tag, err := s.createFromQuery(ctx, t, name, nil, &q, m.Query, !m.NoData)
		if err != nil {
			return "", err
		}
		if m.NoData {
			return "CREATE MATERIALIZED VIEW", nil
		}
		return tag, nil
	case "refresh":
		tbl, err := s.matViewTable(t, m.Names[0])
		if err != nil {
			return "", err
		}
		if err := truncate(t, tbl); err != nil {
			return "", err
		}
		next, err := t.cat.AlterTable(t.kv, s.database, tbl.Key(), func(nt *catalog.Table) error {
			nt.MatViewEmpty = m.NoData
			return nil
		})
		if err != nil {
			return "", err
		}
		t.setCatalog(next)
		if !m.NoData {
			q, err := parse.ParseOne(tbl.MatView)
			if err != nil {
				return "", err
			}
			if _, err := s.fillFromQuery(ctx, t, tbl.Key(), &q); err != nil {
				return "", err
			}
		}
		return "REFRESH MATERIALIZED VIEW", nil
	}
	// drop
	cat := t.cat
	for _, name := range m.Names {
		tbl, err := cat.Table(s.database, name)
		if err != nil && m.IfExists && pgerror.HasCode(err, pgerror.UndefinedTable) {
			continue
		}
		if err == nil && tbl.MatView == "" {
			e := pgerror.Newf(pgerror.WrongObjectType, "%q is not a materialized view", name)
			e.Hint = "Use DROP TABLE to remove a table."
			err = e
		}
		if err != nil {
			return "", err
		}
		if cat, err = cat.DropTable(t.kv, s.database, name); err != nil {
			return "", err
		}
	}
	t.setCatalog(cat)
	return "DROP MATERIALIZED VIEW", nil
}

// matViewTable is the materialized view name: 42P01 if there is none,
// 42809 if name is another kind of relation.
func (s *Session) matViewTable(t *txn, name string) (*catalog.Table, error) {
	tbl, err := t.cat.Table(s.database, name)
	if err != nil {
		return nil, pgerror.Newf(pgerror.UndefinedTable, "relation %q does not exist", name)
	}
	if tbl.MatView == "" {
		return nil, pgerror.Newf(pgerror.WrongObjectType, "%q is not a materialized view", name)
	}
	return tbl, nil
}
