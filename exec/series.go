package exec

import (
	"strings"
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
	// A series of numerics: the values are in row[0], the step in
	// numStep, the sign of the step in numSign.
	isNum   bool
	numStop types.Datum
	numStep types.Datum
	numSign int
	// A series of timestamps: ivStep is added on the calendar of loc.
	isTime bool
	ivStep types.IntervalValue
	loc    *time.Location
	row    [1]types.Datum
}

var _ Operator = (*seriesOp)(nil)

func (s *seriesOp) open() error {
	if s.node.Cols[0].T.Family == types.Numeric {
		return s.openNumeric()
	}
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
	if s.isNum {
		return s.nextNumeric()
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

// openNumeric evaluates a numeric series' bounds: PostgreSQL refuses NaN,
// infinities and a zero step.
func (s *seriesOp) openNumeric() error {
	var vals [3]types.Datum
	for i, e := range []planner.Expr{s.node.Start, s.node.Stop, s.node.Step} {
		d, err := eval.Eval(s.env, e, nil)
		if err != nil {
			return err
		}
		if d.IsNull() {
			s.done = true
			return nil
		}
		vals[i] = d
	}
	sign, err := eval.NumericSeriesArgs(vals[0], vals[1], vals[2])
	if err != nil {
		return err
	}
	s.isNum, s.numSign = true, sign
	s.row[0], s.numStop, s.numStep = vals[0], vals[1], vals[2]
	// The values carry the larger of start's and step's scales, as
	// PostgreSQL's do: adding a zero of the step's scale gives it.
	zero, err := eval.DecimalMul(vals[2], types.NewInt(0))
	if err != nil {
		return err
	}
	s.row[0], err = eval.DecimalAdd(vals[0], zero)
	return err
}

func (s *seriesOp) nextNumeric() ([]types.Datum, error) {
	if s.done || eval.DecimalCmp(s.row[0], s.numStop)*s.numSign > 0 {
		return nil, nil
	}
	if s.n++; s.n%1024 == 0 {
		if err := s.rs.canceled(); err != nil {
			return nil, err
		}
	}
	out := s.row
	next, err := eval.DecimalAdd(s.row[0], s.numStep)
	if err != nil {
		s.done = true // past NUMERIC's range
	} else {
		s.row[0] = next
	}
	return out[:], nil
}

const (
	maxInt64 = 1<<63 - 1
	minInt64 = -1 << 63
)

// tableFuncOp produces the rows of a planner.TableFunc: it evaluates
// the arguments when it opens and computes the function's rows (a NULL
// argument gives none).
type tableFuncOp struct {
	rs     *runState
	env    *eval.Env
	node   *planner.TableFunc
	opened bool
	rows   [][]types.Datum
	i      int
	row    []types.Datum
}

var _ Operator = (*tableFuncOp)(nil)

func (u *tableFuncOp) open() error {
	u.opened = true
	if _, ok := planner.RoutineName(u.node.Name); ok {
		return u.openRoutine()
	}
	if strings.Contains(u.node.Name, "_populate_record") {
		return u.openPopulate()
	}
	if u.node.Name == "unnest" && len(u.node.Args) > 1 {
		return u.openZip()
	}
	args := make([]types.Datum, len(u.node.Args))
	for i, a := range u.node.Args {
		d, err := eval.Eval(u.env, a, nil)
		if err != nil || d.IsNull() {
			return err // strict: a NULL argument gives no rows
		}
		args[i] = d
	}
	d := args[0]
	if strings.Contains(u.node.Name, "_to_record") {
		cols := u.node.Cols
		if u.node.Ordinality {
			cols = cols[:len(cols)-1]
		}
		var err error
		u.rows, err = eval.JSONRecordRows(u.node.Name, d, cols)
		return err
	}
	if u.node.Name != "unnest" {
		var err error
		u.rows, err = eval.JSONTableRows(u.node.Name, args)
		return err
	}
	elems, err := types.ArrayElems(nil, d)
	if err != nil {
		return pgerror.New(pgerror.DataCorrupted, "malformed array value")
	}
	u.rows = make([][]types.Datum, len(elems))
	for i := range elems {
		u.rows[i] = elems[i : i+1 : i+1]
	}
	return nil
}

// openZip computes unnest(a, b, ...): the arrays' elements side by side,
// as many rows as the longest has elements, the others padded with NULLs;
// a NULL array has none.
func (u *tableFuncOp) openZip() error {
	cols := make([][]types.Datum, len(u.node.Args))
	n := 0
	for i, a := range u.node.Args {
		d, err := eval.Eval(u.env, a, nil)
		if err != nil {
			return err
		}
		if d.IsNull() {
			continue
		}
		if cols[i], err = types.ArrayElems(nil, d); err != nil {
			return pgerror.New(pgerror.DataCorrupted, "malformed array value")
		}
		n = max(n, len(cols[i]))
	}
	u.rows = make([][]types.Datum, n)
	for r := range u.rows {
		row := make([]types.Datum, len(cols))
		for i, c := range cols {
			if r < len(c) {
				row[i] = c[r]
			}
		}
		u.rows[r] = row
	}
	return nil
}

func (u *tableFuncOp) Next() ([]types.Datum, error) {
	if !u.opened {
		if err := u.open(); err != nil {
			return nil, err
		}
	}
	if u.i >= len(u.rows) {
		return nil, nil
	}
	if u.i++; u.i%1024 == 0 {
		if err := u.rs.canceled(); err != nil {
			return nil, err
		}
	}
	r := u.rows[u.i-1]
	if !u.node.Ordinality {
		return r, nil
	}
	u.row = append(append(u.row[:0], r...), types.NewInt(int64(u.i)))
	return u.row, nil
}

func (u *tableFuncOp) Close() error { return nil }

// openRoutine computes the rows of a user-defined function in FROM.
func (u *tableFuncOp) openRoutine() error {
	if u.env.Routines == nil {
		return pgerror.Newf(pgerror.FeatureNotSupported, "function %s cannot be called here", u.node.Name)
	}
	argTypes, args, err := eval.RoutineArgs(u.env, u.node.Args, nil)
	if err != nil {
		return err
	}
	cols := make([]types.T, len(u.node.Cols))
	for i, c := range u.node.Cols {
		cols[i] = c.T
	}
	if u.node.Ordinality {
		cols = cols[:len(cols)-1]
	}
	u.rows, err = u.env.Routines.Rows(planner.RoutineID(u.node.Args), argTypes, args, cols)
	return err
}

// openPopulate computes jsonb_populate_record[set]: Args are the
// document and the base record, whose fields stand in for the members
// the document lacks; a NULL document gives the base itself (one row;
// none for a recordset). Each column of a domain type is checked.
func (u *tableFuncOp) openPopulate() error {
	doc, err := eval.Eval(u.env, u.node.Args[0], nil)
	if err != nil {
		return err
	}
	base, err := eval.Eval(u.env, u.node.Args[1], nil)
	if err != nil {
		return err
	}
	cols := u.node.Cols
	if u.node.Ordinality {
		cols = cols[:len(cols)-1]
	}
	if u.node.AsRecord {
		cols = eval.FieldColumns(cols[0].T)
	}
	defaults := make([]types.Datum, len(cols))
	if !base.IsNull() {
		fields, err := types.RecordFields(nil, base)
		if err != nil {
			return pgerror.New(pgerror.DataCorrupted, "malformed record value")
		}
		copy(defaults, fields)
	}
	if doc.IsNull() {
		if !strings.HasSuffix(u.node.Name, "recordset") {
			u.rows = [][]types.Datum{defaults}
			if u.node.AsRecord {
				u.rows[0] = []types.Datum{base}
			}
		}
		return nil
	}
	if u.rows, err = eval.JSONPopulateRows(u.node.Name, doc, cols, defaults); err != nil {
		return err
	}
	for r, row := range u.rows {
		for i, dom := range u.node.Domains {
			if dom != nil && i < len(row) {
				if err := eval.CheckDomainValue(u.env, dom, row[i]); err != nil {
					return err
				}
			}
		}
		if u.node.RecordDomain != nil {
			if err := eval.CheckDomainValue(u.env, u.node.RecordDomain, types.NewRecord(row)); err != nil {
				return err
			}
		}
		if u.node.AsRecord {
			u.rows[r] = []types.Datum{types.NewRecord(row)}
		}
	}
	return nil
}
