package exec

import (
	"bytes"
	"hash/maphash"
	"slices"
	"unsafe"

	"github.com/kvsql/kvsql/exec/eval"
	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/planner"
	"github.com/kvsql/kvsql/types"
)

// vecAggOp is the batch form of a hash or scalar Aggregate (planner
// Aggregate marked Vectorized): it reads batches, finds each row's group
// in a keyStore and updates typed per-group accumulators column by
// column — counts, int64 sums, minima and maxima — instead of an aggState
// per group fed one Datum row at a time. Results are those of the row
// aggregates, types and errors included: a sum whose result type is
// bigint fails with 22003 when it leaves int64, one whose result is
// numeric (sum of bigint) continues exactly in a sumState, and avg and
// numeric sums are finished by the row aggregates' own states.
//
// Memory: groups are charged to work_mem. Past it the aggregation admits
// no new group; rows of other groups go to hash partitions (spill files
// of Datum rows), which the row aggregation (aggregateOp) aggregates one
// by one after the in-memory groups are produced, as it does its own.
type vecAggOp struct {
	rs    *runState
	env   *eval.Env
	node  *planner.Aggregate
	input vecOp

	keyCols []int
	keys    *keyStore
	accs    []vecAcc
	mem     memAccount
	gids    []int32 // group of each position of the current batch, -1: spilled
	// groupBytes is what one group's accumulators hold.
	groupBytes int64

	opened bool
	pos    int // next group to produce
	out    []types.Datum
	rest   *aggregateOp // the spilled partitions, after the groups
	spill  []*spillFile
	row    []types.Datum // spill row buffer
}

var _ Operator = (*vecAggOp)(nil)

// vecAcc is one aggregate's accumulators, one slot per group.
type vecAcc struct {
	call *planner.AggCall
	col  int // input column (-1: count(*))
	n    []int64
	i    []int64
	f    []float64
	b    [][]byte
	// over holds, per group, the part of a numeric sum (sum of bigint)
	// that left int64.
	over map[int32]*sumState
	// dec: the argument is numeric; sums holds each group's sum in the
	// row aggregates' state, which stays in int64 arithmetic while the
	// values fit (sumState.fastAddCoef) and continues exactly past it.
	dec  bool
	sums []sumState
}

func newVecAggregate(rs *runState, env *eval.Env, n *planner.Aggregate) (Operator, error) {
	in, err := rs.buildVec(env, n.Input)
	if err != nil {
		return nil, err
	}
	a := &vecAggOp{rs: rs, env: env, node: n, input: in, mem: rs.memAccount(rs.workMem),
		out: make([]types.Datum, len(n.GroupBy)+len(n.Aggs)), gids: make([]int32, batchSize)}
	var kinds []types.T
	for _, e := range n.GroupBy {
		c := e.(*planner.ColRef) // planner.Vectorize admits only columns
		a.keyCols = append(a.keyCols, c.Index)
		kinds = append(kinds, c.T)
	}
	a.keys = newKeyStore(kinds)
	used := slices.Clone(a.keyCols)
	for i := range n.Aggs {
		call := &n.Aggs[i]
		acc := vecAcc{call: call, col: -1}
		if len(call.Args) == 1 {
			acc.col = call.Args[0].(*planner.ColRef).Index
			used = append(used, acc.col)
			acc.dec = call.Args[0].Type().Family == types.Numeric && (call.Func == "sum" || call.Func == "avg")
		}
		a.accs = append(a.accs, acc)
		a.groupBytes += 40
		if acc.dec {
			a.groupBytes += int64(unsafe.Sizeof(sumState{}))
		}
	}
	dropUnusedKey(in, used)
	if n.Strategy == planner.ScalarAgg {
		a.keys.next = append(a.keys.next, -1) // the one group
		for i := range a.accs {
			a.accs[i].grow()
		}
	}
	return a, nil
}

// grow adds a slot for a new group.
func (acc *vecAcc) grow() {
	acc.n = append(acc.n, 0)
	acc.i = append(acc.i, 0)
	acc.f = append(acc.f, 0)
	acc.b = append(acc.b, nil)
	if acc.dec {
		acc.sums = append(acc.sums, sumState{numeric: true})
	}
}

func (a *vecAggOp) Next() ([]types.Datum, error) {
	if !a.opened {
		a.opened = true
		if err := a.consume(); err != nil {
			return nil, err
		}
	}
	if a.pos < a.keys.len() {
		g := int32(a.pos)
		a.pos++
		return a.emit(g)
	}
	if a.rest != nil {
		return a.rest.Next()
	}
	return nil, nil
}

