package exec

import (
	"fmt"
	"sync"

	"github.com/kvsql/kvsql/encoding"
	"github.com/kvsql/kvsql/exec/eval"
	"github.com/kvsql/kvsql/index"
	"github.com/kvsql/kvsql/kv"
	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/planner"
	"github.com/kvsql/kvsql/types"
)

// scanWorkers is the number of goroutines of a parallel scan: the cores
// the engine is sized for (two), as PostgreSQL's max_parallel_workers_per_
// gather of 2 with its leader is about the same on such a machine.
const scanWorkers = 2

// vecParallelScan is a vecScan split over the primary key's range
// (planner.Scan.Parallel): worker goroutines each run their own vecScan —
// decode, filter, late columns — over parts of the range, on iterators
// opened on the statement's one read view (so every part sees the same
// snapshot), and hand their batches over channels.
//
// Unordered (the planner asks for it only under aggregations and sorts,
// which need no order: Scan.Unordered), the range is cut into parts as
// for an ordered scan, every part's iterator is opened up front, and each
// worker takes the next part not taken until none is left; batches come
// in the order they are ready (run), each tagged with its part
// (batch.part), so a sort can still number rows in key order. Taking
// parts as they go keeps both workers busy to the end: with one half
// each, a worker slowed by anything else on its core (the consumer, the
// garbage collector, another query) left the other idle while it
// finished. A worker alternates two sets of vectors: it fills one while
// the consumer holds the other, and reuses a set only once the consumer
// has asked for the batch after it, keeping the vecOp contract.
//
// Ordered (everywhere else), rows must come in key order, so the range is
// cut into many small parts that the workers take in key order, one after
// the other, and the consumer delivers part after part (runOrdered). Each
// worker compacts the rows its filter keeps into batches of its own and
// queues them on the part's channel. Small parts are what keep both
// workers busy: the worker ahead of the part being delivered can queue
// its whole part's rows (a filter keeping up to a quarter of the rows)
// instead of waiting for the consumer to reach it. With two halves
// instead, the second worker stopped once its queue was full and waited
// for the whole first half: returning 10% of a million rows took as long
// as scanning three quarters of the table serially.
type vecParallelScan struct {
	rs      *runState
	node    *planner.Scan
	workers []*scanWorker
	results chan scanResult
	quit    chan struct{}
	wg      sync.WaitGroup
	started bool
	live    int         // workers not finished
	held    *scanWorker // the worker whose batch the consumer holds

	ordered bool
	// Ordered mode: parts in key order; the consumer opens a part's
	// iterator and hands the part out on work at most partWindow parts
	// ahead of cur, the part it delivers, and closes the iterator once
	// the part is delivered (iterators are opened and closed on the
	// consumer's goroutine only). next is the next part to hand out.
	parts      []*scanPart
	work       chan *scanPart
	workClosed bool
	next, cur  int
	// free holds delivered batches for the workers to refill; out is the
	// batch the consumer holds.
	free chan *batch
	out  *batch
}

type scanWorker struct {
	s    *vecScan
	cols [2][]*vec
	sels [2][]int
	out  [2]batch
	back chan struct{} // one token per batch the consumer is done with
	all  []int         // ordered: the positions of a batch without selection
}

// scanPart is one part of an ordered parallel scan's key range.
type scanPart struct {
	idx int
	sp  index.Span
	it  kv.Iterator     // opened by the consumer when handed out
	ch  chan scanResult // its compacted batches; closed by its worker
}

type scanResult struct {
	w   *scanWorker
	b   *batch
	err error
	// done: an unordered worker finished this part; the consumer closes
	// its iterator.
	done *scanPart
}

// Ordered parallel scans: a part spans about orderedPartKeys values of
// the first key column (at least orderedMinParts parts, at most
// orderedMaxParts); the consumer lets workers run at most partWindow
// parts ahead of the part it delivers, and a part queues at most
// orderedQueue batches: together they bound what waits in memory
// (partWindow*orderedQueue batches).
const (
	orderedPartKeys = 1 << 16
	orderedMinParts = 4 * scanWorkers
	orderedMaxParts = 256
	partWindow      = scanWorkers + 1
	orderedQueue    = 16
)

