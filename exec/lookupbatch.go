package exec

import (
	"github.com/kvsql/kvsql/catalog"
	"github.com/kvsql/kvsql/index"
	"github.com/kvsql/kvsql/types"
)

// lookupBatch lets a lookup join whose lookups are master gets (Keys fix
// the whole primary key) read them a batch at a time, as an index scan
// does (masterBatch): it takes up to a batch of left rows, evaluates
// their keys, reads the master rows of all of them in ascending key
// order through one MasterReader (equal keys share one read), and then
// joins the left rows one by one in the order the left gave them, so a
// plan that relies on the left's order keeps it exactly.
//
// The first lookupBatchAfter left rows are joined a row at a time: a
// short left (the chat bench's five chats of a user) pays more for the
// buffering than sorting five keys saves (BenchmarkLookupJoinPK/rows-5:
// 21-31 µs a row at a time, 33-48 µs batched).
//
// Only read-only statements batch (exec.Ctx.ReadOnly): reading ahead of
// the left must not lock or validate rows a LIMIT above would never
// reach. An error of the left or of a key, met while filling a batch, is
// held back until the rows before it are joined, so a LIMIT that stops
// earlier never sees it, as with a row at a time. Batches start at 64
// rows and double up to lookupBatchRows.
type lookupBatch struct {
	mb   *masterBatch
	mr   *index.MasterReader
	lw   int
	size int // the next batch's number of left rows

	n     int
	lrows []types.Datum // n × lw: the left rows (Datums are immutable)
	slots []int         // each left row's entry in mb; -1: a NULL key, or no get
	gets  []bool        // the left row's lookup is a get (in mb)
	pos   int
	err   error // met after the batch's rows: returned once they are used
	done  bool  // the left is exhausted
}

// lookupBatchRows bounds a batch of left rows.
const lookupBatchRows = 256

// lookupIterMin is the fewest gets a batch reads through a MasterReader;
// fewer are Gets (in key order). Measured on the chat bench's chat list
// (5 chats a user, a freshly loaded store of several levels): five
// SeekGEs through one iterator ran at 0.6 of PostgreSQL's throughput,
// five Gets at 0.9. Only the last batch of a left can hold fewer.
const lookupIterMin = 64

// batchedLookups turns the batches on; tests and benchmarks turn it off
// to compare with a get per left row.
var batchedLookups = true

func newLookupBatch(t *catalog.Table, lw int) *lookupBatch {
	mb := newMasterBatch(t, nil)
	return &lookupBatch{mb: mb, lw: lw, size: lookupBatchAfter}
}

// lookupBatchAfter is how many left rows are joined a row at a time
// before batches start.
const lookupBatchAfter = 64

// nextBatched starts the lookup of the next left row of the batch,
// filling a new batch when this one is used up; j.lrow stays nil at the
// end of the left.
func (j *lookupJoinOp) nextBatched() error {
	b := j.lb
	if b.pos >= b.n {
		if b.err != nil || b.done {
			err := b.err
			b.err = nil
			return err
		}
		if err := j.fillBatch(); err != nil {
			return err
		}
		if b.n == 0 {
			return j.nextBatched()
		}
	}
	i := b.pos
	b.pos++
	row := b.lrows[i*b.lw : (i+1)*b.lw : (i+1)*b.lw]
	if !b.gets[i] {
		return j.startLookup(row) // a span, or a NULL key: row at a time
	}
	j.lrow, j.matched, j.getDone, j.slot = row, false, false, b.slots[i]
	copy(j.out, row)
	return nil
}

// fillBatch reads the next batch of left rows and their master rows.
func (j *lookupJoinOp) fillBatch() error {
	b := j.lb
	b.n, b.pos = 0, 0
	b.lrows, b.slots, b.gets = b.lrows[:0], b.slots[:0], b.gets[:0]
	b.mb.reset()
	limit := min(b.size, b.mb.max)
	b.size = min(b.size*2, lookupBatchRows)
	for b.n < limit {
		if err := j.t.tick(); err != nil {
			b.err = err
			break
		}
		row, err := j.left.Next()
		if err != nil {
			b.err = err
			break
		}
		if row == nil {
			b.done = true
			break
		}
		sp, get, _, ok, err := j.probe(row)
		if err != nil {
			b.err = err
			break
		}
		slot := -1
		get = get && ok
		if get {
			slot = b.mb.add(sp.Lo)
		}
		b.lrows = append(b.lrows, row...)
		b.slots = append(b.slots, slot)
		b.gets = append(b.gets, get)
		b.n++
	}
	return b.mb.load(j.rs.reader(), j.masterReader, lookupIterMin)
}

// masterReader returns the join's MasterReader, opening it on first use.
func (j *lookupJoinOp) masterReader() (*index.MasterReader, error) {
	if j.lb.mr == nil {
		m, err := index.NewMasterReader(j.rs.reader(), j.node.Table)
		if err != nil {
			return nil, err
		}
		j.lb.mr = m
	}
	return j.lb.mr, nil
}

func (j *lookupJoinOp) closeBatch() error {
	if j.lb == nil || j.lb.mr == nil {
		return nil
	}
	err := j.lb.mr.Close()
	j.lb.mr = nil
	return err
}
