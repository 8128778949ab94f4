package exec

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"unsafe"

	"github.com/kvsql/kvsql/encoding"
	"github.com/kvsql/kvsql/exec/eval"
	"github.com/kvsql/kvsql/planner"
	"github.com/kvsql/kvsql/types"
)

// Sorts over batches. When the planner runs a Sort's or TopN's input in
// batches (planner.BatchSortInput: scans, filters and projections of
// columns, on a big table an unordered parallel scan), the operator reads
// the batches itself instead of through vecToRows:
//
//   - each row gets its position in the serial scan's key order from its
//     batch's part of the key range and its place in that part
//     (part<<partShift | n), so ties keep the order the row operators
//     give although the two parts' batches arrive interleaved;
//   - top-N with column keys encodes each row's normalized key straight
//     from the vectors and drops a row that sorts after the heap's worst
//     with one bytes.Compare, before any of its columns becomes a Datum.

// sortSource yields a sort's input rows, each with its position in input
// order (ties are broken by it). A row is valid until the next call; nil
// ends the input.
type sortSource interface {
	next() (row []types.Datum, seq int64, err error)
	close() error
}

// rowOpSource numbers the rows of a row Operator in the order they come.
type rowOpSource struct {
	op  Operator
	seq int64
}

func (o *rowOpSource) next() ([]types.Datum, int64, error) {
	row, err := o.op.Next()
	if row == nil || err != nil {
		return nil, 0, err
	}
	o.seq++
	return row, o.seq - 1, nil
}

func (o *rowOpSource) close() error { return o.op.Close() }

// partShift places a batch's part above the row's place in its part in a
// row's position; 2^40 rows per part is beyond any table we scan.
const partShift = 40

// batchSource reads the rows of a batch subtree.
type batchSource struct {
	in   vecOp
	b    *batch
	pos  []int // b's live positions
	i    int   // next index into pos
	buf  []int
	cnt  []int64 // rows seen so far per part
	row  []types.Datum
	done bool
}

func newBatchSource(in vecOp, width int) *batchSource {
	return &batchSource{in: in, row: make([]types.Datum, width)}
}

// nextBatch moves to the next batch; false at the end or on an error.
func (s *batchSource) nextBatch() (bool, error) {
	if s.done {
		return false, nil
	}
	b, err := s.in.NextBatch()
	if b == nil || err != nil {
		s.done, s.b, s.pos = true, nil, nil
		return false, err
	}
	for len(s.cnt) <= b.part {
		s.cnt = append(s.cnt, 0)
	}
	s.b, s.i = b, 0
	s.pos = b.positions(s.buf[:0])
	if b.sel == nil {
		s.buf = s.pos
	}
	return true, nil
}

// seqOf numbers the batch's row at live index i (in order of i, once).
func (s *batchSource) seqOf() int64 {
	p := s.b.part
	n := s.cnt[p]
	s.cnt[p]++
	return int64(p)<<partShift | n
}

// fill sets s.row to the batch's row at position k (text and bytes are
// copied).
func (s *batchSource) fill(k int) []types.Datum {
	for c, v := range s.b.cols {
		if v == nil {
			s.row[c] = types.Null
		} else {
			s.row[c] = v.datum(k)
		}
	}
	return s.row
}

func (s *batchSource) next() ([]types.Datum, int64, error) {
	for s.b == nil || s.i >= len(s.pos) {
		ok, err := s.nextBatch()
		if !ok {
			return nil, 0, err
		}
	}
	k := s.pos[s.i]
	s.i++
	seq := s.seqOf()
	return s.fill(k), seq, nil
}

func (s *batchSource) close() error { return s.in.Close() }

// buildSortInput builds the input of a Sort or TopN n: its batch
// operator when the planner runs it in batches, else its row operator.
func (rs *runState) buildSortInput(env *eval.Env, n planner.Node) (sortSource, error) {
	in := n.Children()[0]
	if planner.BatchSortInput(n) {
		v, err := rs.buildVec(env, in)
		if err != nil {
			return nil, err
		}
		return newBatchSource(v, len(in.Columns())), nil
	}
	op, err := rs.build(env, in)
	if err != nil {
		return nil, err
	}
	return &rowOpSource{op: op}, nil
}

// vecKeyCols returns the input column of each sort key when every key is
// a plain column of the input, else nil.
func vecKeyCols(keys []planner.SortKey) []int {
	cols := make([]int, len(keys))
	for i, k := range keys {
		c, ok := k.Expr.(*planner.ColRef)
		if !ok || c.Outer != 0 {
			return nil
		}
		cols[i] = c.Index
	}
	return cols
}