// newVecParallelScan returns a parallel scan of n, or nil when the table's
// key does not split (not an ascending integer first key column, fewer
// than two distinct values): the caller then scans serially.
func newVecParallelScan(rs *runState, env *eval.Env, n *planner.Scan) (vecOp, error) {
	t := n.Table
	if len(t.PrimaryKey) == 0 || (len(t.PrimaryKeyDesc) > 0 && t.PrimaryKeyDesc[0]) || t.Columns[t.PrimaryKey[0]].Type.Kind() != types.KindInt {
		return nil, nil
	}
	lo, hi, ok, err := keyBounds(rs, n)
	if err != nil || !ok {
		return nil, err
	}
	width := uint64(hi) - uint64(lo) // hi > lo: exact even past int64's range
	if width < 2 {
		return nil, nil
	}
	p := &vecParallelScan{rs: rs, node: n, quit: make(chan struct{}), ordered: !n.Unordered}
	nparts := int(min(max(width/orderedPartKeys, orderedMinParts), orderedMaxParts, width))
	if p.ordered {
		p.work = make(chan *scanPart, partWindow)
		p.free = make(chan *batch, partWindow*orderedQueue+2)
	} else {
		p.work = make(chan *scanPart, nparts)
		p.results = make(chan scanResult, scanWorkers)
	}
	spans := splitSpans(lo, width, nparts)
	for range scanWorkers {
		w := &scanWorker{back: make(chan struct{}, 2)}
		s, err := newVecScan(rs, env, n)
		if err != nil {
			_ = p.Close()
			return nil, err
		}
		w.s = s
		p.workers = append(p.workers, w)
		if p.ordered {
			continue
		}
		w.cols[0] = s.b.cols
		w.cols[1] = make([]*vec, len(s.b.cols))
		for i, v := range s.b.cols {
			if v != nil {
				w.cols[1][i] = newVec(t.Columns[i].Type)
			}
		}
	}
	for i, sp := range spans {
		part := &scanPart{idx: i, sp: sp}
		p.parts = append(p.parts, part)
		if p.ordered {
			part.ch = make(chan scanResult, orderedQueue)
			continue
		}
		// Open the iterators here, not in the workers: opening reads the
		// transaction's state, which is not safe for concurrent use.
		it, err := index.ScanMasterRaw(rs.reader(), t, sp)
		if err != nil {
			_ = p.Close()
			return nil, err
		}
		part.it = it
		p.work <- part
	}
	if !p.ordered {
		close(p.work)
		p.workClosed = true
	}
	return p, nil
}

// splitSpans cuts the first key column's range [lo, lo+width] into n
// spans of about equal width, in key order.
func splitSpans(lo int64, width uint64, n int) []index.Span {
	cut := func(j int) []types.Datum {
		return []types.Datum{types.NewInt(int64(uint64(lo) + width/uint64(n)*uint64(j)))}
	}
	spans := make([]index.Span, n)
	for j := range spans {
		if j > 0 {
			spans[j].Lo = cut(j)
		}
		if j < n-1 {
			spans[j].Hi, spans[j].HiExcl = cut(j+1), true
		}
	}
	return spans
}

// keyBounds reads the first and last value of the table's first key
// column.
func keyBounds(rs *runState, n *planner.Scan) (lo, hi int64, ok bool, err error) {
	it, err := index.ScanMasterRaw(rs.reader(), n.Table, index.Span{})
	if err != nil {
		return 0, 0, false, err
	}
	defer it.Close()
	first := func() (int64, bool, error) {
		rest, _, err := encoding.DecodeUvarintAsc(it.Key())
		if err != nil {
			return 0, false, err
		}
		_, d, _, err := encoding.DecodeKeyDatum(rest)
		if err != nil || d.Kind != types.KindInt {
			return 0, false, err
		}
		return d.I, true, nil
	}
	if !it.First() {
		return 0, 0, false, it.Error()
	}
	if lo, ok, err = first(); !ok || err != nil {
		return 0, 0, false, err
	}
	if !it.Last() {
		return 0, 0, false, it.Error()
	}
	if hi, ok, err = first(); !ok || err != nil {
		return 0, 0, false, err
	}
	return lo, hi, hi > lo, nil
}

// dropKeyColumns is vecScan.dropKeyColumns for every worker and both of
// its sets of vectors.
func (p *vecParallelScan) dropKeyColumns(used []int) {
	for _, w := range p.workers {
		if !w.s.keyDroppable(used) {
			return
		}
		w.s.dropKeyColumns(used)
		if p.ordered {
			continue // the scan's own vectors are its only ones
		}
		for _, o := range w.s.node.Table.PrimaryKey {
			w.cols[0][o], w.cols[1][o] = nil, nil
		}
	}
}

