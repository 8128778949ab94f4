package exec

import (
	"sync"

	"github.com/kvsql/kvsql/catalog"
	"github.com/kvsql/kvsql/encoding"
	"github.com/kvsql/kvsql/exec/eval"
	"github.com/kvsql/kvsql/index"
	"github.com/kvsql/kvsql/kv"
	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/planner"
	"github.com/kvsql/kvsql/types"
)

// vecIndexParallel is a vecIndexScan split over parts of its range
// (planner.Scan.Parallel, read-only statements): when the scan reads one
// value of a key+id index — its entries then follow the primary key —
// and the primary key starts with an ascending integer, the range is cut
// by that integer into parts; one search value of an inverted-list index
// is cut into ranges of primary keys, each folded by its worker, and the
// folded list of several search values by position. scanWorkers
// goroutines take the parts in order, each decoding its part's entries
// (and reading their master rows, for a lookup) into batches of its own;
// the consumer hands the parts' batches out part after part, so rows
// come in exactly the serial scan's order. As in vecParallelScan's
// ordered mode (vecparallel.go), iterators are opened and closed on the
// consumer's goroutine only, and workers run at most partWindow parts
// ahead of the part being delivered. The planner asks for it for
// lookups; for index-only scans only in tests for now
// (planner.parallelIndexScans says why).
type vecIndexParallel struct {
	rs      *runState
	env     *eval.Env
	parts   []*indexPart
	work    chan *indexPart
	closed  bool // work is closed
	quit    chan struct{}
	wg      sync.WaitGroup
	started bool
	next    int // the next part to hand out
	cur     int // the part being delivered
	// free holds delivered batches for the workers to refill; out is
	// the batch the consumer holds.
	free chan *batch
	out  *batch
	// proto is the serial scan, its spans evaluated; each worker runs a
	// scan of its own (its filter has scratch space).
	proto *vecIndexScan
	// readers are the workers' MasterReaders (a lookup's), closed with
	// the parts' iterators.
	readers []*index.MasterReader
}

// indexPart is one part of a parallel index scan's range: a span of a
// key+id index, the keys [lo, hi) of a folded inverted list, or the
// primary keys [pkLo, pkHi) of one search value's runs (nil: unbounded).
type indexPart struct {
	sp         index.Span
	it         kv.Iterator // opened by the consumer when handed out
	lo, hi     int
	pkLo, pkHi []byte
	ch         chan scanResult
}

// A parallel index scan's range is cut into a part per indexPartRows
// estimated rows, at least scanWorkers and at most indexParts parts:
// enough for both workers to stay busy while the consumer delivers a
// part, few enough that each part fills whole batches and opening an
// iterator per part is noise (BenchmarkVecIndexScan: 16 parts of 1,250
// rows cost half again the CPU of the serial scan).
const (
	indexPartRows = 8192
	indexParts    = 16
)

// newVecIndexScanOp returns the batch operator of an index scan: a
// parallel one when the planner asked for it, the statement is read-only
// and the range splits (see vecIndexParallel), else the serial scan.
func newVecIndexScanOp(rs *runState, env *eval.Env, n *planner.Scan) (vecOp, error) {
	s, err := newVecIndexScan(rs, env, n)
	if err != nil {
		return nil, err
	}
	if !n.Parallel || !rs.ctx.ReadOnly || !parallelIndexReads {
		return s, nil
	}
	if err := s.open(); err != nil {
		return nil, err
	}
	var parts []*indexPart
	switch {
	case s.runs != nil:
		parts = runParts(s.runs)
	case s.inv != nil:
		parts = listParts(s.inv.list.Len())
	default:
		spans, err := splitIndexSpan(rs.reader(), n, s.spans)
		if err != nil {
			return nil, err
		}
		for _, sp := range spans {
			parts = append(parts, &indexPart{sp: sp})
		}
	}
	if parts == nil {
		return s, nil
	}
	p := &vecIndexParallel{rs: rs, env: env, quit: make(chan struct{}), proto: s, parts: parts,
		work: make(chan *indexPart, partWindow), free: make(chan *batch, partWindow*orderedQueue+2)}
	for _, part := range parts {
		part.ch = make(chan scanResult, orderedQueue)
	}
	return p, nil
}

