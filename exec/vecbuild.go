package exec

import (
	"time"

	"github.com/kvsql/kvsql/exec/eval"
	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/planner"
	"github.com/kvsql/kvsql/types"
)

// buildVectorized builds a node the planner marked Vectorized as a row
// Operator: an aggregation consumes batches and produces rows itself;
// every other node is its batch operator under a vecToRows.
func (rs *runState) buildVectorized(env *eval.Env, n planner.Node) (Operator, error) {
	if a, ok := n.(*planner.Aggregate); ok {
		return newVecAggregate(rs, env, a)
	}
	v, err := rs.buildVec(env, n)
	if err != nil {
		return nil, err
	}
	return &vecToRows{input: v, row: make([]types.Datum, len(n.Columns()))}, nil
}

// buildVec builds the batch operator of a node in a Vectorized subtree
// (counted and timed for EXPLAIN ANALYZE, as build does row operators).
func (rs *runState) buildVec(env *eval.Env, n planner.Node) (vecOp, error) {
	op, err := rs.buildVecNode(env, n)
	if err != nil || !rs.ctx.Analyze {
		return op, err
	}
	st := rs.ctx.Stats
	ns := st.nodes[n]
	if ns == nil {
		ns = &nodeStats{}
		st.nodes[n] = ns
	}
	ns.loops++
	return &analyzeVec{op: op, ns: ns}, nil
}

// analyzeVec counts the rows of another batch operator's batches and
// times its NextBatch calls.
type analyzeVec struct {
	op vecOp
	ns *nodeStats
}

func (a *analyzeVec) NextBatch() (*batch, error) {
	start := time.Now()
	b, err := a.op.NextBatch()
	a.ns.d += time.Since(start)
	if b != nil {
		a.ns.rows += int64(b.live())
	}
	return b, err
}

func (a *analyzeVec) Close() error { return a.op.Close() }

func (rs *runState) buildVecNode(env *eval.Env, n planner.Node) (vecOp, error) {
	switch n := n.(type) {
	case *planner.Scan:
		if planner.VecIndexScan(n) {
			return newVecIndexScanOp(rs, env, n) // vecindex.go, vecindexpar.go
		}
		// A parallel scan needs a read view safe to iterate from two
		// goroutines: read-only statements' (autocommit queries).
		if n.Parallel && rs.ctx.ReadOnly {
			p, err := newVecParallelScan(rs, env, n)
			if p != nil || err != nil {
				return p, err
			}
		}
		return newVecScan(rs, env, n)
	case *planner.Filter:
		in, err := rs.buildVec(env, n.Input)
		if err != nil {
			return nil, err
		}
		p, err := compileVecPred(env, n.Pred, columnTypes(n.Input.Columns()))
		if err != nil {
			_ = in.Close()
			return nil, err
		}
		return &vecFilter{input: in, pred: p}, nil
	case *planner.Project:
		in, err := rs.buildVec(env, n.Input)
		if err != nil {
			return nil, err
		}
		p := &vecProject{input: in}
		for _, e := range n.Exprs {
			c, ok := e.(*planner.ColRef)
			if !ok || c.Outer != 0 {
				_ = in.Close()
				return nil, pgerror.Newf(pgerror.Internal, "exec: no batch form for the projection of %s", e)
			}
			p.cols = append(p.cols, c.Index)
		}
		p.out.cols = make([]*vec, len(p.cols))
		dropUnusedKey(in, p.cols)
		return p, nil
	case *planner.Join:
		return newVecHashJoin(rs, env, n)
	}
	return nil, pgerror.Newf(pgerror.Internal, "exec: no batch form for %T", n)
}

// keyDropper is a batch scan that can stop filling its primary-key
// columns (vecScan, vecParallelScan).
type keyDropper interface {
	dropKeyColumns(used []int)
}

// dropUnusedKey tells op, when it is a batch scan (under EXPLAIN
// ANALYZE's wrapper too), that the operator above reads only the columns
// used.
func dropUnusedKey(op vecOp, used []int) {
	if a, ok := op.(*analyzeVec); ok {
		op = a.op
	}
	if d, ok := op.(keyDropper); ok {
		d.dropKeyColumns(used)
	}
}

func columnTypes(cols []planner.Column) []types.T {
	out := make([]types.T, len(cols))
	for i, c := range cols {
		out[i] = c.T
	}
	return out
}

// vecFilter narrows its input's batches to the rows its predicate holds
// for.
type vecFilter struct {
	input vecOp
	pred  *vecPred
	out   batch
	sel   []int
}

func (f *vecFilter) NextBatch() (*batch, error) {
	for {
		b, err := f.input.NextBatch()
		if b == nil || err != nil {
			return nil, err
		}
		sel, err := f.pred.filter(b, f.sel[:0])
		if err != nil {
			return nil, err
		}
		f.sel = sel
		if len(sel) == 0 {
			continue
		}
		f.out = *b
		f.out.sel = sel
		return &f.out, nil
	}
}

func (f *vecFilter) Close() error { return f.input.Close() }

// vecProject picks and reorders its input's columns (no copying).
type vecProject struct {
	input vecOp
	cols  []int
	out   batch
}

func (p *vecProject) NextBatch() (*batch, error) {
	b, err := p.input.NextBatch()
	if b == nil || err != nil {
		return nil, err
	}
	for i, c := range p.cols {
		p.out.cols[i] = b.cols[c]
	}
	p.out.n, p.out.sel, p.out.part = b.n, b.sel, b.part
	return &p.out, nil
}

func (p *vecProject) Close() error { return p.input.Close() }