func (p *vecParallelScan) start() {
	p.started, p.live = true, len(p.workers)
	for _, w := range p.workers {
		p.wg.Add(1)
		if p.ordered {
			go p.runOrdered(w)
		} else {
			go p.run(w)
		}
	}
}

// run is a worker of an unordered scan: it takes parts and fills batches
// from them until no part is left, an error, or quit.
func (p *vecParallelScan) run(w *scanWorker) {
	defer p.wg.Done()
	send := func(r scanResult) bool {
		select {
		case p.results <- r:
			return true
		case <-p.quit:
			return false
		}
	}
	s := w.s
	defer func() {
		s.it = nil // the consumer closes the parts' iterators
		if r := recover(); r != nil {
			send(scanResult{w: w, err: pgerror.Newf(pgerror.Internal, "exec: parallel scan worker: %v", r)})
		}
	}()
	// i counts the batches sent; free: the set of vectors of batch i is
	// not held by the consumer (its token was taken already).
	i, free := 0, true
	for {
		var part *scanPart
		select {
		case part = <-p.work:
		case <-p.quit:
			return
		}
		if part == nil {
			send(scanResult{w: w}) // work closed: every part is taken
			return
		}
		s.it, s.fresh, s.done = part.it, true, false
		for {
			k := i % 2
			if !free {
				// Batch i-2 used these vectors: wait until it is given back.
				select {
				case <-w.back:
				case <-p.quit:
					return
				}
				free = true
			}
			s.b.cols, s.sel = w.cols[k], w.sels[k]
			b, err := s.NextBatch()
			if err != nil {
				send(scanResult{w: w, err: err})
				return
			}
			if b == nil {
				break // the part is done; set k stays free for the next
			}
			w.sels[k] = s.sel
			w.out[k] = *b
			w.out[k].part = part.idx
			if !send(scanResult{w: w, b: &w.out[k]}) {
				return
			}
			i++
			free = i < 2
		}
		s.it = nil
		if !send(scanResult{w: w, done: part}) {
			return
		}
	}
}

func (p *vecParallelScan) NextBatch() (*batch, error) {
	if !p.started {
		p.start()
	}
	if p.ordered {
		return p.nextOrdered()
	}
	if p.held != nil {
		p.held.back <- struct{}{}
		p.held = nil
	}
	for p.live > 0 {
		r := <-p.results
		if r.err != nil {
			return nil, r.err
		}
		if r.done != nil {
			// Its worker is done with the iterator.
			err := r.done.it.Close()
			r.done.it = nil
			if err != nil {
				return nil, err
			}
			continue
		}
		if r.b == nil {
			p.live--
			continue
		}
		p.held = r.w
		return r.b, nil
	}
	return nil, nil
}

// nextOrdered delivers the parts' batches part after part, handing out
// the next part each time one is delivered.
func (p *vecParallelScan) nextOrdered() (*batch, error) {
	if p.out != nil {
		select {
		case p.free <- p.out:
		default:
		}
		p.out = nil
	}
	if err := p.handOut(); err != nil {
		return nil, err
	}
	for p.cur < len(p.parts) {
		part := p.parts[p.cur]
		r, ok := <-part.ch
		if ok {
			if r.err != nil {
				return nil, r.err
			}
			p.out = r.b
			return r.b, nil
		}
		// Delivered: its worker is done with the iterator.
		err := part.it.Close()
		part.it = nil
		p.cur++
		if err != nil {
			return nil, err
		}
		if err := p.handOut(); err != nil {
			return nil, err
		}
	}
	return nil, nil
}

// handOut opens the iterators of the parts up to partWindow past the one
// being delivered and hands them to the workers, in key order; work has
// room for them all, so it never blocks.
func (p *vecParallelScan) handOut() error {
	for p.next < len(p.parts) && p.next < p.cur+partWindow {
		part := p.parts[p.next]
		it, err := index.ScanMasterRaw(p.rs.reader(), p.node.Table, part.sp)
		if err != nil {
			return err
		}
		part.it = it
		p.next++
		p.work <- part
	}
	if p.next == len(p.parts) && !p.workClosed {
		p.workClosed = true
		close(p.work)
	}
	return nil
}

func (p *vecParallelScan) Close() error {
	close(p.quit)
	p.wg.Wait()
	var err error
	for _, w := range p.workers {
		if cerr := w.s.Close(); cerr != nil && err == nil {
			err = cerr
		}
	}
	for _, part := range p.parts {
		if part.it != nil {
			if cerr := part.it.Close(); cerr != nil && err == nil {
				err = cerr
			}
			part.it = nil
		}
	}
	return err
}