// runParts cuts one search value's inverted list into ranges of primary
// keys of about indexPartRows ops each, at least scanWorkers and at most
// indexParts, for the workers to fold and read; nil when the list has
// fewer than listPartMin ops.
func runParts(r *index.InvertedRuns) []*indexPart {
	n := r.Ops()
	if n < listPartMin {
		return nil
	}
	cuts := r.Split(min(max(n/indexPartRows, scanWorkers), indexParts))
	parts := make([]*indexPart, len(cuts)+1)
	for j := range parts {
		parts[j] = &indexPart{}
		if j > 0 {
			parts[j].pkLo = cuts[j-1]
		}
		if j < len(cuts) {
			parts[j].pkHi = cuts[j]
		}
	}
	return parts
}

// listParts cuts an inverted list of n keys into parts of about
// indexPartRows keys, at least scanWorkers and at most indexParts; nil
// when the list is shorter than listPartMin: one goroutine reads it.
func listParts(n int) []*indexPart {
	if n < listPartMin {
		return nil
	}
	nparts := min(max(n/indexPartRows, scanWorkers), indexParts)
	parts := make([]*indexPart, nparts)
	for j := range parts {
		parts[j] = &indexPart{lo: n * j / nparts, hi: n * (j + 1) / nparts}
	}
	return parts
}

// parallelIndexReads turns parallel index scans on; tests turn it off to
// compare with the serial scan.
var parallelIndexReads = true

// listPartMin is the shortest inverted list a parallel scan cuts into
// parts: a batch (tests lower it).
var listPartMin = batchSize

// splitIndexSpan cuts spans into parts by the primary key's first column
// when they are one point of every indexed column of a key+id index
// read forward and the primary key starts with an ascending integer
// column; nil when they do not split.
func splitIndexSpan(r kv.Reader, n *planner.Scan, spans []index.Span) ([]index.Span, error) {
	t, idx := n.Table, n.Index
	if len(spans) != 1 || n.Reverse || idx.Form != catalog.FormKeyID || len(t.PrimaryKey) == 0 ||
		(len(t.PrimaryKeyDesc) > 0 && t.PrimaryKeyDesc[0]) || t.Columns[t.PrimaryKey[0]].Type.Kind() != types.KindInt {
		return nil, nil
	}
	sp := spans[0]
	if len(sp.Lo) != len(idx.Columns) || !isPoint(sp) {
		return nil, nil
	}
	it, err := index.ScanIndexRaw(r, idx, sp)
	if err != nil {
		return nil, err
	}
	defer it.Close()
	first := func(ok bool) (int64, bool, error) {
		if !ok {
			return 0, false, it.Error()
		}
		rest, _, err := encoding.DecodeUvarintAsc(it.Key())
		if err != nil {
			return 0, false, err
		}
		for range idx.Columns {
			if rest, _, _, err = encoding.DecodeKeyDatum(rest); err != nil {
				return 0, false, err
			}
		}
		_, v, ok, err := encoding.DecodeKeyInt(rest)
		return v, ok, err
	}
	lo, ok, err := first(it.First())
	if err != nil || !ok {
		return nil, err
	}
	hi, ok, err := first(it.Last())
	if err != nil || !ok {
		return nil, err
	}
	width := uint64(hi) - uint64(lo)
	if hi <= lo || width < 2 {
		return nil, nil
	}
	nparts := int(min(uint64(max(int(n.Rows/indexPartRows), scanWorkers)), indexParts, width))
	out := make([]index.Span, nparts)
	cut := func(j int) []types.Datum {
		return append(append([]types.Datum(nil), sp.Lo...), types.NewInt(int64(uint64(lo)+width/uint64(nparts)*uint64(j))))
	}
	for j := range out {
		out[j].Lo, out[j].Hi = sp.Lo, sp.Hi
		if j > 0 {
			out[j].Lo = cut(j)
		}
		if j < nparts-1 {
			out[j].Hi, out[j].HiExcl = cut(j+1), true
		}
	}
	return out, nil
}

func (p *vecIndexParallel) start() error {
	p.started = true
	for range scanWorkers {
		w, err := newVecIndexScan(p.rs, p.env, p.proto.node)
		if err != nil {
			return err
		}
		if w.master != nil {
			// A lookup's worker reads master rows through a reader of
			// its own, opened here, on the consumer's goroutine.
			mr, err := index.NewMasterReader(p.rs.reader(), p.proto.node.Table)
			if err != nil {
				return err
			}
			p.readers = append(p.readers, mr)
			w.master.mr = mr
		}
		p.wg.Add(1)
		go p.runWorker(w)
	}
	return nil
}

