package exec

import (
	"bytes"

	"github.com/kvsql/kvsql/exec/eval"
	"github.com/kvsql/kvsql/planner"
	"github.com/kvsql/kvsql/types"
)

// vecHashJoin is the batch form of an inner hash join on equality keys of
// columns (planner.Join marked Vectorized). It reads the build side (the
// left input unless BuildRight) into column stores and a keyStore of its
// keys, then for each probe batch hashes the keys column by column and
// gathers every matching pair into an output batch of the joined width
// (left columns, then right). Rows come out in the row join's order: by
// probe row, then build rows in input order. A NULL key never matches.
//
// Memory: build rows are charged to work_mem. Past it the join hands the
// rows read so far and the rest of both inputs to the row hash join
// (hashJoinOp), which partitions them to disk (a grace hash join), and
// turns its rows back into batches.
type vecHashJoin struct {
	rs          *runState
	env         *eval.Env
	node        *planner.Join
	left, right vecOp
	lw, rw      int
	buildLeft   bool
	bkeys       []int // key columns of the build rows
	pkeys       []int // key columns of the probe rows

	opened bool
	keys   *keyStore
	store  []colStore // the build rows' columns (nil: not produced)
	mem    memAccount

	probe    vecOp
	pb       *batch // current probe batch
	pi       int    // next live position of pb to probe
	pe       int32  // next build entry to test for the probe row at pi (-1: start)
	out      batch
	pstarted bool

	rows    Operator // the row join after a fallback
	convert *rowsToBatch
}

// colStore is one build column: values appended row by row, bytes owned.
type colStore struct {
	on    bool
	kind  types.Kind
	class vecClass
	i     []int64
	f     []float64
	b     [][]byte
	null  []bool
}

func newVecHashJoin(rs *runState, env *eval.Env, n *planner.Join) (vecOp, error) {
	left, err := rs.buildVec(env, n.Left)
	if err != nil {
		return nil, err
	}
	right, err := rs.buildVec(env, n.Right)
	if err != nil {
		_ = left.Close()
		return nil, err
	}
	j := &vecHashJoin{rs: rs, env: env, node: n, left: left, right: right,
		lw: len(n.Left.Columns()), rw: len(n.Right.Columns()), buildLeft: !n.BuildRight, mem: rs.memAccount(rs.workMem)}
	bk, pk := n.LeftKeys, n.RightKeys
	bw := j.lw
	if !j.buildLeft {
		bk, pk, bw = n.RightKeys, n.LeftKeys, j.rw
	}
	var kinds []types.T
	for i := range bk {
		c := bk[i].(*planner.ColRef) // planner.Vectorize admits only columns
		j.bkeys = append(j.bkeys, c.Index)
		j.pkeys = append(j.pkeys, pk[i].(*planner.ColRef).Index)
		kinds = append(kinds, c.T)
	}
	j.keys = newKeyStore(kinds)
	j.store = make([]colStore, bw)
	j.out.cols = make([]*vec, j.lw+j.rw)
	return j, nil
}

func (j *vecHashJoin) buildSide() vecOp {
	if j.buildLeft {
		return j.left
	}
	return j.right
}

func (j *vecHashJoin) NextBatch() (*batch, error) {
	if !j.opened {
		j.opened = true
		if err := j.build(); err != nil {
			return nil, err
		}
	}
	if j.rows != nil {
		return j.convert.next()
	}
	return j.probeBatch()
}

// build loads the build side, or falls back to the row join when it
// outgrows work_mem.
func (j *vecHashJoin) build() error {
	src := j.buildSide()
	for {
		b, err := src.NextBatch()
		if err != nil {
			return err
		}
		if b == nil {
			break
		}
		if err := j.rs.canceled(); err != nil {
			return err
		}
		j.keys.hashBatch(b, j.bkeys)
		var grew int64
		var pending []int
		b.forEach(func(k int) {
			for _, c := range j.bkeys {
				if b.cols[c].isNull(k) {
					return // never matches
				}
			}
			_, size := j.keys.add(b, j.bkeys, k)
			grew += size + j.appendRow(b, k)
			pending = append(pending, k)
		})
		if !j.mem.fits(grew) {
			return j.fallback(b, pending)
		}
		if err := j.mem.grow(grew); err != nil {
			return err
		}
	}
	if j.buildLeft {
		j.probe = j.right
	} else {
		j.probe = j.left
	}
	return nil
}

// appendRow adds row k of b to the column stores and returns the bytes it
// holds.
func (j *vecHashJoin) appendRow(b *batch, k int) int64 {
	size := int64(16)
	for c := range j.store {
		s, v := &j.store[c], b.cols[c]
		if v == nil {
			continue
		}
		if !s.on {
			s.on, s.kind, s.class = true, v.kind, v.class
		}
		null := v.isNull(k)
		s.null = append(s.null, null)
		size += 9
		switch s.class {
		case classInts:
			s.i = append(s.i, v.i[k])
		case classFloats:
			s.f = append(s.f, v.f[k])
		default:
			var x []byte
			if !null {
				x = bytes.Clone(v.b[k])
			}
			s.b = append(s.b, x)
			size += 24 + int64(len(x))
		}
	}
	return size
}

