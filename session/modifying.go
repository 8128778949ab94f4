package session

import (
	"context"

	"github.com/kvsql/kvsql/catalog"
	"github.com/kvsql/kvsql/exec"
	"github.com/kvsql/kvsql/planner"
	"github.com/kvsql/kvsql/types"
)

// Data-modifying WITH queries (WITH d AS (DELETE ... RETURNING *)
// INSERT INTO t SELECT * FROM d): the dialect layer takes them out of
// the statement (parse.ModifyingCTE); the session runs each once, in
// order, in the statement's transaction, before the statement, which
// reads their RETURNING rows (planner.ModifiedRows) and, as in
// PostgreSQL, the tables as they were before them (exec.Ctx.Read is the
// transaction's view from before the first one).

// modifyingStmts returns st's data-modifying WITH queries as statements
// of their own, planned and kept as st is.
func (st *stmt) modifyingStmts() []*stmt {
	if st.mods == nil {
		for i := range st.p.ModifyingCTEs {
			st.mods = append(st.mods, &stmt{s: st.s, p: &st.p.ModifyingCTEs[i].Stmt, sql: st.sql, declared: st.declared})
		}
	}
	return st.mods
}

// modifyingColumns plans st's data-modifying WITH queries in cat and
// returns their RETURNING columns by name (planner.Planner.Modifying),
// renamed by the query's column list.
func (st *stmt) modifyingColumns(cat *catalog.Catalog) (map[string][]planner.Column, error) {
	out := map[string][]planner.Column{}
	for i, sub := range st.modifyingStmts() {
		if err := sub.ensurePlan(cat); err != nil {
			return nil, err
		}
		var cols []planner.Column
		for _, c := range sub.plan.Columns() {
			if !c.Hidden {
				cols = append(cols, c)
			}
		}
		m := st.p.ModifyingCTEs[i]
		for k, name := range m.Columns {
			if k < len(cols) {
				cols[k].Name = name
			}
		}
		out[m.Name] = cols
	}
	return out, nil
}

// runModifying runs st's data-modifying WITH queries in t, in order, and
// returns the rows each returned, by name.
func (s *Session) runModifying(ctx context.Context, t *txn, st *stmt, params []types.Datum) (map[string][][]types.Datum, error) {
	out := map[string][][]types.Datum{}
	for i, sub := range st.modifyingStmts() {
		if err := sub.ensurePlan(t.cat); err != nil {
			return nil, err
		}
		op, err := exec.Build(s.execCtx(ctx, t, params), sub.plan)
		if err != nil {
			return nil, err
		}
		keep := rowCollector{limit: s.queryMemLimit()}
		n, err := exec.Drain(op, func(row []types.Datum) { keep.add(row[:len(sub.cols)]) })
		if err == nil {
			err = keep.err
		}
		if err != nil {
			return nil, err
		}
		trackRows(t, sub.plan, n)
		out[st.p.ModifyingCTEs[i].Name] = keep.rows
	}
	return out, nil
}
