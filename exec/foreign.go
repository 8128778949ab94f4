package exec

import (
	"math"

	"github.com/kvsql/kvsql/exec/eval"
	"github.com/kvsql/kvsql/foreign"
	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/planner"
	"github.com/kvsql/kvsql/types"
)

// foreignScanOp reads a foreign table's rows from the application's
// store (planner.ForeignScan): one key range per span, rows assembled
// by foreign.Scanner, the scan's filter applied to each. Keys and values
// the layout does not decode are skipped; their count goes to EXPLAIN
// ANALYZE (Stats) and to a WARNING when the scan ends.
type foreignScanOp struct {
	rs   *runState
	env  *eval.Env
	node *planner.Scan
	t    ticker
	sc   *foreign.Scanner
	done bool
}

var _ Operator = (*foreignScanOp)(nil)

// foreignReader returns the store foreign table table of database db
// is read from.
func (rs *runState) foreignReader(db, table string) (foreign.Store, error) {
	if rs.ctx.Hooks == nil {
		return nil, pgerror.Newf(pgerror.FeatureNotSupported, "foreign table %q: this session has no access to foreign stores", table)
	}
	return rs.ctx.Hooks.Foreign(db)
}

func newForeignScan(rs *runState, env *eval.Env, n *planner.Scan) (Operator, error) {
	st, err := rs.foreignReader(n.Table.DB, n.Table.Name)
	if err != nil {
		return nil, err
	}
	l := n.Table.Foreign
	var ranges []foreign.Range
	if len(n.Foreign.Spans) == 0 {
		ranges = append(ranges, foreign.Range{Lo: l.Prefix(), Hi: prefixEnd(l.Prefix())})
	}
	keyFields := l.KeyFields()
	for _, sp := range n.Foreign.Spans {
		var b foreign.Bounds
		for i, e := range sp.Eq {
			d, err := eval.Eval(env, e, nil)
			if err != nil {
				return nil, err
			}
			v, ok := keyDatum(d, n.Table.Columns[keyFields[i]].Type)
			if !ok {
				break // not a value a key spells: the prefix so far, the filter decides
			}
			b.Eq = append(b.Eq, v)
		}
		if len(b.Eq) == len(sp.Eq) {
			t := types.T{}
			if len(b.Eq) < len(keyFields) {
				t = n.Table.Columns[keyFields[len(b.Eq)]].Type
			}
			var err error
			if b.Lo, err = boundDatum(env, sp.Lo, t); err != nil {
				return nil, err
			}
			if b.Hi, err = boundDatum(env, sp.Hi, t); err != nil {
				return nil, err
			}
			b.LoExcl, b.HiExcl = sp.LoExcl, sp.HiExcl
		}
		lo, hi, empty := l.KeyRange(b)
		if !empty {
			ranges = append(ranges, foreign.Range{Lo: lo, Hi: hi})
		}
	}
	return &foreignScanOp{rs: rs, env: env, node: n, t: ticker{rs: rs}, sc: l.NewScanner(st, ranges)}, nil
}

// keyDatum returns d as a value of a key column of type t, exactly, or
// false (2.5 for an integer column: no key spells it, and the filter
// rejects every row anyway; NULL likewise).
func keyDatum(d types.Datum, t types.T) (types.Datum, bool) {
	switch t.Family {
	case types.Int2, types.Int4, types.Int8:
		switch d.Kind {
		case types.KindInt:
			return d, true
		case types.KindFloat:
			if d.F == math.Trunc(d.F) && math.Abs(d.F) < 1<<62 {
				return types.NewInt(int64(d.F)), true
			}
		}
		return types.Datum{}, false
	case types.Bytea:
		return d, d.Kind == types.KindBytes
	default:
		return d, d.Kind == types.KindText
	}
}

// boundDatum evaluates a range bound (nil: none). A bound that is not an
// exact key value is left out: the range only narrows the scan.
func boundDatum(env *eval.Env, e planner.Expr, t types.T) (*types.Datum, error) {
	if e == nil {
		return nil, nil
	}
	d, err := eval.Eval(env, e, nil)
	if err != nil {
		return nil, err
	}
	if d.IsNull() {
		return &d, nil
	}
	v, ok := keyDatum(d, t)
	if !ok {
		return nil, nil
	}
	return &v, nil
}

func prefixEnd(p []byte) []byte {
	end := append([]byte{}, p...)
	for i := len(end) - 1; i >= 0; i-- {
		if end[i] != 0xff {
			end[i]++
			return end[:i+1]
		}
	}
	return nil
}

func (s *foreignScanOp) Next() ([]types.Datum, error) {
	if s.done {
		return nil, nil
	}
	for {
		if err := s.t.tick(); err != nil {
			return nil, err
		}
		row, err := s.sc.Next()
		if err != nil {
			return nil, err
		}
		if row == nil {
			s.finish()
			return nil, nil
		}
		if s.node.Filter != nil {
			ok, err := eval.EvalBool(s.env, s.node.Filter, row)
			if err != nil {
				return nil, err
			}
			if !ok {
				continue
			}
		}
		return row, nil
	}
}

// finish reports the scan's malformed keys once it has read them all.
func (s *foreignScanOp) finish() {
	s.done = true
	if s.rs.ctx.Stats != nil {
		s.rs.ctx.Stats.addForeign(s.node, s.sc.Keys, s.sc.Malformed)
	}
	if s.sc.Malformed > 0 && s.rs.ctx.Warn != nil {
		s.rs.ctx.Warn("foreign table %q: skipped %d key(s) or value(s) its layout does not decode", s.node.Table.Name, s.sc.Malformed)
	}
}

func (s *foreignScanOp) Close() error { return s.sc.Close() }
