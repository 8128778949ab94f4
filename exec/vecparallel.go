package exec

import (
	"fmt"
	"sync"

	"github.com/kvsql/kvsql/encoding"
	"github.com/kvsql/kvsql/exec/eval"
	"github.com/kvsql/kvsql/index"
	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/planner"
	"github.com/kvsql/kvsql/types"
)

// scanWorkers is the number of goroutines of a parallel scan: the cores
// the engine is sized for (two), as PostgreSQL's max_parallel_workers_per_
// gather of 2 with its leader is about the same on such a machine.
const scanWorkers = 2

// vecParallelScan is a vecScan split over the primary key's range
// (planner.Scan.Parallel): each worker goroutine runs its own vecScan —
// decode, filter, late columns — over one part, on iterators opened here
// on the statement's one read view (so every part sees the same
// snapshot), and hands its batches over a channel. Batches come in the
// order they are ready, not in key order: the planner asks for a parallel
// scan in this mode only under aggregations, which need no order
// (Scan.Unordered); elsewhere each worker compacts the rows its filter
// keeps into batches it queues, and the consumer reads the first part's
// queue to its end before the second's, so rows come in key order
// (runOrdered).
//
// A worker alternates two sets of vectors: it fills one while the
// consumer holds the other, and reuses a set only once the consumer has
// asked for the batch after it, keeping the vecOp contract.
type vecParallelScan struct {
	rs      *runState
	workers []*scanWorker
	results chan scanResult
	quit    chan struct{}
	wg      sync.WaitGroup
	started bool
	live    int         // workers not finished
	held    *scanWorker // the worker whose batch the consumer holds
	// ordered: batches come part by part, in key order (see
	// runOrdered); cur is the part being delivered.
	ordered bool
	cur     int
}

type scanWorker struct {
	s    *vecScan
	part int             // the worker's part of the key range (batch.part)
	ch   chan scanResult // ordered mode: this part's compacted batches
	cols [2][]*vec
	sels [2][]int
	out  [2]batch
	back chan struct{} // one token per batch the consumer is done with
}

type scanResult struct {
	w   *scanWorker
	b   *batch
	err error
}

// newVecParallelScan returns a parallel scan of n, or nil when the table's
// key does not split (not an ascending integer first key column, fewer
// than two distinct values): the caller then scans serially.
func newVecParallelScan(rs *runState, env *eval.Env, n *planner.Scan) (vecOp, error) {
	t := n.Table
	if len(t.PrimaryKey) == 0 || (len(t.PrimaryKeyDesc) > 0 && t.PrimaryKeyDesc[0]) || t.Columns[t.PrimaryKey[0]].Type.Kind() != types.KindInt {
		return nil, nil
	}
	lo, hi, ok, err := keyBounds(rs, n)
	if err != nil || !ok || hi-lo < 2 {
		return nil, err
	}
	mid := lo + (hi-lo)/2
	spans := []index.Span{
		{Hi: []types.Datum{types.NewInt(mid)}, HiExcl: true},
		{Lo: []types.Datum{types.NewInt(mid)}},
	}
	p := &vecParallelScan{rs: rs, results: make(chan scanResult, scanWorkers), quit: make(chan struct{}), ordered: !n.Unordered}
	for _, sp := range spans {
		w := &scanWorker{part: len(p.workers), back: make(chan struct{}, 2), ch: make(chan scanResult, orderedQueue)}
		s, err := newVecScan(rs, env, n)
		if err != nil {
			_ = p.Close()
			return nil, err
		}
		s.sp, w.s = sp, s
		w.cols[0] = s.b.cols
		w.cols[1] = make([]*vec, len(s.b.cols))
		for i, v := range s.b.cols {
			if v != nil {
				w.cols[1][i] = newVec(t.Columns[i].Type)
			}
		}
		// Open the iterator here, not in the goroutine: opening reads the
		// transaction's state, which is not safe for concurrent use.
		it, err := index.ScanMasterRaw(rs.reader(), t, sp)
		if err != nil {
			_ = p.Close()
			return nil, err
		}
		s.it, s.fresh = it, true
		p.workers = append(p.workers, w)
	}
	return p, nil
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
	return lo, hi, hi > lo && hi-lo > 0, nil
}

