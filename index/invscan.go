package index

import (
	"bytes"
	"math"
	"slices"

	"github.com/kvsql/kvsql/catalog"
	"github.com/kvsql/kvsql/encoding"
	"github.com/kvsql/kvsql/kv"
	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/types"
)

// invIter scans an inverted-list index: it gathers the chunks of one
// search value, folds their op logs together and yields the live pks in
// order. The chunks' values are copied into one buffer that is reused
// from one search value to the next, and the fold sorts parsed ops in
// place (no per-pk allocation): the only allocations per search value
// are its decoded indexed values, and the buffers' growth.
type invIter struct {
	it      kv.Iterator
	reverse bool
	started bool
	t       *catalog.Table
	idx     *catalog.Index
	row     []types.Datum
	vals    []types.Datum // the current search value's indexed values
	prefix  []byte        // the current search value's key: space + values
	buf     []byte        // the op logs of the current search value's chunks
	ops     []logOp       // the ops parsed from buf
	ends    []int         // the end in ops of each chunk's ops
	live    []logOp       // the fold's output buffer
	pending []logOp       // live pks in buf not yet returned, in output order
	valid   bool          // it is positioned at an unread chunk
	err     error
}

var _ RowIter = (*invIter)(nil)

func (s *invIter) step() bool {
	switch {
	case !s.started && !s.reverse:
		s.started = true
		return s.it.First()
	case !s.started:
		s.started = true
		return s.it.Last()
	case s.reverse:
		return s.it.Prev()
	}
	return s.it.Next()
}

// load folds every chunk of the search value at the iterator's position
// into pending.
func (s *invIter) load() error {
	if err := s.gather(); err != nil {
		return err
	}
	s.live = foldRuns(s.ops, s.ends, s.buf, s.live)
	s.pending = s.live
	if s.reverse {
		slices.Reverse(s.pending)
	}
	return nil
}

// gather parses the op logs of every chunk of the search value at the
// iterator's position into ops (each chunk's ops ending at its ends
// entry), copied into buf, and leaves the iterator past them.
func (s *invIter) gather() error {
	key := s.it.Key()
	rest, _, err := encoding.DecodeUvarintAsc(key)
	if err != nil {
		return err
	}
	valBytes, _, err := splitAfter(rest, len(s.idx.Columns))
	if err != nil {
		return err
	}
	s.prefix = append(s.prefix[:0], key[:len(key)-len(rest)+len(valBytes)]...)
	if s.vals == nil {
		s.vals = make([]types.Datum, len(s.idx.Columns))
	}
	if _, err := decodeN(valBytes, len(s.vals), s.vals); err != nil {
		return err
	}
	s.buf, s.ops, s.ends = s.buf[:0], s.ops[:0], s.ends[:0]
	for {
		base := len(s.buf)
		s.buf = append(s.buf, s.it.Value()...)
		if s.ops, err = parseOps(s.ops, s.buf, base); err != nil {
			return err
		}
		s.ends = append(s.ends, len(s.ops))
		if s.valid = s.step(); !s.valid || !bytes.HasPrefix(s.it.Key(), s.prefix) {
			break
		}
	}
	return s.it.Error()
}

func (s *invIter) Next() bool {
	if s.err != nil {
		return false
	}
	for len(s.pending) == 0 {
		if !s.started {
			s.valid = s.step()
		}
		if !s.valid {
			s.err = s.it.Error()
			return false
		}
		if s.err = s.load(); s.err != nil {
			return false
		}
	}
	o := s.pending[0]
	s.pending = s.pending[1:]
	for i := range s.row {
		s.row[i] = types.Null
	}
	for i, c := range s.idx.Columns {
		s.row[c] = s.vals[i]
	}
	if s.err = decodePKInto(s.t, s.buf[o.off:o.off+o.n], s.row); s.err != nil {
		return false
	}
	return true
}

func (s *invIter) Row() []types.Datum { return s.row }
func (s *invIter) Err() error         { return s.err }
func (s *invIter) Close() error       { return s.it.Close() }

// InvertedList is what an inverted-list index holds for the search values
// of a span: the primary keys of their live rows (key encoding, as
// EntryPK's), in the order a scan of the span yields them — search
// values ascending, each value's keys ascending — and the indexed values
// of each key's search value.
type InvertedList struct {
	buf    []byte          // the keys, one after another
	ends   []int32         // key i ends at ends[i] in buf
	vals   [][]types.Datum // the search values
	starts []int           // the keys of vals[j] start at key starts[j]
}

// Len is the number of keys in l.
func (l *InvertedList) Len() int { return len(l.ends) }

// PK returns key i.
func (l *InvertedList) PK(i int) []byte {
	start := int32(0)
	if i > 0 {
		start = l.ends[i-1]
	}
	return l.buf[start:l.ends[i]:l.ends[i]]
}

// Value returns the search value, one Datum per indexed column, of key i.
func (l *InvertedList) Value(i int) []types.Datum {
	j, _ := slices.BinarySearch(l.starts, i+1) // the first value starting after i
	return l.vals[j-1]
}

// ReadInvertedList folds the chunks of every search value of inverted
// index idx of t in sp, forward, and appends their live primary keys to
// l.
func ReadInvertedList(r kv.Reader, t *catalog.Table, idx *catalog.Index, sp Span, l *InvertedList) error {
	lo, hi := spanBounds(idx.ID, sp, idx.Desc)
	it, err := r.NewIter(kv.IterOptions{LowerBound: lo, UpperBound: hi})
	if err != nil {
		return err
	}
	s := &invIter{it: it, t: t, idx: idx}
	defer s.Close()
	s.valid = s.step()
	for s.valid {
		s.vals = nil // each search value its own
		if err := s.load(); err != nil {
			return err
		}
		if len(s.pending) == 0 {
			continue
		}
		if len(s.buf) > math.MaxInt32-len(l.buf) {
			return pgerror.Newf(pgerror.ProgramLimitExceeded, "index: inverted lists of %d bytes are too long", len(s.buf)+len(l.buf))
		}
		l.vals, l.starts = append(l.vals, s.vals), append(l.starts, len(l.ends))
		l.buf = slices.Grow(l.buf, len(s.buf))
		l.ends = slices.Grow(l.ends, len(s.pending))
		for _, o := range s.pending {
			l.buf = append(l.buf, s.buf[o.off:o.off+o.n]...)
			l.ends = append(l.ends, int32(len(l.buf)))
		}
	}
	return s.it.Error()
}