func (p *vecParallelScan) String() string {
	return fmt.Sprintf("parallel scan (%d workers)", len(p.workers))
}

// runOrdered is a worker of an ordered parallel scan: it takes the parts
// handed out, in key order, until there are none or quit.
func (p *vecParallelScan) runOrdered(w *scanWorker) {
	defer p.wg.Done()
	for {
		var part *scanPart
		select {
		case part = <-p.work:
		case <-p.quit:
			return
		}
		if part == nil {
			return // work closed: every part is handed out
		}
		ok := p.scanPart(w, part)
		close(part.ch)
		if !ok {
			// An error (queued for the consumer, which stops there: every
			// part not scanned comes after it) or quit.
			return
		}
	}
}

// scanPart scans one part with the worker's vecScan and queues the rows
// its batches select, compacted into batches of their own (a filter that
// keeps few rows fills one from many), on the part's channel. It reports
// false after an error or quit.
func (p *vecParallelScan) scanPart(w *scanWorker, part *scanPart) (ok bool) {
	send := func(r scanResult) bool {
		select {
		case part.ch <- r:
			return true
		case <-p.quit:
			return false
		}
	}
	s := w.s
	s.it, s.fresh, s.done = part.it, true, false
	defer func() {
		s.it = nil // the consumer closes it
		if r := recover(); r != nil {
			send(scanResult{w: w, err: pgerror.Newf(pgerror.Internal, "exec: parallel scan worker: %v", r)})
			ok = false
		}
	}()
	var acc *batch
	for {
		b, err := s.NextBatch()
		if err != nil {
			send(scanResult{w: w, err: err})
			return false
		}
		if b == nil {
			if acc != nil && acc.n > 0 {
				return send(scanResult{w: w, b: acc})
			}
			return true
		}
		sel := b.sel
		if sel == nil {
			sel = b.positions(w.all[:0])
			w.all = sel
		}
		for len(sel) > 0 {
			if acc == nil {
				acc = p.emptyBatch(b, part.idx)
			}
			m := min(len(sel), batchSize-acc.n)
			appendRows(acc, b, sel[:m])
			sel = sel[m:]
			if acc.n == batchSize {
				if !send(scanResult{w: w, b: acc}) {
					return false
				}
				acc = nil
			}
		}
	}
}

// emptyBatch returns an empty batch with vectors of b's columns for part:
// a delivered one when there is one of the same shape, else a new one.
func (p *vecParallelScan) emptyBatch(b *batch, part int) *batch {
	select {
	case out := <-p.free:
		if sameShape(out, b) {
			out.n, out.sel, out.part = 0, nil, part
			for _, v := range out.cols {
				if v != nil {
					v.arena = v.arena[:0]
					v.clearNulls(batchSize)
				}
			}
			return out
		}
	default:
	}
	out := newBatchLike(b)
	out.part = part
	return out
}

// sameShape reports whether a and b have vectors of the same classes in
// the same columns.
func sameShape(a, b *batch) bool {
	if len(a.cols) != len(b.cols) {
		return false
	}
	for c, v := range b.cols {
		w := a.cols[c]
		if (v == nil) != (w == nil) || v != nil && (v.kind != w.kind || v.class != w.class) {
			return false
		}
	}
	return true
}

// newBatchLike returns an empty batch with vectors of b's columns.
func newBatchLike(b *batch) *batch {
	out := &batch{cols: make([]*vec, len(b.cols))}
	for c, v := range b.cols {
		if v != nil {
			out.cols[c] = &vec{kind: v.kind, class: v.class}
			out.cols[c].alloc()
		}
	}
	return out
}

// appendRows appends rows sel of b to out (which has room for them),
// column by column, copying bytes into out's arenas.
func appendRows(out, b *batch, sel []int) {
	o := out.n
	out.n += len(sel)
	for c, v := range b.cols {
		if v == nil {
			continue
		}
		dst := out.cols[c]
		for j, k := range sel {
			if v.isNull(k) {
				dst.setNull(o + j)
			}
		}
		switch v.class {
		case classInts:
			for j, k := range sel {
				dst.i[o+j] = v.i[k]
			}
		case classFloats:
			for j, k := range sel {
				dst.f[o+j] = v.f[k]
			}
		default:
			for j, k := range sel {
				if v.isNull(k) {
					continue
				}
				start := len(dst.arena)
				dst.arena = append(dst.arena, v.b[k]...)
				dst.b[o+j] = dst.arena[start:len(dst.arena):len(dst.arena)]
			}
		}
	}
}