// consume aggregates the whole input.
func (a *vecAggOp) consume() error {
	scalar := a.node.Strategy == planner.ScalarAgg
	for {
		b, err := a.input.NextBatch()
		if err != nil {
			return err
		}
		if b == nil {
			break
		}
		if scalar {
			b.forEach(func(k int) { a.gids[k] = 0 })
		} else if err := a.group(b); err != nil {
			return err
		}
		for i := range a.accs {
			if err := a.accs[i].update(b, a.gids); err != nil {
				return err
			}
		}
	}
	if a.spill != nil {
		rest := &aggregateOp{rs: a.rs, env: a.env, node: a.node, input: emptyOp{}, t: ticker{rs: a.rs}, opened: true,
			mem: a.rs.memAccount(a.rs.workMem), table: map[uint64][]int32{}, out: make([]types.Datum, len(a.out)),
			args: make([][]types.Datum, len(a.node.Aggs))}
		rest.seed = maphash.MakeSeed()
		rest.h.SetSeed(rest.seed)
		for _, f := range a.spill {
			if f != nil {
				rest.queue = append(rest.queue, aggPartition{file: f, level: 1})
			}
		}
		a.spill, a.rest = nil, rest
	}
	return nil
}

// group sets a.gids for every live row of b, adding groups while they fit
// in work_mem and spilling the rows of the others.
func (a *vecAggOp) group(b *batch) error {
	ks := a.keys
	ks.hashBatch(b, a.keyCols)
	var err error
	b.forEach(func(k int) {
		if err != nil {
			return
		}
		g := ks.find(b, a.keyCols, k)
		if g < 0 {
			size := a.groupBytes + int64(ks.keyBytes(b, a.keyCols, k))
			// Once a group went to a partition, no new group is admitted
			// (the budget of the statement may free up): a group is in
			// memory or in a partition, never both.
			if a.spill != nil || (!a.mem.fits(size) && ks.len() > 0) {
				a.gids[k] = -1
				err = a.spillRow(b, k)
				return
			}
			var held int64
			g, held = ks.add(b, a.keyCols, k)
			if err = a.mem.grow(held + a.groupBytes); err != nil {
				return
			}
			for i := range a.accs {
				a.accs[i].grow()
			}
		}
		a.gids[k] = g
	})
	return err
}

// keyBytes estimates what adding row k's keys would hold.
func (ks *keyStore) keyBytes(b *batch, cols []int, k int) int {
	n := 16
	for _, c := range cols {
		n += 25
		if v := b.cols[c]; v.class == classBytes && !v.isNull(k) {
			n += len(v.b[k])
		}
	}
	return n
}

// spillRow writes row k of b, as a full-width Datum row, to its hash
// partition.
func (a *vecAggOp) spillRow(b *batch, k int) error {
	if a.spill == nil {
		a.spill = make([]*spillFile, fanout)
		a.row = make([]types.Datum, len(b.cols))
	}
	for c, v := range b.cols {
		a.row[c] = types.Null
		if v != nil {
			a.row[c] = v.datum(k)
		}
	}
	p := partOf(a.keys.hashes[k], 0)
	if a.spill[p] == nil {
		f, err := newSpillFile(a.rs.ctx.TempDir)
		if err != nil {
			return err
		}
		a.spill[p] = f
	}
	return a.spill[p].write(a.row)
}

