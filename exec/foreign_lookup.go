package exec

import (
	"github.com/kvsql/kvsql/exec/eval"
	"github.com/kvsql/kvsql/foreign"
	"github.com/kvsql/kvsql/types"
)

// foreignLookup is the table side of a lookup join into a foreign table
// (lookupJoinOp with a foreign planner.LookupJoin.Table): for each left
// row, the join keys fix the key template's leading fields and one
// prefix scan of the application's store reads the matching rows. The
// join's On checks every equality again, so a probe that no key spells
// exactly (2.0 as a numeric for a decimal field) only narrows the scan
// less.
type foreignLookup struct {
	st     foreign.Store
	l      *foreign.Layout
	sc     *foreign.Scanner
	keys   int64 // keys read by the finished scans
	malfmd int64
}

func newForeignLookup(rs *runState, j *lookupJoinOp) (*foreignLookup, error) {
	st, err := rs.foreignReader(j.node.Table.DB, j.node.Table.Name)
	if err != nil {
		return nil, err
	}
	return &foreignLookup{st: st, l: j.node.Table.Foreign}, nil
}

// start opens the scan of left row row's keys; a NULL key opens none (it
// equals nothing).
func (f *foreignLookup) start(env *eval.Env, j *lookupJoinOp, row []types.Datum) error {
	var b foreign.Bounds
	t := j.node.Table
	for i, e := range j.node.Keys {
		d, err := eval.Eval(env, e, row)
		if err != nil {
			return err
		}
		if d.IsNull() {
			return nil
		}
		v, ok := keyDatum(d, t.Columns[j.keyCols[i]].Type)
		if !ok {
			break // the prefix so far; On decides
		}
		b.Eq = append(b.Eq, v)
	}
	lo, hi, empty := f.l.KeyRange(b)
	if empty {
		return nil
	}
	f.sc = f.l.NewScanner(f.st, []foreign.Range{{Lo: lo, Hi: hi}})
	return nil
}

// next returns the current scan's next row, or nil.
func (f *foreignLookup) next() ([]types.Datum, error) {
	if f.sc == nil {
		return nil, nil
	}
	return f.sc.Next()
}

// stop closes the current scan, adding up what it read.
func (f *foreignLookup) stop() error {
	if f.sc == nil {
		return nil
	}
	f.keys += f.sc.Keys
	f.malfmd += f.sc.Malformed
	err := f.sc.Close()
	f.sc = nil
	return err
}

// finish reports what the join's scans read (EXPLAIN ANALYZE) and the
// malformed keys they skipped (a WARNING), once.
func (f *foreignLookup) finish(rs *runState, j *lookupJoinOp) {
	if rs.ctx.Stats != nil {
		rs.ctx.Stats.addForeign(j.node, f.keys, f.malfmd)
	}
	if f.malfmd > 0 && rs.ctx.Warn != nil {
		rs.ctx.Warn("foreign table %q: skipped %d key(s) or value(s) its layout does not decode", j.node.Table.Name, f.malfmd)
	}
	f.keys, f.malfmd = 0, 0
}