// dropKeyColumns is vecScan.dropKeyColumns for every worker and both of
// its sets of vectors.
func (p *vecParallelScan) dropKeyColumns(used []int) {
	for _, w := range p.workers {
		if !w.s.keyDroppable(used) {
			return
		}
		w.s.dropKeyColumns(used)
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

// run is a worker: it fills batches from its part until the end, an
// error, or quit.
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
	defer func() {
		if r := recover(); r != nil {
			send(scanResult{w: w, err: pgerror.Newf(pgerror.Internal, "exec: parallel scan worker: %v", r)})
		}
	}()
	s := w.s
	for i := 0; ; i++ {
		k := i % 2
		if i >= 2 {
			// Batch i-2 used these vectors: wait until it is given back.
			select {
			case <-w.back:
			case <-p.quit:
				return
			}
		}
		s.b.cols, s.sel = w.cols[k], w.sels[k]
		b, err := s.NextBatch()
		if err != nil || b == nil {
			send(scanResult{w: w, err: err})
			return
		}
		w.sels[k] = s.sel
		w.out[k] = *b
		w.out[k].part = w.part
		if !send(scanResult{w: w, b: &w.out[k]}) {
			return
		}
	}
}

func (p *vecParallelScan) NextBatch() (*batch, error) {
	if !p.started {
		p.start()
	}
	if p.ordered {
		for p.cur < len(p.workers) {
			r, ok := <-p.workers[p.cur].ch
			if !ok {
				p.cur++
				continue
			}
			return r.b, r.err
		}
		return nil, nil
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
		if r.b == nil {
			p.live--
			continue
		}
		p.held = r.w
		return r.b, nil
	}
	return nil, nil
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
	return err
}

func (p *vecParallelScan) String() string {
	return fmt.Sprintf("parallel scan (%d workers)", len(p.workers))
}

// orderedQueue is how many compacted batches a part may have ready ahead
// of the consumer in ordered mode: a selective filter's rows of the
// second half wait there, in memory bounded by it, while the first half
// is delivered; past it the second worker waits.
const orderedQueue = 16

// runOrdered is a worker of an ordered parallel scan: it copies the rows
// its scan's batches select into batches of its own (a filter that keeps
// few rows fills one from many) and queues them on w.ch, which the
// consumer reads part after part.
func (p *vecParallelScan) runOrdered(w *scanWorker) {
	defer p.wg.Done()
	defer close(w.ch)
	send := func(r scanResult) bool {
		select {
		case w.ch <- r:
			return true
		case <-p.quit:
			return false
		}
	}
	defer func() {
		if r := recover(); r != nil {
			send(scanResult{w: w, err: pgerror.Newf(pgerror.Internal, "exec: parallel scan worker: %v", r)})
		}
	}()
	var acc *batch
	for {
		b, err := w.s.NextBatch()
		if err != nil {
			send(scanResult{w: w, err: err})
			return
		}
		if b == nil {
			if acc != nil && acc.n > 0 {
				send(scanResult{w: w, b: acc})
			}
			return
		}
		for i := 0; i < b.live(); i++ {
			k := i
			if b.sel != nil {
				k = b.sel[i]
			}
			if acc == nil {
				acc = newBatchLike(b)
			}
			appendCell(acc, b, k)
			if acc.n == batchSize {
				if !send(scanResult{w: w, b: acc}) {
					return
				}
				acc = nil
			}
		}
	}
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

// appendCell appends row k of b to out, copying bytes into out's arenas.
func appendCell(out, b *batch, k int) {
	o := out.n
	out.n++
	for c, v := range b.cols {
		if v == nil {
			continue
		}
		dst := out.cols[c]
		if v.isNull(k) {
			dst.setNull(o)
			continue
		}
		switch v.class {
		case classInts:
			dst.i[o] = v.i[k]
		case classFloats:
			dst.f[o] = v.f[k]
		default:
			start := len(dst.arena)
			dst.arena = append(dst.arena, v.b[k]...)
			dst.b[o] = dst.arena[start:len(dst.arena):len(dst.arena)]
		}
	}
}
