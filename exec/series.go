package exec

import (
	"time"

	"github.com/kvsql/kvsql/exec/eval"
	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/planner"
	"github.com/kvsql/kvsql/types"
)

// seriesOp produces the integers of a planner.Series.
type seriesOp struct {
	rs         *runState
	env        *eval.Env
	node       *planner.Series
	opened     bool
	done       bool
	next, stop int64
	step       int64
	n          int
	// A series of timestamps: ivStep is added on the calendar of loc.
	isTime bool
	ivStep types.IntervalValue
	loc    *time.Location
	row    [1]types.Datum
}

var _ Operator = (*seriesOp)(nil)

func (s *seriesOp) open() error {
	var vals [3]int64
	for i, e := range []planner.Expr{s.node.Start, s.node.Stop, s.node.Step} {
		d, err := eval.Eval(s.env, e, nil)
		if err != nil {
			return err
		}
		if d.IsNull() {
			s.done = true // PostgreSQL: a NULL bound gives no rows
			return nil
		}
		vals[i] = d.I
		if d.Kind == types.KindInterval {
			s.isTime, s.ivStep = true, d.Interval()
			vals[i] = int64(s.ivStep.Cmp(types.IntervalValue{}))
		}
	}
	if vals[2] == 0 {
		return pgerror.New(pgerror.InvalidParameterValue, "step size cannot equal zero")
	}
	s.next, s.stop, s.step = vals[0], vals[1], vals[2]
	s.loc = time.UTC
	if s.node.Cols[0].T.Family == types.TimestampTZ && s.env.Loc != nil {
		s.loc = s.env.Loc
	}
	return nil
}

func (s *seriesOp) Next() ([]types.Datum, error) {
	if !s.opened {
		s.opened = true
		if err := s.open(); err != nil {
			return nil, err
		}
	}
	if s.done || (s.step > 0 && s.next > s.stop) || (s.step < 0 && s.next < s.stop) {
		return nil, nil
	}
	if s.n++; s.n%1024 == 0 {
		if err := s.rs.canceled(); err != nil {
			return nil, err
		}
	}
	if s.isTime {
		s.row[0] = types.NewTimestamp(s.next)
		d, err := eval.AddInterval(s.next, s.ivStep, s.loc)
		if err != nil {
			s.done = true // past the end of the timestamp range
		} else {
			s.next = d.I
		}
		return s.row[:], nil
	}
	s.row[0] = types.NewInt(s.next)
	// Stop before the value would overflow.
	if (s.step > 0 && s.next > maxInt64-s.step) || (s.step < 0 && s.next < minInt64-s.step) {
		s.done = true
	} else {
		s.next += s.step
	}
	return s.row[:], nil
}

func (s *seriesOp) Close() error { return nil }

const (
	maxInt64 = 1<<63 - 1
	minInt64 = -1 << 63
)

// unnestOp produces the elements of a planner.Unnest's array.
type unnestOp struct {
	rs     *runState
	env    *eval.Env
	node   *planner.Unnest
	opened bool
	elems  []types.Datum
	i      int
	row    [2]types.Datum
}

var _ Operator = (*unnestOp)(nil)

func (u *unnestOp) Next() ([]types.Datum, error) {
	if !u.opened {
		u.opened = true
		d, err := eval.Eval(u.env, u.node.Array, nil)
		if err != nil {
			return nil, err
		}
		if !d.IsNull() {
			if u.elems, err = types.ArrayElems(nil, d); err != nil {
				return nil, pgerror.New(pgerror.DataCorrupted, "malformed array value")
			}
		}
	}
	if u.i >= len(u.elems) {
		return nil, nil
	}
	if u.i++; u.i%1024 == 0 {
		if err := u.rs.canceled(); err != nil {
			return nil, err
		}
	}
	u.row[0] = u.elems[u.i-1]
	if u.node.Ordinality {
		u.row[1] = types.NewInt(int64(u.i))
		return u.row[:2], nil
	}
	return u.row[:1], nil
}

func (u *unnestOp) Close() error { return nil }
