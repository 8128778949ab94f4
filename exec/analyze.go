package exec

import (
	"time"

	"github.com/kvsql/kvsql/planner"
	"github.com/kvsql/kvsql/types"
)

// Stats holds EXPLAIN ANALYZE's per-node actuals: rows produced, loops
// (how many times the node's operator was built and run: more than one
// for a correlated subquery's plan) and time spent in Next, children
// included.
type Stats struct {
	nodes map[planner.Node]*nodeStats
	// foreign counts, per foreign scan, the keys read and those skipped
	// as malformed.
	foreign map[planner.Node]*[2]int64
}

func (s *Stats) addForeign(n planner.Node, keys, malformed int64) {
	if s.foreign == nil {
		s.foreign = map[planner.Node]*[2]int64{}
	}
	c := s.foreign[n]
	if c == nil {
		c = new([2]int64)
		s.foreign[n] = c
	}
	c[0] += keys
	c[1] += malformed
}

// Foreign returns the keys a foreign scan read and how many of them it
// skipped as malformed; ok is false for any other node.
func (s *Stats) Foreign(n planner.Node) (keys, malformed int64, ok bool) {
	if s == nil || s.foreign[n] == nil {
		return 0, 0, false
	}
	c := s.foreign[n]
	return c[0], c[1], true
}

type nodeStats struct {
	rows, loops int64
	d           time.Duration
}

func newStats() *Stats { return &Stats{nodes: make(map[planner.Node]*nodeStats)} }

// For returns node n's actual rows, loops and total time; zeros for a
// node that never ran.
func (s *Stats) For(n planner.Node) (rows int64, loops int64, d time.Duration) {
	if s == nil {
		return 0, 0, 0
	}
	ns := s.nodes[n]
	if ns == nil {
		return 0, 0, 0
	}
	return ns.rows, ns.loops, ns.d
}

// wrap returns op instrumented for n.
func (s *Stats) wrap(n planner.Node, op Operator) Operator {
	ns := s.nodes[n]
	if ns == nil {
		ns = &nodeStats{}
		s.nodes[n] = ns
	}
	ns.loops++
	return &analyzeOp{op: op, ns: ns}
}

// analyzeOp counts and times another operator's Next calls.
type analyzeOp struct {
	op Operator
	ns *nodeStats
}

var _ Operator = (*analyzeOp)(nil)

func (a *analyzeOp) Next() ([]types.Datum, error) {
	start := time.Now()
	row, err := a.op.Next()
	a.ns.d += time.Since(start)
	if row != nil {
		a.ns.rows++
	}
	return row, err
}

func (a *analyzeOp) Close() error { return a.op.Close() }

// RowsAffected forwards to a wrapped DML operator (-1 otherwise).
func (a *analyzeOp) RowsAffected() int64 {
	if d, ok := a.op.(DMLOperator); ok {
		return d.RowsAffected()
	}
	return -1
}

// unwrapAnalyze returns the operator inside an analyze wrapper, a
// statement root or a kept tree's root.
func unwrapAnalyze(op Operator) Operator {
	if r, ok := op.(*stmtOp); ok {
		op = r.Operator
	}
	if r, ok := op.(*reusedRoot); ok {
		op = r.Operator // a kept tree's DML root (reuse.go)
	}
	if a, ok := op.(*analyzeOp); ok {
		return a.op
	}
	return op
}
