package exec

import (
	"github.com/kvsql/kvsql/encoding"
	"github.com/kvsql/kvsql/types"
)

// The batch engine (vec*.go) runs the shapes analytics spend their time
// in — a full master scan, its filter, projections of columns, hash
// aggregation and an inner hash join — a batch of up to batchSize rows at
// a time over typed column vectors instead of one Datum row at a time.
// The planner marks the nodes it may run (planner.Vectorize); buildVec
// turns such a subtree into vecOps and vecToRows hands its batches to the
// row operators above.
//
// A vecOp's contract mirrors Operator's: NextBatch returns the next
// non-empty batch or nil at the end; the batch and every vector and byte
// slice in it belong to the operator and are valid only until the next
// NextBatch or Close; after an error only Close may be called; Close
// releases everything and closes the inputs.

// batchSize is the number of rows a scan puts in one batch.
const batchSize = 1024

// vecOp is the batch iterator protocol (see above).
type vecOp interface {
	NextBatch() (*batch, error)
	Close() error
}

// vecClass is how a vector stores its values.
type vecClass uint8

const (
	classInts   vecClass = iota // vec.i: bool, integers, date, timestamp, time
	classFloats                 // vec.f: real, double precision
	classBytes                  // vec.b: text, varchar, bytea, numeric (as text)
)

// vecClassOf returns the vector class of a SQL type, or false when the
// batch engine does not carry the type.
func vecClassOf(t types.T) (vecClass, bool) {
	switch t.Family {
	case types.Bool, types.Int2, types.Int4, types.Int8, types.Date, types.Timestamp, types.TimestampTZ, types.Time:
		return classInts, true
	case types.Float4, types.Float8:
		return classFloats, true
	case types.Text, types.Varchar, types.Bytea, types.Numeric:
		return classBytes, true
	}
	return 0, false
}

// vec is one column of a batch: the values of rows 0..n-1 in the slice
// of its class, and a null bitmap (bit k set: row k is NULL; the value
// slot then holds garbage). kind is the Datum kind of its non-NULL values.
type vec struct {
	kind  types.Kind
	class vecClass
	i     []int64
	f     []float64
	b     [][]byte // aliases arena or the kv iterator's bytes: see vecOp
	null  []uint64
	arena []byte
}

func newVec(t types.T) *vec {
	c, _ := vecClassOf(t)
	v := &vec{kind: t.Kind(), class: c}
	switch c {
	case classInts:
		v.i = make([]int64, batchSize)
	case classFloats:
		v.f = make([]float64, batchSize)
	default:
		v.b = make([][]byte, batchSize)
	}
	v.null = make([]uint64, (batchSize+63)/64)
	return v
}

func (v *vec) isNull(k int) bool { return v.null[k>>6]&(1<<(k&63)) != 0 }
func (v *vec) setNull(k int)     { v.null[k>>6] |= 1 << (k & 63) }

// setField stores the decoded non-NULL field f in row k, bytes copied
// into the arena; false when f's kind is not the vector's.
func (v *vec) setField(k int, f *encoding.RowField) bool {
	if f.Kind != v.kind || f.JSONB {
		return false
	}
	switch v.class {
	case classInts:
		v.i[k] = f.I
	case classFloats:
		v.f[k] = f.F
	default:
		start := len(v.arena)
		v.arena = append(v.arena, f.B...)
		v.b[k] = v.arena[start:len(v.arena):len(v.arena)]
	}
	return true
}

// clearNulls marks rows 0..n-1 not NULL.
func (v *vec) clearNulls(n int) {
	for w := 0; w < (n+63)/64; w++ {
		v.null[w] = 0
	}
}

// datum returns row k as a Datum (text and bytes values are copied).
func (v *vec) datum(k int) types.Datum {
	if v.isNull(k) {
		return types.Null
	}
	switch v.class {
	case classInts:
		return types.Datum{Kind: v.kind, I: v.i[k]}
	case classFloats:
		return types.NewFloat(v.f[k])
	}
	return types.Datum{Kind: v.kind, S: string(v.b[k])}
}

// set stores d (of the vector's kind, or NULL) as row k, copying bytes
// into the vector's arena.
func (v *vec) set(k int, d types.Datum) {
	if d.IsNull() {
		v.setNull(k)
		return
	}
	v.null[k>>6] &^= 1 << (k & 63)
	switch v.class {
	case classInts:
		v.i[k] = d.I
	case classFloats:
		v.f[k] = d.F
	default:
		start := len(v.arena)
		v.arena = append(v.arena, d.S...)
		v.b[k] = v.arena[start:len(v.arena):len(v.arena)]
	}
}

// batch is up to batchSize rows as column vectors. cols is as wide as the
// rows of the plan node it stands for; a nil column is one nothing above
// reads (all NULL). sel, when not nil, lists the live rows (ascending
// positions below n): a filter narrows sel instead of moving values.
//
// part is the part of the key range a parallel scan's batch comes from
// (0 for a serial scan): rows of part 0 precede those of part 1 in key
// order, which a sort keeps among ties (exec/sortvec.go).
type batch struct {
	n    int
	sel  []int
	cols []*vec
	part int
}

// live returns the number of rows the batch holds.
func (b *batch) live() int {
	if b.sel != nil {
		return len(b.sel)
	}
	return b.n
}

// forEach calls f with the position of every live row, in order.
func (b *batch) forEach(f func(k int)) {
	if b.sel != nil {
		for _, k := range b.sel {
			f(k)
		}
		return
	}
	for k := 0; k < b.n; k++ {
		f(k)
	}
}

// positions returns the live positions, filling buf when the batch has no
// selection.
func (b *batch) positions(buf []int) []int {
	if b.sel != nil {
		return b.sel
	}
	buf = buf[:0]
	for k := 0; k < b.n; k++ {
		buf = append(buf, k)
	}
	return buf
}
