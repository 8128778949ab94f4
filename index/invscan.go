package index

import (
	"bytes"
	"slices"

	"github.com/kvsql/kvsql/catalog"
	"github.com/kvsql/kvsql/encoding"
	"github.com/kvsql/kvsql/kv"
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
	if err := s.it.Error(); err != nil {
		return err
	}
	s.live = foldRuns(s.ops, s.ends, s.buf, s.live)
	s.pending = s.live
	if s.reverse {
		slices.Reverse(s.pending)
	}
	return nil
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
