package exec

import (
	"hash/maphash"

	"github.com/kvsql/kvsql/exec/eval"
	"github.com/kvsql/kvsql/planner"
	"github.com/kvsql/kvsql/types"
)

// aggGroup is one group: its key values and one state per aggregate.
type aggGroup struct {
	key    []types.Datum
	states []aggState
}

// aggPartition is a spill file of input rows whose groups did not fit in
// memory, to be aggregated at the given level.
type aggPartition struct {
	file  *spillFile
	level int
}

// aggregateOp computes Aggregate nodes with one of three strategies:
//
//   - ScalarAgg: one group over the whole input; one output row even for
//     an empty input (count 0, other aggregates NULL).
//   - StreamAgg: the input arrives ordered by the group keys; a group is
//     produced as soon as the key changes. O(1 group) memory.
//   - HashAgg: groups in a hash table, produced in first-seen order. Once
//     the table reaches the memory budget it admits no new groups: rows of
//     groups already in memory keep aggregating, rows of other groups are
//     written to hash partitions, which are aggregated one by one after
//     the in-memory groups are produced (recursively, with other hash
//     bits, up to maxLevels). Every group is thus produced exactly once.
type aggregateOp struct {
	rs    *runState
	env   *eval.Env
	node  *planner.Aggregate
	input Operator
	t     ticker

	opened bool
	done   bool
	args   [][]types.Datum // per call: argument buffer
	keyBuf []types.Datum
	out    []types.Datum

	// HashAgg.
	seed   maphash.Seed
	h      maphash.Hash
	mem    memAccount
	table  map[uint64][]int32
	groups []*aggGroup
	pos    int
	spill  []*spillFile // partitions of the level being aggregated
	level  int
	queue  []aggPartition

	// StreamAgg.
	cur     *aggGroup
	pending []types.Datum // first row of the next group, copied
}

var _ Operator = (*aggregateOp)(nil)

func newAggregate(rs *runState, env *eval.Env, n *planner.Aggregate) (Operator, error) {
	for i := range n.Aggs {
		// Reject unknown aggregates before running anything.
		if _, err := newAggState(&n.Aggs[i], env); err != nil {
			return nil, err
		}
	}
	in, err := rs.build(env, n.Input)
	if err != nil {
		return nil, err
	}
	a := &aggregateOp{rs: rs, env: env, node: n, input: in, t: ticker{rs: rs},
		seed: maphash.MakeSeed(), mem: rs.memAccount(rs.workMem), table: make(map[uint64][]int32),
		out: make([]types.Datum, len(n.GroupBy)+len(n.Aggs))}
	a.h.SetSeed(a.seed)
	a.args = make([][]types.Datum, len(n.Aggs))
	return a, nil
}

func (a *aggregateOp) Next() ([]types.Datum, error) {
	switch a.node.Strategy {
	case planner.ScalarAgg:
		return a.nextScalar()
	case planner.StreamAgg:
		return a.nextStream()
	}
	return a.nextHash()
}

func (a *aggregateOp) newGroup(key []types.Datum) *aggGroup {
	g := &aggGroup{key: key, states: make([]aggState, len(a.node.Aggs))}
	for i := range a.node.Aggs {
		g.states[i], _ = newAggState(&a.node.Aggs[i], a.env) // validated in newAggregate
	}
	return g
}

// accumulate adds row to every aggregate state of g and returns the bytes
// the states retained.
func (a *aggregateOp) accumulate(g *aggGroup, row []types.Datum) (int64, error) {
	var grew int64
	for i := range a.node.Aggs {
		call := &a.node.Aggs[i]
		args := a.args[i][:0]
		for _, e := range call.Args {
			d, err := eval.Value(a.env, e, row)
			if err != nil {
				return 0, err
			}
			args = append(args, d)
		}
		for _, k := range call.OrderBy {
			d, err := eval.Eval(a.env, k.Expr, row)
			if err != nil {
				return 0, err
			}
			args = append(args, d)
		}
		a.args[i] = args
		if call.Func != "count_star" && len(args) == 0 {
			args = append(args, types.Null)
		}
		n, err := g.states[i].add(args)
		if err != nil {
			return 0, err
		}
		grew += n
	}
	return grew, nil
}

// emit renders a finished group as an output row.
func (a *aggregateOp) emit(g *aggGroup) ([]types.Datum, error) {
	copy(a.out, g.key)
	nk := len(a.node.GroupBy)
	for i, s := range g.states {
		d, err := s.result()
		if err != nil {
			return nil, err
		}
		if a.out[nk+i], err = finalizeAgg(d, a.node.Aggs[i].T); err != nil {
			return nil, err
		}
	}
	return a.out, nil
}

func (a *aggregateOp) nextScalar() ([]types.Datum, error) {
	if a.done {
		return nil, nil
	}
	a.done = true
	g := a.newGroup(nil)
	for {
		row, err := a.input.Next()
		if err != nil {
			return nil, err
		}
		if row == nil {
			break
		}
		if err := a.t.tick(); err != nil {
			return nil, err
		}
		grew, err := a.accumulate(g, row)
		if err != nil {
			return nil, err
		}
		if err := a.mem.grow(grew); err != nil {
			return nil, err
		}
	}
	return a.emit(g)
}