// appendVecSortKey appends the sort-key item of v's row k, as
// encoding.AppendSortKey does for its Datum. Every kind a vector holds
// has a sort key that orders like eval.Compare (encoding.SortKeyKind).
func appendVecSortKey(b []byte, v *vec, k int, desc, nullsFirst bool) []byte {
	if v == nil || v.isNull(k) {
		return encoding.AppendSortKey(b, types.Null, desc, nullsFirst)
	}
	var d types.Datum
	switch v.class {
	case classInts:
		d = types.Datum{Kind: v.kind, I: v.i[k]}
	case classFloats:
		d = types.NewFloat(v.f[k])
	default:
		// The Datum lives only for this call, which keeps nothing of it:
		// its string may alias the vector's bytes.
		bs := v.b[k]
		d = types.Datum{Kind: v.kind, S: unsafe.String(unsafe.SliceData(bs), len(bs))}
	}
	return encoding.AppendSortKey(b, d, desc, nullsFirst)
}

// vecTopN is top-N over batches with column keys: a bounded max-heap of
// normalized keys (each ending in the row's position, so all differ) and
// their rows.
type vecTopN struct {
	keys  []planner.SortKey
	cols  []int // the input column of each key
	limit int64
	items []vecTopItem // a max-heap on key
	mem   *memAccount
}

type vecTopItem struct {
	key []byte
	row []types.Datum
	// first is the first sort key's value when that key's column is an
	// integer-class vector and the value is not NULL (firstOK): a row is
	// compared with the heap's worst on it before its key is encoded.
	first   int64
	firstOK bool
}

// consume reads the whole input and returns the kept rows in key order.
func (h *vecTopN) consume(rs *runState, src *batchSource) ([][]types.Datum, error) {
	var scratch []byte
	for {
		ok, err := src.nextBatch()
		if !ok || err != nil {
			if err != nil {
				return nil, err
			}
			break
		}
		if err := rs.canceled(); err != nil { // once per batch
			return nil, err
		}
		v0 := src.b.cols[h.cols[0]]
		ints := v0 != nil && v0.class == classInts
		desc0 := h.keys[0].Desc
		for _, k := range src.pos {
			seq := src.seqOf()
			first, firstOK := int64(0), ints && !v0.isNull(k)
			if firstOK {
				first = v0.i[k]
				// The common case of a full heap: a row whose first key
				// sorts after the worst kept row's (integer-class sort
				// keys order as their int64 values) is dropped without
				// encoding its key; a tie goes on to the full key.
				if n := len(h.items); n > 0 && int64(n) >= h.limit && h.items[0].firstOK {
					if c := cmp.Compare(first, h.items[0].first); (c > 0 && !desc0) || (c < 0 && desc0) {
						continue
					}
				}
			}
			scratch = scratch[:0]
			for i, c := range h.cols {
				scratch = appendVecSortKey(scratch, src.b.cols[c], k, h.keys[i].Desc, h.keys[i].NullsFirst)
			}
			scratch = binary.BigEndian.AppendUint64(scratch, uint64(seq))
			full := int64(len(h.items)) >= h.limit
			if full && bytes.Compare(scratch, h.items[0].key) >= 0 {
				continue // sorts after every kept row
			}
			row := src.fill(k)
			if !full {
				sz := rowSize(row) + int64(len(scratch))
				if err := h.mem.grow(sz); err != nil {
					return nil, err
				}
				h.items = append(h.items, vecTopItem{key: bytes.Clone(scratch), row: copyRow(row), first: first, firstOK: firstOK})
				h.up(len(h.items) - 1)
				continue
			}
			top := &h.items[0]
			if err := h.mem.grow(rowSize(row) - rowSize(top.row) + int64(len(scratch)-len(top.key))); err != nil {
				return nil, err
			}
			top.key = append(top.key[:0], scratch...)
			top.first, top.firstOK = first, firstOK
			copy(top.row, row)
			h.down(0)
		}
	}
	// Pop the heap from the worst: the rows come out in reverse order.
	out := make([][]types.Datum, len(h.items))
	for i := len(h.items) - 1; i >= 0; i-- {
		out[i] = h.items[0].row
		last := len(h.items) - 1
		h.items[0] = h.items[last]
		h.items = h.items[:last]
		h.down(0)
	}
	return out, nil
}

func (h *vecTopN) up(j int) {
	for j > 0 {
		p := (j - 1) / 2
		if bytes.Compare(h.items[p].key, h.items[j].key) >= 0 {
			return
		}
		h.items[p], h.items[j] = h.items[j], h.items[p]
		j = p
	}
}

func (h *vecTopN) down(j int) {
	n := len(h.items)
	for {
		l := 2*j + 1
		if l >= n {
			return
		}
		c := l
		if r := l + 1; r < n && bytes.Compare(h.items[r].key, h.items[l].key) > 0 {
			c = r
		}
		if bytes.Compare(h.items[j].key, h.items[c].key) >= 0 {
			return
		}
		h.items[j], h.items[c] = h.items[c], h.items[j]
		j = c
	}
}
