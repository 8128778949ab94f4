package exec

import (
	"hash/maphash"

	"github.com/kvsql/kvsql/exec/eval"
	"github.com/kvsql/kvsql/planner"
	"github.com/kvsql/kvsql/types"
)

// memoTable holds a memoized scan's rows (planner.ScanMemo) for the rest
// of an execution, hashed by their key values. It is built by the first
// run of the scan; failed says the rows outgrew work_mem and the scan
// runs as written instead.
type memoTable struct {
	seed   maphash.Seed
	table  map[uint64][]memoEntry
	failed bool
}

type memoEntry struct {
	keys, row []types.Datum
}

// memoScan returns the operator for a run of a memoized scan: the rows of
// the memo table whose keys equal the probe values of this run's
// enclosing rows and that pass the memo's Rest.
func (rs *runState) memoScan(env *eval.Env, n *planner.Scan) (Operator, error) {
	m, ok := rs.memos[n]
	if !ok {
		var err error
		if m, err = rs.buildMemo(env, n); err != nil {
			return nil, err
		}
		if rs.memos == nil {
			rs.memos = make(map[*planner.Scan]*memoTable)
		}
		rs.memos[n] = m
	}
	if m.failed {
		return newScan(rs, env, n)
	}
	op := &memoOp{env: env, rest: n.Memo.Rest}
	if len(m.table) == 0 {
		// No row to compare with: the probes are not evaluated, as the
		// filter would not be.
		return op, nil
	}
	keys := make([]types.Datum, len(n.Memo.Probes))
	for i, p := range n.Memo.Probes {
		d, err := eval.Eval(env, p, nil)
		if err != nil {
			return nil, err
		}
		if d.IsNull() {
			return op, nil // = NULL matches nothing
		}
		keys[i] = d
	}
	op.keys, op.bucket = keys, m.table[hashValues(m.seed, keys)]
	return op, nil
}

// buildMemo runs the scan with the memo's Build filter and hashes the
// rows by their keys; rows with a NULL key never match and are left out.
func (rs *runState) buildMemo(env *eval.Env, n *planner.Scan) (*memoTable, error) {
	b := *n
	b.Filter, b.Memo = n.Memo.Build, nil
	op, err := newScan(rs, env, &b)
	if err != nil {
		return nil, err
	}
	defer op.Close()
	m := &memoTable{seed: maphash.MakeSeed(), table: make(map[uint64][]memoEntry)}
	mem := rs.memAccount(rs.workMem)
	t := ticker{rs: rs}
	for {
		row, err := op.Next()
		if err != nil {
			return nil, err
		}
		if row == nil {
			return m, nil
		}
		if err := t.tick(); err != nil {
			return nil, err
		}
		keys := make([]types.Datum, len(n.Memo.Keys))
		null := false
		for i, k := range n.Memo.Keys {
			if keys[i], err = eval.Eval(env, k, row); err != nil {
				return nil, err
			}
			null = null || keys[i].IsNull()
		}
		if null {
			continue
		}
		e := memoEntry{keys: keys, row: copyRow(row)}
		sz := rowSize(e.row) + rowSize(keys) + 48
		if !mem.fits(sz) {
			mem.reset()
			return &memoTable{failed: true}, nil
		}
		if err := mem.grow(sz); err != nil {
			return nil, err
		}
		h := hashValues(m.seed, keys)
		m.table[h] = append(m.table[h], e)
	}
}

func hashValues(seed maphash.Seed, vals []types.Datum) uint64 {
	var h maphash.Hash
	h.SetSeed(seed)
	for _, d := range vals {
		eval.Hash(&h, d)
	}
	return h.Sum64()
}

// memoOp produces one run's rows from a memo table bucket.
type memoOp struct {
	env    *eval.Env
	rest   planner.Expr
	keys   []types.Datum
	bucket []memoEntry
	i      int
	out    []types.Datum
}

func (o *memoOp) Next() ([]types.Datum, error) {
	for o.i < len(o.bucket) {
		e := &o.bucket[o.i]
		o.i++
		if !keysEqual(e.keys, o.keys) {
			continue
		}
		o.out = append(o.out[:0], e.row...)
		ok, err := passes(o.env, o.rest, o.out)
		if err != nil {
			return nil, err
		}
		if ok {
			return o.out, nil
		}
	}
	return nil, nil
}

func (o *memoOp) Close() error { return nil }
