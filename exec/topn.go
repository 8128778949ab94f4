package exec

import (
	"container/heap"
	"slices"

	"github.com/kvsql/kvsql/exec/eval"
	"github.com/kvsql/kvsql/planner"
	"github.com/kvsql/kvsql/types"
)

// topNOp keeps the first Offset+Count rows in key order in a bounded
// max-heap (the worst kept row on top), then produces rows Offset+1 ..
// Offset+Count in order. Ties keep input order, as a stable sort would.
// Memory is O(Offset+Count) rows whatever the input size.
type topNOp struct {
	rs    *runState
	env   *eval.Env
	input sortSource // nil once a sort owns it
	src   sortSource // the input as built, for a rerun (reuse.go)
	node  *planner.TopN
	width int

	mem    memAccount // the rows held (TopN does not spill)
	opened bool
	h      topHeap
	out    [][]types.Datum
	pos    int
}

var _ Operator = (*topNOp)(nil)

func (t *topNOp) Next() ([]types.Datum, error) {
	if !t.opened {
		t.opened = true
		if err := t.consume(); err != nil {
			return nil, err
		}
	}
	if t.pos >= len(t.out) {
		return nil, nil
	}
	t.pos++
	return t.out[t.pos-1][:t.width], nil
}

func (t *topNOp) consume() error {
	count, offset, err := limitValues(t.env, t.node.Count, t.node.Offset)
	if err != nil {
		return err
	}
	if count < 0 {
		// No bound: TopN degenerates to a full (spilling) sort.
		s := newSortFrom(t.rs, t.env, t.input, t.node.Keys, t.width)
		t.input = nil // the sort owns (and closes) it now
		defer s.Close()
		var skipped int64
		for {
			row, err := s.Next()
			if row == nil || err != nil {
				return err
			}
			if skipped < offset {
				skipped++
				continue
			}
			if err := t.mem.grow(rowSize(row)); err != nil {
				return err
			}
			t.out = append(t.out, copyRow(row))
		}
	}
	limit := count + offset
	if limit == 0 {
		return nil
	}
	if src, ok := t.input.(*batchSource); ok {
		if cols := vecKeyCols(t.node.Keys); cols != nil {
			h := &vecTopN{keys: t.node.Keys, cols: cols, limit: limit, mem: &t.mem}
			rows, err := h.consume(t.rs, src)
			if err != nil {
				return err
			}
			if offset < int64(len(rows)) {
				t.out = rows[offset:]
			}
			return nil
		}
	}
	t.h.sk = sortKeys{keys: t.node.Keys, width: t.width}
	tk := ticker{rs: t.rs}
	// Each row is extended into scratch; only a row that enters the heap
	// is kept, in a new slice while the heap fills and afterwards in the
	// slice of the row it evicts: no allocation per input row.
	scratch := make([]types.Datum, t.h.sk.extendedWidth())
	for {
		row, seq, err := t.input.next()
		if err != nil {
			return err
		}
		if row == nil {
			break
		}
		if err := tk.tick(); err != nil {
			return err
		}
		if err := t.h.sk.extendInto(t.env, row, scratch); err != nil {
			return err
		}
		item := topItem{row: scratch, seq: seq}
		if int64(len(t.h.items)) < limit {
			if err := t.mem.grow(rowSize(scratch)); err != nil {
				return err
			}
			item.row = slices.Clone(scratch)
			heap.Push(&t.h, item)
		} else if t.h.before(item, t.h.items[0]) {
			item.row = t.h.items[0].row
			if err := t.mem.grow(rowSize(scratch) - rowSize(item.row)); err != nil {
				return err
			}
			copy(item.row, scratch)
			t.h.items[0] = item
			heap.Fix(&t.h, 0)
		}
	}
	items := t.h.items
	slices.SortFunc(items, func(a, b topItem) int {
		if t.h.before(a, b) {
			return -1
		}
		return 1
	})
	for i := offset; i < int64(len(items)); i++ {
		t.out = append(t.out, items[i].row)
	}
	t.h.items = nil
	return nil
}

func (t *topNOp) Close() error {
	t.out = nil
	t.mem.reset()
	if t.input == nil {
		return nil
	}
	return t.input.close()
}

type topItem struct {
	row []types.Datum
	seq int64
}

// topHeap is a max-heap: the root is the row that sorts last.
type topHeap struct {
	items []topItem
	sk    sortKeys
}

// before reports whether a sorts before b (keys, then input order).
func (h *topHeap) before(a, b topItem) bool {
	if c := h.sk.compare(a.row, b.row); c != 0 {
		return c < 0
	}
	return a.seq < b.seq
}

func (h *topHeap) Len() int           { return len(h.items) }
func (h *topHeap) Less(i, j int) bool { return h.before(h.items[j], h.items[i]) }
func (h *topHeap) Swap(i, j int)      { h.items[i], h.items[j] = h.items[j], h.items[i] }
func (h *topHeap) Push(x any)         { h.items = append(h.items, x.(topItem)) }
func (h *topHeap) Pop() any {
	it := h.items[len(h.items)-1]
	h.items = h.items[:len(h.items)-1]
	return it
}
