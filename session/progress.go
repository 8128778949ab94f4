package session

import (
	"context"
	"sync/atomic"

	"github.com/kvsql/kvsql/catalog"
	"github.com/kvsql/kvsql/index"
	"github.com/kvsql/kvsql/planner"
	"github.com/kvsql/kvsql/planner/parse"
	"github.com/kvsql/kvsql/wire/backend"
)

// Progress of long operations, as PostgreSQL's pg_stat_progress_* views
// show it: a running COPY, index build, VACUUM, table rewrite or ANALYZE
// keeps its counters in the session's activity (under its lock), where
// any session listing those views reads a copy of them.

// trackCopy makes the wire server's COPY spec (of statement c) show in
// pg_stat_progress_copy from its first CopyData until it finishes (COPY
// FROM) or its rows are closed (COPY TO).
func (s *Session) trackCopy(spec *backend.CopySpec, c *parse.CopyStmt) {
	p := copyProgress{s: s, cmd: "COPY TO"}
	if spec.In {
		p.cmd = "COPY FROM"
	}
	if c.Query == nil {
		if tbl, err := s.catalog().Table(s.database, c.Table); err == nil {
			p.relid = int64(tbl.ID)
		}
	}
	spec.Progress = p.add
	if finish := spec.Finish; finish != nil {
		spec.Finish = func(ctx context.Context, err error) error {
			p.end()
			return finish(ctx, err)
		}
	}
	if rows := spec.Rows; rows != nil {
		spec.Rows = func(ctx context.Context) (backend.Result, error) {
			r, err := rows(ctx)
			if err != nil {
				return nil, err
			}
			return &copyOutResult{Result: r, end: p.end}, nil
		}
	}
}

// copyOutResult ends a COPY TO's progress when its rows are closed.
type copyOutResult struct {
	backend.Result
	end func()
}

func (r *copyOutResult) Close() error {
	r.end()
	return r.Result.Close()
}

// copyProgress is one COPY's entry in pg_stat_progress_copy: add counts
// bytes read or sent and rows stored or sent, showing the COPY on its
// first call, and end removes it.
type copyProgress struct {
	s     *Session
	relid int64
	cmd   string
}

// add counts bytes and rows into the session's running COPY, showing it
// on the first call.
func (p copyProgress) add(bytes, rows int64) {
	a := &p.s.act
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.copy == nil {
		a.copy = &planner.CopyProgress{RelID: p.relid, Command: p.cmd, Type: "PIPE"}
	}
	a.copy.BytesProcessed += bytes
	a.copy.TuplesProcessed += rows
}

// end removes the COPY from pg_stat_progress_copy.
func (p copyProgress) end() {
	a := &p.s.act
	a.mu.Lock()
	a.copy = nil
	a.mu.Unlock()
}

// testHookProgress, when set (by tests), is called after each report of
// an index build, VACUUM, table rewrite or ANALYZE, so a test can look at
// the progress views while the operation waits.
var testHookProgress atomic.Pointer[func()]

// progressEvery is how many rows a rewrite reads or writes between two
// reports.
const progressEvery = 1000

// report changes the session's progress entries with f, under the
// activity lock, and then lets a test look.
func (s *Session) report(f func(a *activity)) {
	a := &s.act
	a.mu.Lock()
	f(a)
	a.mu.Unlock()
	if hook := testHookProgress.Load(); hook != nil {
		(*hook)()
	}
}

// endProgress removes the session's VACUUM, rewrite and ANALYZE entries.
func (s *Session) endProgress() {
	a := &s.act
	a.mu.Lock()
	a.vacuum, a.cluster, a.analyze = nil, nil, nil
	a.mu.Unlock()
}

// rewriteProgress shows a table rewrite in pg_stat_progress_cluster.
type rewriteProgress struct {
	s *Session
}

// startRewrite shows a rewrite of tbl by command (VACUUM FULL or ALTER
// TABLE) in pg_stat_progress_cluster, in phase; end removes it.
func (s *Session) startRewrite(tbl *catalog.Table, command, phase string) rewriteProgress {
	s.report(func(a *activity) {
		a.cluster = &planner.ClusterProgress{RelID: int64(tbl.ID), Command: command, Phase: phase}
	})
	return rewriteProgress{s}
}

// rows reports the rows scanned and written so far: when the phase
// changes, and otherwise every progressEvery rows scanned or written.
func (p rewriteProgress) rows(phase string, scanned, written int64) {
	if phase == "" && (scanned+written == 0 || (scanned+written)%progressEvery != 0) {
		return
	}
	p.s.report(func(a *activity) {
		if c := a.cluster; c != nil {
			if phase != "" {
				c.Phase = phase
			}
			c.TuplesScanned, c.TuplesWritten = scanned, written
		}
	})
}

func (p rewriteProgress) end() { p.s.endProgress() }

// backfillIndex fills idx of tbl from the table's rows as index.Backfill
// does, showing the build in pg_stat_progress_create_index as command
// (CREATE INDEX or REINDEX) until it returns.
func (s *Session) backfillIndex(t *txn, tbl *catalog.Table, idx *catalog.Index, command string) error {
	a := &s.act
	a.mu.Lock()
	a.createIndex = &planner.IndexProgress{RelID: int64(tbl.ID), IndexRelID: int64(idx.ID), Command: command,
		Phase: "building index: loading tuples in tree", TuplesTotal: max(0, s.db.rowCounter(tbl.ID).Load())}
	a.mu.Unlock()
	defer func() {
		a.mu.Lock()
		a.createIndex = nil
		a.mu.Unlock()
	}()
	return index.Backfill(t.kv, tbl, idx, func(done int64) {
		a.mu.Lock()
		a.createIndex.TuplesDone = done
		a.createIndex.TuplesTotal = max(a.createIndex.TuplesTotal, done)
		a.mu.Unlock()
		if hook := testHookProgress.Load(); hook != nil {
			(*hook)()
		}
	})
}
