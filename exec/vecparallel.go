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
// scan only under nodes that do not promise an order (aggregations,
// hash joins, a filter under them).
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
}

type scanWorker struct {
	s    *vecScan
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
	p := &vecParallelScan{rs: rs, results: make(chan scanResult, scanWorkers), quit: make(chan struct{})}
	for _, sp := range spans {
		w := &scanWorker{back: make(chan struct{}, 2)}
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

func (p *vecParallelScan) start() {
	p.started, p.live = true, len(p.workers)
	for _, w := range p.workers {
		p.wg.Add(1)
		go p.run(w)
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
		if !send(scanResult{w: w, b: &w.out[k]}) {
			return
		}
	}
}

func (p *vecParallelScan) NextBatch() (*batch, error) {
	if !p.started {
		p.start()
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