// groupKey evaluates the GROUP BY expressions over row into a.keyBuf.
func (a *aggregateOp) groupKey(row []types.Datum) ([]types.Datum, error) {
	a.keyBuf = a.keyBuf[:0]
	for _, e := range a.node.GroupBy {
		d, err := eval.Value(a.env, e, row)
		if err != nil {
			return nil, err
		}
		a.keyBuf = append(a.keyBuf, d)
	}
	return a.keyBuf, nil
}

func (a *aggregateOp) nextStream() ([]types.Datum, error) {
	for !a.done {
		var row []types.Datum
		if a.pending != nil {
			row, a.pending = a.pending, nil
		} else {
			var err error
			if row, err = a.input.Next(); err != nil {
				return nil, err
			}
			if err := a.t.tick(); err != nil {
				return nil, err
			}
		}
		if row == nil {
			a.done = true
			break
		}
		key, err := a.groupKey(row)
		if err != nil {
			return nil, err
		}
		if a.cur != nil && !rowsIdentical(a.cur.key, key) {
			g := a.cur
			a.cur = nil
			a.pending = copyRow(row)
			return a.emit(g)
		}
		if a.cur == nil {
			a.mem.reset() // the previous group's states are gone
			a.cur = a.newGroup(copyRow(key))
		}
		grew, err := a.accumulate(a.cur, row)
		if err != nil {
			return nil, err
		}
		if err := a.mem.grow(grew); err != nil {
			return nil, err
		}
	}
	if a.cur != nil {
		g := a.cur
		a.cur = nil
		return a.emit(g)
	}
	return nil, nil
}

func (a *aggregateOp) nextHash() ([]types.Datum, error) {
	if !a.opened {
		a.opened = true
		if err := a.consume(opSource{a.input}); err != nil {
			return nil, err
		}
	}
	for {
		if a.pos < len(a.groups) {
			g := a.groups[a.pos]
			a.groups[a.pos] = nil
			a.pos++
			return a.emit(g)
		}
		if len(a.queue) == 0 {
			return nil, nil
		}
		p := a.queue[len(a.queue)-1]
		a.queue = a.queue[:len(a.queue)-1]
		r, err := p.file.reader()
		if err == nil {
			a.level = p.level
			err = a.consume(r)
		}
		_ = p.file.close()
		if err != nil {
			return nil, err
		}
	}
}

// consume aggregates src into a fresh table at a.level, spilling rows of
// groups that do not fit into partitions queued for the next level.
func (a *aggregateOp) consume(src rowSource) error {
	a.table = make(map[uint64][]int32)
	a.groups, a.pos = nil, 0
	a.mem.reset()
	a.spill = nil
	for {
		row, err := src.next()
		if err != nil {
			return err
		}
		if row == nil {
			break
		}
		if err := a.t.tick(); err != nil {
			return err
		}
		key, err := a.groupKey(row)
		if err != nil {
			return err
		}
		a.h.Reset()
		for _, d := range key {
			eval.Hash(&a.h, d)
		}
		hash := a.h.Sum64()
		var g *aggGroup
		for _, gi := range a.table[hash] {
			if rowsIdentical(a.groups[gi].key, key) {
				g = a.groups[gi]
				break
			}
		}
		if g == nil {
			sz := rowSize(key) + int64(len(a.node.Aggs))*aggStateSize + 32
			if !a.mem.fits(sz) && len(a.groups) > 0 && a.level < maxLevels {
				if err := a.spillRow(hash, row); err != nil {
					return err
				}
				continue
			}
			if err := a.mem.grow(sz); err != nil {
				return err
			}
			g = a.newGroup(copyRow(key))
			a.table[hash] = append(a.table[hash], int32(len(a.groups)))
			a.groups = append(a.groups, g)
		}
		grew, err := a.accumulate(g, row)
		if err != nil {
			return err
		}
		if err := a.mem.grow(grew); err != nil {
			return err
		}
	}
	a.table = nil // groups stay in a.groups until produced
	for _, f := range a.spill {
		if f != nil {
			a.queue = append(a.queue, aggPartition{file: f, level: a.level + 1})
		}
	}
	a.spill = nil
	return nil
}

func (a *aggregateOp) spillRow(hash uint64, row []types.Datum) error {
	if a.spill == nil {
		a.spill = make([]*spillFile, fanout)
	}
	p := partOf(hash, a.level)
	if a.spill[p] == nil {
		f, err := newSpillFile(a.rs.ctx.TempDir)
		if err != nil {
			return err
		}
		a.spill[p] = f
	}
	return a.spill[p].write(row)
}

func (a *aggregateOp) Close() error {
	err := a.input.Close()
	closeFiles(a.spill)
	for _, p := range a.queue {
		_ = p.file.close()
	}
	a.spill, a.queue, a.groups, a.table = nil, nil, nil, nil
	a.mem.reset()
	return err
}

// opSource adapts an Operator to a rowSource.
type opSource struct{ op Operator }

func (s opSource) next() ([]types.Datum, error) { return s.op.Next() }