// update adds the live rows of b to the accumulators of their groups
// (gids; -1 rows went to a partition).
func (acc *vecAcc) update(b *batch, gids []int32) error {
	if acc.col < 0 { // count(*)
		b.forEach(func(k int) {
			if g := gids[k]; g >= 0 {
				acc.n[g]++
			}
		})
		return nil
	}
	v := b.cols[acc.col]
	if v == nil {
		return nil // an all-NULL column: nothing counts
	}
	switch acc.call.Func {
	case "count":
		b.forEach(func(k int) {
			if g := gids[k]; g >= 0 && !v.isNull(k) {
				acc.n[g]++
			}
		})
	case "sum", "avg":
		if acc.dec {
			b.forEach(func(k int) {
				if g := gids[k]; g >= 0 && !v.isNull(k) {
					acc.sums[g].addDecimalBytes(v.b[k])
					acc.n[g]++
				}
			})
			return nil
		}
		numeric := acc.call.Func == "avg" || acc.call.T.Family == types.Numeric
		var err error
		b.forEach(func(k int) {
			g := gids[k]
			if g < 0 || v.isNull(k) || err != nil {
				return
			}
			x, s := v.i[k], acc.i[g]
			r := s + x
			if (r > s) != (x > 0) {
				if !numeric {
					err = pgerror.New(pgerror.NumericValueOutOfRange, "bigint out of range")
					return
				}
				acc.overflow(g, s)
				r = x
			}
			acc.i[g] = r
			acc.n[g]++
		})
		return err
	case "min", "max":
		sign := 1
		if acc.call.Func == "max" {
			sign = -1
		}
		b.forEach(func(k int) {
			g := gids[k]
			if g < 0 || v.isNull(k) {
				return
			}
			first := acc.n[g] == 0
			acc.n[g]++
			switch v.class {
			case classInts:
				if first || cmpInt(v.i[k], acc.i[g])*sign < 0 {
					acc.i[g] = v.i[k]
				}
			case classFloats:
				if first || types.CompareFloat(v.f[k], acc.f[g])*sign < 0 {
					acc.f[g] = v.f[k]
				}
			default:
				if first || bytes.Compare(v.b[k], acc.b[g])*sign < 0 {
					acc.b[g] = append(acc.b[g][:0], v.b[k]...)
				}
			}
		})
	default:
		return pgerror.Newf(pgerror.Internal, "exec: no batch form for the aggregate %s", acc.call.Func)
	}
	return nil
}

func cmpInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// overflow moves the running int64 sum s of group g into its exact
// state: the next value did not fit beside it.
func (acc *vecAcc) overflow(g int32, s int64) {
	if acc.over == nil {
		acc.over = map[int32]*sumState{}
	}
	st := acc.over[g]
	if st == nil {
		st = &sumState{numeric: true}
		acc.over[g] = st
	}
	_, _ = st.add([]types.Datum{types.NewInt(s)}) // an int into a numeric sum cannot fail
}

// result is the aggregate's value for group g, before finalizeAgg.
func (acc *vecAcc) result(g int32, kind types.Kind) (types.Datum, error) {
	n := acc.n[g]
	switch acc.call.Func {
	case "count_star", "count":
		return types.NewInt(n), nil
	case "sum", "avg":
		if n == 0 {
			return types.Null, nil
		}
		var st *sumState
		switch {
		case acc.dec:
			st = &acc.sums[g]
		case acc.over[g] != nil:
			st = acc.over[g]
		default:
			st = &sumState{numeric: acc.call.Func == "avg" || acc.call.T.Family == types.Numeric}
		}
		if !acc.dec {
			if _, err := st.add([]types.Datum{types.NewInt(acc.i[g])}); err != nil {
				return types.Null, err
			}
		}
		if acc.call.Func == "sum" {
			return st.result()
		}
		avg := &avgState{sum: *st, n: n}
		return avg.result()
	}
	if n == 0 {
		return types.Null, nil
	}
	switch kind {
	case types.KindFloat:
		return types.NewFloat(acc.f[g]), nil
	case types.KindText, types.KindBytes:
		return types.Datum{Kind: kind, S: string(acc.b[g])}, nil
	}
	return types.Datum{Kind: kind, I: acc.i[g]}, nil
}

// emit renders group g as an output row.
func (a *vecAggOp) emit(g int32) ([]types.Datum, error) {
	nk := len(a.keyCols)
	if a.node.Strategy != planner.ScalarAgg {
		for j := range a.keyCols {
			a.out[j] = a.keys.datum(j, g)
		}
	}
	for i := range a.accs {
		acc := &a.accs[i]
		kind := types.KindNull
		if acc.col >= 0 {
			kind = acc.call.Args[0].Type().Kind()
		}
		d, err := acc.result(g, kind)
		if err != nil {
			return nil, err
		}
		if a.out[nk+i], err = finalizeAgg(d, acc.call.T); err != nil {
			return nil, err
		}
	}
	return a.out, nil
}

func (a *vecAggOp) Close() error {
	err := a.input.Close()
	closeFiles(a.spill)
	if a.rest != nil {
		if cerr := a.rest.Close(); err == nil {
			err = cerr
		}
	}
	a.mem.reset()
	return err
}

// emptyOp is an Operator with no rows.
type emptyOp struct{}

func (emptyOp) Next() ([]types.Datum, error) { return nil, nil }
func (emptyOp) Close() error                 { return nil }
