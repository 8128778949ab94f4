package session

import (
	"hash/maphash"

	"github.com/kvsql/kvsql/catalog"
	"github.com/kvsql/kvsql/exec/eval"
	"github.com/kvsql/kvsql/index"
	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/planner"
	"github.com/kvsql/kvsql/planner/parse"
	"github.com/kvsql/kvsql/wire/backend"
)

// ANALYZE, VACUUM and REINDEX: statements that look after a table's
// statistics and index files rather than change its definition.

// analyze recomputes statistics for the named tables (all when empty).
func (s *Session) analyze(t *txn, names []string) error {
	var tables []*catalog.Table
	if len(names) == 0 {
		all, err := t.cat.Tables(s.database)
		if err != nil {
			return err
		}
		tables = all
	}
	for _, n := range names {
		tbl, err := t.cat.Table(s.database, n)
		if err != nil {
			return err
		}
		tables = append(tables, tbl)
	}
	cat := t.cat
	defer s.endProgress()
	for _, tbl := range tables {
		s.report(func(a *activity) {
			a.analyze = &planner.AnalyzeProgress{RelID: int64(tbl.ID), Phase: "acquiring sample rows"}
		})
		st := catalog.Stats{TableID: tbl.ID, Distinct: map[uint32]int64{}}
		// Distinct values are counted by their hash (eval.Hash: equal
		// values hash alike, so 1.0 and 1.00 are one numeric value), not
		// by their text, which quoted every value to key a map.
		distinct := make([]map[uint64]struct{}, len(tbl.Columns))
		for i := range distinct {
			distinct[i] = map[uint64]struct{}{}
		}
		var h maphash.Hash
		it, err := index.ScanMaster(t.kv, tbl, index.Span{}, false)
		if err != nil {
			return err
		}
		for it.Next() {
			st.RowCount++
			for i, d := range it.Row() {
				if len(distinct[i]) < 100000 {
					h.Reset()
					eval.Hash(&h, d)
					distinct[i][h.Sum64()] = struct{}{}
				}
			}
		}
		if err := it.Close(); err != nil {
			return err
		}
		for i, c := range tbl.Columns {
			st.Distinct[c.ID] = int64(len(distinct[i]))
		}
		next, err := cat.SetStats(t.kv, st)
		if err != nil {
			return err
		}
		cat = next
		t.db.rowCounter(tbl.ID).Store(st.RowCount)
	}
	t.setCatalog(cat)
	return nil
}

// vacuum compacts the key spaces of the named tables (all when none are
// named) and their indexes, so reads after a bulk load do not go through
// many overlapping files; with ANALYZE it then refreshes their statistics.
// Like PostgreSQL's VACUUM it cannot run inside a transaction block. It
// shows in pg_stat_progress_vacuum, or as VACUUM FULL in
// pg_stat_progress_cluster (for kvsql both compact the same key spaces).
func (s *Session) vacuum(v *parse.VacuumStmt) (backend.Result, error) {
	if s.cur != nil {
		return nil, pgerror.New(pgerror.ActiveSQLTransaction, "VACUUM cannot run inside a transaction block")
	}
	cat := s.db.Catalog()
	var tables []*catalog.Table
	if len(v.Tables) == 0 {
		all, err := cat.Tables(s.database)
		if err != nil {
			return nil, err
		}
		tables = all
	}
	for _, ref := range v.Tables {
		n, err := s.planner(cat).LookupRef(ref)
		if err != nil {
			return nil, err
		}
		t, err := cat.Table(s.database, n)
		if err != nil {
			return nil, err
		}
		tables = append(tables, t)
	}
	defer s.endProgress()
	for _, t := range tables {
		spaces := []uint64{t.ID}
		for _, idx := range t.Indexes {
			spaces = append(spaces, idx.ID)
		}
		for i, id := range spaces {
			s.report(func(a *activity) { a.vacuum, a.cluster = vacuumProgress(v.Full, t, i) })
			if err := s.db.eng.Compact(catalog.SpacePrefix(id), catalog.SpacePrefix(id+1)); err != nil {
				return nil, ioError(err)
			}
		}
		s.endProgress()
	}
	if v.Analyze {
		names := v.Tables
		if err := s.inTxn(func(t *txn) error { return s.analyze(t, names) }); err != nil {
			return nil, err
		}
	}
	return &staticResult{tag: "VACUUM"}, nil
}

// vacuumProgress is the progress of a VACUUM (FULL when full) of t about
// to compact its key space i: the master's (0) or its i-th index's.
func vacuumProgress(full bool, t *catalog.Table, i int) (*planner.VacuumProgress, *planner.ClusterProgress) {
	if full {
		c := &planner.ClusterProgress{RelID: int64(t.ID), Command: "VACUUM FULL", Phase: "writing new heap"}
		if i > 0 {
			c.Phase, c.IndexRebuildCount = "rebuilding index", int64(i-1)
		}
		return nil, c
	}
	v := &planner.VacuumProgress{RelID: int64(t.ID), Phase: "vacuuming heap"}
	if i > 0 {
		v.Phase, v.IndexVacuumCount = "vacuuming indexes", int64(i-1)
	}
	return v, nil
}

// reindex rebuilds an index, or every index of a table, from the master
// file: the index's key space is cleared and filled again.
func (s *Session) reindex(t *txn, r *parse.ReindexStmt) error {
	var tbl *catalog.Table
	var only *catalog.Index
	if r.Kind != "table" {
		if it, idx, err := t.cat.Index(s.database, r.Name); err == nil {
			tbl, only = it, idx
		} else if r.Kind == "index" {
			return err
		}
	}
	if tbl == nil {
		var err error
		if tbl, err = t.cat.Table(s.database, r.Name); err != nil {
			if r.Kind == "" {
				return pgerror.Newf(pgerror.UndefinedObject, "index or table %q does not exist", r.Name)
			}
			return err
		}
	}
	for _, idx := range tbl.Indexes {
		if only != nil && idx != only {
			continue
		}
		if err := t.kv.DeleteRange(catalog.SpacePrefix(idx.ID), catalog.SpacePrefix(idx.ID+1)); err != nil {
			return err
		}
		if err := s.backfillIndex(t, tbl, idx, "REINDEX"); err != nil {
			return err
		}
	}
	return nil
}

func countRows(t *txn, tbl *catalog.Table) (int64, error) {
	it, err := index.ScanMaster(t.kv, tbl, index.Span{}, false)
	if err != nil {
		return 0, err
	}
	defer it.Close()
	var n int64
	for it.Next() {
		n++
	}
	return n, it.Err()
}
