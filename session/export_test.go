package session

import "testing"

// SetProgressHook makes every index build, VACUUM, table rewrite and
// ANALYZE call f after each progress report, until the test ends.
func SetProgressHook(t testing.TB, f func()) {
	testHookProgress.Store(&f)
	t.Cleanup(func() { testHookProgress.Store(nil) })
}

// CachedQueries is the number of templates in the session's cache of
// simple-protocol plans (querycache.go).
func (s *Session) CachedQueries() int { return len(s.queries.entries) }

// ExecutingWriters is the number of statements of writing transactions
// counted as executing (DB.executing, which group commit's gathering wait
// reads).
func (db *DB) ExecutingWriters() int64 { return db.executing.Load() }

// SetCopyNoReuse makes COPY FROM allocate fresh constants for every
// batch (copyNoReuse) until the test ends.
func SetCopyNoReuse(t testing.TB, on bool) {
	copyNoReuse.Store(on)
	t.Cleanup(func() { copyNoReuse.Store(false) })
}

// SetSnapshotReads turns the direct snapshot reads of the session's
// autocommit queries (snapread.go) on or off: off, they read through
// their read-only kv.Txn.
func (s *Session) SetSnapshotReads(on bool) { s.noSnapRead = !on }

// HoldsTree reports whether the prepared statement st keeps an operator
// tree between executions (treeCache, reuse.go).
func HoldsTree(st interface{}) bool {
	s, ok := st.(*stmt)
	return ok && s.trees != nil && s.trees.tree != nil
}
