package session

import (
	"github.com/kvsql/kvsql/catalog"
	"github.com/kvsql/kvsql/planner"
	"github.com/kvsql/kvsql/planner/parse"
	"github.com/kvsql/kvsql/types"
)

// maxCachedQueries bounds a session's cache of simple-protocol plans; a
// full cache is emptied and refilled.
const maxCachedQueries = 256

// queryCache keeps the plans of simple-protocol queries by their text
// with integer constants lifted out (parse.LiftLiterals), so that
// pgbench -M simple's SELECT ... WHERE aid = 12345, sent with a new
// number every time, is parsed and planned once per session rather than
// once per query. It is what a prepared statement is for the extended
// protocol, made by the session instead of the client.
//
// An entry is a stmt of the template text, every parameter declared int4
// (the type the lifted constants have); a query that hits runs a copy of
// it bound to its own constants (stmt.lifted). Its plan is remade like any
// prepared statement's when the catalog or the search path changes
// (stmt.ensurePlan), and every entry is dropped when a setting changes
// (settingsGen), since a plan may have folded a setting (TimeZone, for
// one) into a constant. What the template cannot do — parse to one
// SELECT that reads without locking, plan without error, plan a
// statement that is not volatile, read no table with a partial index —
// sends the query the uncached way, so
// its errors are the ones its own text gets.
type queryCache struct {
	gen     uint64           // the settingsGen the entries were made under
	entries map[string]*stmt // by template; nil: the template is not cacheable
}

// cachedQuery returns a statement for the simple query sql from the
// session's query cache, or nil when sql is not of a cacheable shape.
func (s *Session) cachedQuery(sql string) *stmt {
	if s.db.opts.NoQueryCache {
		return nil
	}
	tmpl, args, ok := parse.LiftLiterals(sql)
	if !ok {
		return nil
	}
	c := &s.queries
	if gen := s.settingsGen.Load(); c.entries == nil || c.gen != gen || len(c.entries) >= maxCachedQueries {
		c.entries, c.gen = map[string]*stmt{}, gen
	}
	e, seen := c.entries[tmpl]
	if !seen {
		e = s.templateStmt(tmpl, len(args))
		c.entries[tmpl] = e
	}
	if e == nil {
		return nil
	}
	if err := e.ensurePlan(s.catalog()); err != nil || e.volatile || readsPartialIndex(e.plan) {
		delete(c.entries, tmpl)
		return nil
	}
	cp := *e
	cp.sql = sql
	cp.lifted = make([]types.Datum, len(args))
	for i, v := range args {
		cp.lifted[i] = types.NewInt(v)
	}
	return &cp
}

// templateStmt parses a lifted template into the statement the cache
// keeps, or returns nil when it is not one SELECT that reads without
// locking rows and has exactly n parameters.
func (s *Session) templateStmt(tmpl string, n int) *stmt {
	stmts, err := parse.Parse(tmpl)
	if err != nil || len(stmts) != 1 || len(stmts[0].Notices) > 0 || stmts[0].NumParams != n {
		return nil
	}
	st := &stmt{s: s, p: &stmts[0], sql: tmpl}
	if st.kind() != kindPlan || isDML(st.p) || locksRows(st.p) || st.p.Compound != nil {
		return nil
	}
	st.declared = make([]types.T, n)
	for i := range st.declared {
		st.declared[i] = types.T{Family: types.Int4}
	}
	return st
}

// readsPartialIndex reports whether plan reads a table that has a partial
// index. The planner uses such an index only when the query's constants
// imply its predicate (WHERE c = 0 for an index WHERE c = 0), which a
// parameter never does: with its constants lifted the query would be
// planned without the index, so it is not cached.
func readsPartialIndex(n planner.Node) bool {
	var t *catalog.Table
	switch n := n.(type) {
	case *planner.Scan:
		t = n.Table
	case *planner.LookupJoin:
		t = n.Table
	}
	if t != nil {
		for _, idx := range t.Indexes {
			if idx.Predicate != "" {
				return true
			}
		}
	}
	for _, c := range n.Children() {
		if readsPartialIndex(c) {
			return true
		}
	}
	return false
}