// handOut opens the iterators of the parts up to partWindow ahead of the
// part being delivered and queues them for the workers.
func (p *vecIndexParallel) handOut() error {
	for p.next < len(p.parts) && p.next < p.cur+partWindow {
		part := p.parts[p.next]
		if p.proto.node.Index.Form != catalog.FormInverted {
			it, err := index.ScanIndexRaw(p.rs.reader(), p.proto.node.Index, part.sp)
			if err != nil {
				return err
			}
			part.it = it
		}
		p.next++
		p.work <- part // never blocks: at most partWindow parts are out
	}
	if p.next == len(p.parts) && !p.closed {
		p.closed = true
		close(p.work)
	}
	return nil
}

// runWorker scans the parts it takes off p.work with s, sending each
// batch, in a fresh set of vectors, on the part's channel.
func (p *vecIndexParallel) runWorker(s *vecIndexScan) {
	defer p.wg.Done()
	for part := range p.work {
		select {
		case <-p.quit:
			close(part.ch)
			continue // Close closes the iterators
		default:
		}
		s.spans, s.si, s.opened, s.done = nil, 0, true, false
		s.it, s.fresh, s.keepIt = part.it, true, true
		p.scanPart(s, part)
		close(part.ch)
	}
}

func (p *vecIndexParallel) scanPart(s *vecIndexScan, part *indexPart) {
	defer func() {
		// A panic here would end the process: it is the statement's
		// internal error instead, as in the table scan's workers.
		if r := recover(); r != nil {
			select {
			case part.ch <- scanResult{err: pgerror.Newf(pgerror.Internal, "exec: parallel index scan worker: %v", r)}:
			case <-p.quit:
			}
		}
	}()
	switch {
	case p.proto.runs != nil:
		s.runs = p.proto.runs
		s.foldRange(part.pkLo, part.pkHi) // here, on the worker's goroutine
	case p.proto.inv != nil:
		s.inv = &invCursor{list: p.proto.inv.list, pos: part.lo, end: part.hi}
	}
	for {
		s.b = *p.batchFor(s)
		b, err := s.NextBatch()
		if err != nil {
			select {
			case part.ch <- scanResult{err: err}:
			case <-p.quit:
			}
			return
		}
		if b == nil {
			return
		}
		out := *b // the vectors are this batch's own: the next call takes fresh ones
		if b.sel != nil {
			out.sel = append([]int(nil), b.sel...)
		}
		select {
		case part.ch <- scanResult{b: &out}:
		case <-p.quit:
			return
		}
	}
}

// batchFor returns a set of vectors for the worker's next batch: a
// delivered one, or a new one when none is free.
func (p *vecIndexParallel) batchFor(s *vecIndexScan) *batch {
	select {
	case b := <-p.free:
		return b
	default:
	}
	t := s.node.Table
	b := &batch{cols: make([]*vec, len(p.proto.b.cols))}
	for i, v := range p.proto.b.cols {
		if v != nil {
			b.cols[i] = newVec(t.Columns[i].Type)
		}
	}
	return b
}

func (p *vecIndexParallel) NextBatch() (*batch, error) {
	if !p.started {
		if err := p.start(); err != nil {
			return nil, err
		}
	}
	if p.out != nil {
		select {
		case p.free <- p.out:
		default:
		}
		p.out = nil
	}
	for p.cur < len(p.parts) {
		if err := p.handOut(); err != nil {
			return nil, err
		}
		if err := p.rs.canceled(); err != nil {
			return nil, err
		}
		part := p.parts[p.cur]
		res, ok := <-part.ch
		if !ok {
			// The part is delivered: its worker is done with the
			// iterator.
			var err error
			if part.it != nil {
				err = part.it.Close()
			}
			part.it = nil
			p.cur++
			if err != nil {
				return nil, err
			}
			continue
		}
		if res.err != nil {
			return nil, res.err
		}
		p.out = res.b
		return res.b, nil
	}
	return nil, nil
}

func (p *vecIndexParallel) Close() error {
	select {
	case <-p.quit:
		return nil // closed before
	default:
	}
	close(p.quit)
	if !p.closed {
		p.closed = true
		close(p.work)
	}
	p.wg.Wait()
	var err error
	for _, mr := range p.readers {
		if cerr := mr.Close(); err == nil {
			err = cerr
		}
	}
	p.readers = nil
	for _, part := range p.parts {
		if part.it != nil {
			if cerr := part.it.Close(); err == nil {
				err = cerr
			}
			part.it = nil
		}
	}
	return err
}
