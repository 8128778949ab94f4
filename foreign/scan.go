package foreign

import (
	"bytes"
	"sort"

	"github.com/kvsql/kvsql/types"
)

// Range is a key range [Lo, Hi); a nil Hi is unbounded.
type Range struct{ Lo, Hi []byte }

// Scanner produces a table's rows from the keys of some ranges, in key
// order. A key whose literals differ from the template's belongs to
// something else and is passed over; a key or value that matches the
// template but does not decode is skipped and counted (Malformed).
type Scanner struct {
	l      *Layout
	st     Store
	ranges []Range
	ri     int
	it     Iter
	err    error

	// ShapeAttribute: the row being assembled, its key bytes and
	// whether any of its attributes was read.
	cur     []types.Datum
	curKey  []byte
	curSeen bool

	// Keys counts the keys read; Malformed those skipped as malformed.
	Keys, Malformed int64
}

// NewScanner returns a scanner of l's rows in the given ranges (sorted
// and merged here, so a key is read once however the ranges overlap).
func (l *Layout) NewScanner(st Store, ranges []Range) *Scanner {
	return &Scanner{l: l, st: st, ranges: mergeRanges(ranges)}
}

func mergeRanges(rs []Range) []Range {
	sort.Slice(rs, func(i, j int) bool { return bytes.Compare(rs[i].Lo, rs[j].Lo) < 0 })
	var out []Range
	for _, r := range rs {
		if n := len(out); n > 0 {
			last := &out[n-1]
			if last.Hi == nil {
				continue
			}
			if bytes.Compare(r.Lo, last.Hi) <= 0 {
				if r.Hi == nil || bytes.Compare(r.Hi, last.Hi) > 0 {
					last.Hi = r.Hi
				}
				continue
			}
		}
		out = append(out, r)
	}
	return out
}

// Next returns the next row, full width in column order, or nil at the
// end. The slice is the caller's.
func (s *Scanner) Next() ([]types.Datum, error) {
	for {
		if s.err != nil {
			return nil, s.err
		}
		if s.it == nil {
			if s.ri >= len(s.ranges) {
				return s.flush(), nil
			}
			r := s.ranges[s.ri]
			s.ri++
			it, err := s.st.NewIter(r.Lo, r.Hi)
			if err != nil {
				s.err = err
				return nil, err
			}
			s.it = it
			if !it.First() {
				if err := s.closeIter(); err != nil {
					return nil, err
				}
				continue
			}
		} else if !s.it.Next() {
			if err := s.closeIter(); err != nil {
				return nil, err
			}
			continue
		}
		if row := s.step(s.it.Key(), s.it.Value()); row != nil {
			return row, nil
		}
	}
}

func (s *Scanner) closeIter() error {
	err := s.it.Error()
	if cerr := s.it.Close(); err == nil {
		err = cerr
	}
	s.it = nil
	if err != nil {
		s.err = err
	}
	return err
}

// flush returns the attribute row being assembled, if any.
func (s *Scanner) flush() []types.Datum {
	if !s.curSeen {
		return nil
	}
	row := s.cur
	s.cur, s.curKey, s.curSeen = nil, nil, false
	return row
}

// step reads one key; it returns a row when one is complete.
func (s *Scanner) step(key, value []byte) []types.Datum {
	s.Keys++
	n := len(s.l.Fields)
	if s.l.Shape != ShapeAttribute {
		row := make([]types.Datum, n)
		res, _, _ := s.l.matchKey(key, row)
		switch res {
		case keyOther:
			return nil
		case keyMalformed:
			s.Malformed++
			return nil
		}
		if s.l.Shape == ShapeRow {
			if err := s.l.decodeValue(value, row); err != nil {
				s.Malformed++
				return nil
			}
		}
		return row
	}
	var out []types.Datum
	if s.curKey != nil && !bytes.HasPrefix(key, s.curKey) {
		out = s.flush()
	}
	var row []types.Datum
	if s.curKey != nil {
		row = s.cur
	} else {
		row = make([]types.Datum, n)
	}
	res, rowEnd, attr := s.l.matchKey(key, row)
	switch res {
	case keyOther:
		return out
	case keyMalformed:
		s.Malformed++
		return out
	}
	col, ok := s.l.compiled().attrs[string(attr)]
	if !ok {
		return out // an attribute the table does not read
	}
	if s.curKey == nil {
		s.cur, s.curKey = row, append([]byte{}, key[:rowEnd]...)
	}
	f := &s.l.Fields[col]
	d, err := f.Encoding.decode(value, f.Type, false)
	if err != nil {
		s.Malformed++
		return out
	}
	row[col] = d
	s.curSeen = true
	return out
}

// Close releases the scanner's iterator.
func (s *Scanner) Close() error {
	if s.it != nil {
		return s.closeIter()
	}
	return nil
}