// probeBatch fills the output batch with matches of the probe rows.
func (j *vecHashJoin) probeBatch() (*batch, error) {
	out := &j.out
	out.n, out.sel = 0, nil
	for {
		if j.pb == nil || j.pi >= j.pb.live() {
			if out.n > 0 {
				return out, nil
			}
			b, err := j.probe.NextBatch()
			if b == nil || err != nil {
				return nil, err
			}
			if err := j.rs.canceled(); err != nil {
				return nil, err
			}
			j.pb, j.pi, j.pe, j.pstarted = b, 0, -1, false
			j.keys.hashBatch(b, j.pkeys)
			j.prepareOut(b)
		}
		b := j.pb
		for j.pi < b.live() {
			k := j.pi
			if b.sel != nil {
				k = b.sel[j.pi]
			}
			if !j.pstarted {
				j.pstarted, j.pe = true, -1
				if !j.nullKey(b, k) {
					if e, ok := j.keys.heads[j.keys.hashes[k]]; ok {
						j.pe = e
					}
				}
			}
			for ; j.pe >= 0; j.pe = j.keys.next[j.pe] {
				if out.n == batchSize {
					return out, nil
				}
				if j.keys.equal(j.pe, b, j.pkeys, k) {
					j.emit(b, k, j.pe)
				}
			}
			j.pi++
			j.pstarted = false
		}
		if out.n > 0 {
			j.pb = nil
			return out, nil
		}
	}
}

func (j *vecHashJoin) nullKey(b *batch, k int) bool {
	for _, c := range j.pkeys {
		if b.cols[c].isNull(k) {
			return true
		}
	}
	return false
}

// prepareOut allocates the output vectors the first probe batch needs.
func (j *vecHashJoin) prepareOut(b *batch) {
	pOff, bOff := j.offsets()
	for c, v := range b.cols {
		if v != nil && j.out.cols[pOff+c] == nil {
			j.out.cols[pOff+c] = &vec{kind: v.kind, class: v.class}
			j.out.cols[pOff+c].alloc()
		}
	}
	for c := range j.store {
		if s := &j.store[c]; s.on && j.out.cols[bOff+c] == nil {
			j.out.cols[bOff+c] = &vec{kind: s.kind, class: s.class}
			j.out.cols[bOff+c].alloc()
		}
	}
}

// alloc sizes a vector made without newVec.
func (v *vec) alloc() {
	switch v.class {
	case classInts:
		v.i = make([]int64, batchSize)
	case classFloats:
		v.f = make([]float64, batchSize)
	default:
		v.b = make([][]byte, batchSize)
	}
	v.null = make([]uint64, (batchSize+63)/64)
}

// emit appends the joined row of probe row k of b and build entry e.
func (j *vecHashJoin) emit(b *batch, k int, e int32) {
	o := j.out.n
	j.out.n++
	pOff, bOff := j.offsets()
	for c, v := range b.cols {
		if v == nil {
			continue
		}
		dst := j.out.cols[pOff+c]
		if o == 0 {
			dst.arena = dst.arena[:0]
		}
		copyCell(dst, o, v, k)
	}
	for c := range j.store {
		s := &j.store[c]
		if !s.on {
			continue
		}
		dst := j.out.cols[bOff+c]
		if s.null[e] {
			dst.setNull(o)
			continue
		}
		dst.null[o>>6] &^= 1 << (o & 63)
		switch s.class {
		case classInts:
			dst.i[o] = s.i[e]
		case classFloats:
			dst.f[o] = s.f[e]
		default:
			dst.b[o] = s.b[e] // owned by the store for the join's life
		}
	}
}

// copyCell copies row k of src to row o of dst (bytes alias src's, valid
// as long as the probe batch is: until the output batch is replaced).
func copyCell(dst *vec, o int, src *vec, k int) {
	if src.isNull(k) {
		dst.setNull(o)
		return
	}
	dst.null[o>>6] &^= 1 << (o & 63)
	switch src.class {
	case classInts:
		dst.i[o] = src.i[k]
	case classFloats:
		dst.f[o] = src.f[k]
	default:
		dst.b[o] = src.b[k]
	}
}

func (j *vecHashJoin) Close() error {
	var err error
	if j.rows != nil {
		err = j.rows.Close() // closes both inputs through its row adapters
	} else {
		err = closeVecs(j.left, j.right)
	}
	j.mem.reset()
	j.store, j.keys = nil, nil
	return err
}

func closeVecs(ops ...vecOp) error {
	var first error
	for _, op := range ops {
		if err := op.Close(); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// offsets returns where the probe row's and the build row's columns
// start in an output row (left columns first).
func (j *vecHashJoin) offsets() (probe, build int) {
	if j.buildLeft {
		return j.lw, 0
	}
	return 0, j.lw
}
