package exec

import (
	"hash/maphash"

	"github.com/kvsql/kvsql/exec/eval"
	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/planner"
	"github.com/kvsql/kvsql/types"
)

// recursiveOp runs a WITH RECURSIVE query (planner.RecursiveUnion): the
// initial query, then the recursive step again and again, each run
// reading the rows the previous one produced from a row buffer (spilling
// past work_mem) that its WorkTable operators iterate. For UNION, the
// rows produced so far are kept in a hash set and repeats are dropped, so
// a cycle ends; with UNION ALL a cycle runs until the statement is
// canceled or times out, as in PostgreSQL.
type recursiveOp struct {
	rs   *runState
	env  *eval.Env
	node *planner.RecursiveUnion
	t    ticker

	cur     Operator   // the run in progress
	next    *rowBuffer // what the run in progress produced
	started bool

	seed maphash.Seed
	h    maphash.Hash
	seen map[uint64][][]types.Datum
}

func newRecursive(rs *runState, env *eval.Env, n *planner.RecursiveUnion) *recursiveOp {
	o := &recursiveOp{rs: rs, env: env, node: n, t: ticker{rs: rs}, seed: maphash.MakeSeed()}
	o.h.SetSeed(o.seed)
	if !n.All {
		o.seen = make(map[uint64][][]types.Datum)
	}
	return o
}

func (o *recursiveOp) Next() ([]types.Datum, error) {
	for {
		if o.cur == nil {
			plan := o.node.Step
			if !o.started {
				plan = o.node.Init
				o.started = true
			} else {
				if o.next == nil || o.next.empty() {
					return nil, nil
				}
				o.rs.setWorkTable(o.node.ID, o.next)
			}
			op, err := o.rs.build(o.env, plan)
			if err != nil {
				return nil, err
			}
			o.cur, o.next = op, newRowBuffer(o.rs, o.rs.workMem)
		}
		row, err := o.cur.Next()
		if err != nil {
			return nil, err
		}
		if row == nil {
			err := o.cur.Close()
			o.cur = nil
			if err != nil {
				return nil, err
			}
			continue
		}
		if err := o.t.tick(); err != nil {
			return nil, err
		}
		if o.seen != nil && o.repeated(row) {
			continue
		}
		if err := o.next.add(row); err != nil {
			return nil, err
		}
		return row, nil
	}
}

// repeated reports whether row was produced before (NULLs equal here),
// remembering it if not.
func (o *recursiveOp) repeated(row []types.Datum) bool {
	o.h.Reset()
	for _, d := range row {
		eval.Hash(&o.h, d)
	}
	hash := o.h.Sum64()
	for _, prev := range o.seen[hash] {
		if rowsIdentical(prev, row) {
			return true
		}
	}
	o.seen[hash] = append(o.seen[hash], copyRow(row))
	return false
}

func (o *recursiveOp) Close() error {
	var err error
	if o.cur != nil {
		err = o.cur.Close()
	}
	if o.next != nil {
		_ = o.next.close()
	}
	o.rs.setWorkTable(o.node.ID, nil)
	return err
}

// setWorkTable makes buf the rows WorkTable id reads, closing the
// previous buffer.
func (rs *runState) setWorkTable(id int, buf *rowBuffer) {
	if old := rs.works[id]; old != nil && old != buf {
		_ = old.close()
	}
	if rs.works == nil {
		rs.works = make(map[int]*rowBuffer)
	}
	rs.works[id] = buf
}

// workTableOp reads the rows the previous run of a recursive query
// produced.
type workTableOp struct {
	it *bufferIter
}

func newWorkTable(rs *runState, n *planner.WorkTable) (Operator, error) {
	buf := rs.works[n.ID]
	if buf == nil {
		return nil, pgerror.Newf(pgerror.Internal, "exec: work table of %q read outside its recursive query", n.Name)
	}
	return &workTableOp{it: buf.iter()}, nil
}

func (w *workTableOp) Next() ([]types.Datum, error) { return w.it.next() }

func (w *workTableOp) Close() error { return nil }
