package planner

import (
	"errors"

	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/types"
)

var (
	tInterval = types.T{Family: types.Interval}
	tTime     = types.T{Family: types.Time}
)

func isDatetime(f types.Family) bool {
	switch f {
	case types.Date, types.Timestamp, types.TimestampTZ, types.Interval, types.Time:
		return true
	}
	return false
}

func isTimestamp(f types.Family) bool { return f == types.Timestamp || f == types.TimestampTZ }

// datetimeArith types an arithmetic operator with a date, timestamp,
// time or interval operand as PostgreSQL's pg_operator does. An untyped
// literal operand takes the type the operator needs: the other side's
// type for '-' (timestamp - '...' is timestamp - timestamp), an interval
// for '+', float8 for '*' and '/'. ok is false when neither operand is a
// date/time type (the caller's numeric rules apply).
func datetimeArith(op string, l, r Expr) (e Expr, ok bool, err error) {
	lt, rt := l.Type(), r.Type()
	if !isDatetime(lt.Family) && !isDatetime(rt.Family) {
		return nil, false, nil
	}
	if lt.Family == types.Date && (rt.Family == types.Date || isInteger(rt.Family)) {
		return nil, false, nil // date ± int, date - date: the caller's rules
	}
	guess := func(other types.T) types.T {
		switch {
		case op == "*" || op == "/":
			return tFloat8
		case op == "-" && other.Family != types.Date:
			return other
		}
		return tInterval
	}
	if lt.Family == types.Unknown {
		if l, err = coerce(l, guess(rt)); err != nil {
			return nil, true, err
		}
	}
	if rt.Family == types.Unknown {
		if r, err = coerce(r, guess(lt)); err != nil {
			return nil, true, err
		}
	}
	lt, rt = l.Type(), r.Type()
	lf, rf := lt.Family, rt.Family
	var t types.T
	switch {
	case lf == types.Interval && rf == types.Interval && (op == "+" || op == "-"):
		t = tInterval
	case lf == types.Interval && isNumeric(rf) && (op == "*" || op == "/"):
		r, err = coerce(r, tFloat8)
		t = tInterval
	case isNumeric(lf) && rf == types.Interval && op == "*":
		l, err = coerce(l, tFloat8)
		t = tInterval
	case isTimestamp(lf) && rf == types.Interval && (op == "+" || op == "-"):
		t = lt
	case lf == types.Interval && isTimestamp(rf) && op == "+":
		t = rt
	case lf == types.Date && rf == types.Interval && (op == "+" || op == "-"),
		lf == types.Interval && rf == types.Date && op == "+":
		t = tTS
	case (isTimestamp(lf) || lf == types.Date) && (isTimestamp(rf) || rf == types.Date) && op == "-":
		ct := commonType(lt, rt)
		if l, err = coerce(l, ct); err == nil {
			r, err = coerce(r, ct)
		}
		t = tInterval
	case lf == types.Time && rf == types.Interval && (op == "+" || op == "-"),
		lf == types.Interval && rf == types.Time && op == "+":
		t = tTime
	case lf == types.Time && rf == types.Time && op == "-":
		t = tInterval
	case lf == types.TimeTZ && rf == types.Interval && (op == "+" || op == "-"),
		lf == types.Interval && rf == types.TimeTZ && op == "+":
		t = types.T{Family: types.TimeTZ}
	case lf == types.Date && rf == types.Time && op == "+", lf == types.Time && rf == types.Date && op == "+":
		t = tTS
	default:
		return nil, true, pgerror.Newf(pgerror.UndefinedFunction, "operator does not exist: %s %s %s", lt, op, rt)
	}
	if err != nil {
		return nil, true, err
	}
	if c := foldStrict(t, l, r); c != nil {
		return c, true, nil
	}
	return &BinOp{Op: op, L: l, R: r, T: t}, true, nil
}

// dateTimeError is the error for date/time text s of type typ: 22008
// for a field out of range, 22007 otherwise.
func dateTimeError(err error, typ, s string) error {
	if errors.Is(err, types.ErrDateTimeRange) {
		return pgerror.Newf("22008", "date/time field value out of range: %q", s)
	}
	return pgerror.Newf(pgerror.InvalidDatetimeFormat, "invalid input syntax for type %s: %q", typ, s)
}

// ExtractFunc is the call EXTRACT(field FROM x) binds to (the dialect
// layer's parse.MarkerExtract): date_part returning numeric.
const ExtractFunc = "kvsql_extract"

// datetimeCall binds the functions of PostgreSQL's date/time chapter,
// coercing arguments as their pg_proc signatures do. ok is false for
// other names.
func datetimeCall(name string, args []Expr) (e Expr, ok bool, err error) {
	want := func(min int, ts ...types.T) error {
		if len(args) < min || len(args) > len(ts) {
			return pgerror.Newf(pgerror.UndefinedFunction, "function %s with %d arguments does not exist", name, len(args))
		}
		for i := range args {
			if args[i], err = coerce(args[i], ts[i]); err != nil {
				return pgerror.Newf(pgerror.UndefinedFunction, "function %s(%s) does not exist", name, argTypeList(args))
			}
		}
		return nil
	}
	// datetimeArg coerces an untyped literal to fallback and checks that
	// args[i] is a date/time value.
	datetimeArg := func(i int, fallback types.T) error {
		if args[i].Type().Family == types.Unknown {
			if args[i], err = coerce(args[i], fallback); err != nil {
				return err
			}
		}
		if !isDatetime(args[i].Type().Family) {
			return pgerror.Newf(pgerror.UndefinedFunction, "function %s(%s) does not exist", name, argTypeList(args))
		}
		return nil
	}
	var t types.T
	switch name {
	case "pg_sleep":
		err, t = want(1, tFloat8), tText // void: empty text
	case "pg_sleep_for":
		err, t = want(1, tInterval), tText
	case "pg_sleep_until":
		err, t = want(1, tTSTZ), tText
	case "justify_days", "justify_hours", "justify_interval":
		err, t = want(1, tInterval), tInterval
	case "date_part", ExtractFunc:
		if len(args) != 2 {
			return nil, true, pgerror.Newf(pgerror.UndefinedFunction, "function %s with %d arguments does not exist", name, len(args))
		}
		if args[0], err = coerce(args[0], tText); err == nil {
			err = datetimeArg(1, tTSTZ)
		}
		t = types.T{Family: types.Numeric}
		if name == "date_part" {
			t = tFloat8
		}
	case "date_trunc":
		if len(args) < 2 || len(args) > 3 {
			return nil, true, pgerror.Newf(pgerror.UndefinedFunction, "function date_trunc with %d arguments does not exist", len(args))
		}
		if args[0], err = coerce(args[0], tText); err == nil {
			err = datetimeArg(1, tTSTZ)
		}
		if err == nil {
			switch f := args[1].Type().Family; f {
			case types.Date:
				args[1], err = coerce(args[1], tTSTZ)
			case types.Time:
				err = pgerror.New(pgerror.UndefinedFunction, "function date_trunc(unknown, time without time zone) does not exist")
			}
		}
		if err == nil && len(args) == 3 {
			if args[1].Type().Family != types.TimestampTZ {
				err = pgerror.Newf(pgerror.UndefinedFunction, "function date_trunc(%s) does not exist", argTypeList(args))
			} else {
				args[2], err = coerce(args[2], tText)
			}
		}
		if err == nil {
			t = args[1].Type()
		}
	case "age":
		if len(args) < 1 || len(args) > 2 {
			return nil, true, pgerror.Newf(pgerror.UndefinedFunction, "function age with %d arguments does not exist", len(args))
		}
		for i := range args {
			if err = datetimeArg(i, tTSTZ); err != nil {
				break
			}
		}
		if err == nil {
			ct := args[0].Type()
			if len(args) == 2 {
				ct = commonType(args[0].Type(), args[1].Type())
			}
			if ct.Family == types.Date {
				ct = tTS
			}
			if !isTimestamp(ct.Family) {
				err = pgerror.Newf(pgerror.UndefinedFunction, "function age(%s) does not exist", argTypeList(args))
			}
			for i := range args {
				if err == nil {
					args[i], err = coerce(args[i], ct)
				}
			}
		}
		t = tInterval
	case "make_date":
		err, t = want(3, tInt4, tInt4, tInt4), tDate
	case "make_time":
		err, t = want(3, tInt4, tInt4, tFloat8), tTime
	case "make_timestamp":
		err, t = want(6, tInt4, tInt4, tInt4, tInt4, tInt4, tFloat8), tTS
	case "make_timestamptz":
		err, t = want(6, tInt4, tInt4, tInt4, tInt4, tInt4, tFloat8, tText), tTSTZ
	case "make_interval":
		err, t = want(0, tInt4, tInt4, tInt4, tInt4, tInt4, tInt4, tFloat8), tInterval
	case "isfinite":
		err, t = datetimeArg(0, tTSTZ), tBool
		if len(args) != 1 {
			err = pgerror.New(pgerror.UndefinedFunction, "function isfinite needs one argument")
		}
	case "statement_timestamp", "transaction_timestamp", "clock_timestamp":
		err, t = want(0), tTSTZ
	case "timeofday":
		err, t = want(0), tText
	case "to_char":
		if len(args) != 2 {
			return nil, true, pgerror.Newf(pgerror.UndefinedFunction, "function to_char with %d arguments does not exist", len(args))
		}
		if args[0].Type().Family == types.Unknown {
			return nil, true, pgerror.New(pgerror.UndefinedFunction, "function to_char(unknown, unknown) is not unique")
		}
		if f := args[0].Type().Family; !isDatetime(f) && !isNumeric(f) || f == types.Date || f == types.Time {
			if f == types.Date {
				args[0], err = coerce(args[0], tTSTZ)
			} else {
				err = pgerror.Newf(pgerror.UndefinedFunction, "function to_char(%s) does not exist", argTypeList(args))
			}
		}
		if err == nil {
			args[1], err = coerce(args[1], tText)
		}
		t = tText
	case "timezone":
		if len(args) != 2 {
			return nil, true, pgerror.Newf(pgerror.UndefinedFunction, "function timezone with %d arguments does not exist", len(args))
		}
		if err = datetimeArg(1, tTSTZ); err == nil {
			if args[0].Type().Family != types.Interval {
				args[0], err = coerce(args[0], tText)
			}
		}
		if err == nil {
			switch args[1].Type().Family {
			case types.Timestamp:
				t = tTSTZ
			case types.Date:
				args[1], err = coerce(args[1], tTSTZ)
				t = tTS
			case types.TimestampTZ:
				t = tTS
			default:
				err = pgerror.Newf(pgerror.UndefinedFunction, "function timezone(%s) does not exist", argTypeList(args))
			}
		}
	case "to_date":
		err, t = want(2, tText, tText), tDate
	case "to_timestamp":
		if len(args) == 1 {
			err = want(1, tFloat8)
		} else {
			err = want(2, tText, tText)
		}
		t = tTSTZ
	default:
		return nil, false, nil
	}
	if err != nil {
		return nil, true, err
	}
	if c := foldStrict(t, args...); c != nil {
		return c, true, nil
	}
	return &Func{Name: name, Args: args, T: t}, true, nil
}

func argTypeList(args []Expr) string {
	s := ""
	for i, a := range args {
		if i > 0 {
			s += ", "
		}
		s += a.Type().String()
	}
	return s
}

// hasOwnZone reports whether timestamptz text names its instant without
// the session's time zone: an explicit zone or offset, or a special
// value. Text that does not parse reports true, so the error comes at
// plan time.
func hasOwnZone(s string) bool {
	dt, err := types.ParseDateTime(s)
	return err != nil || dt.Zone != nil || dt.Infinite != 0 || dt.Epoch
}

// isRelative reports whether date/time text is 'now', 'today',
// 'tomorrow' or 'yesterday': read at run time, on the session's clock.
func isRelative(s string) bool {
	dt, err := types.ParseDateTime(s)
	return err == nil && dt.Relative != ""
}

// timestampSeries types generate_series(start, stop, step) over
// timestamps: timestamp bounds give timestamps, timestamptz or date
// bounds timestamptz (as PostgreSQL resolves them), and the step is an
// interval. ok is false when no bound is a date/time value.
func timestampSeries(args []Expr) (t types.T, ok bool, err error) {
	var bound types.T
	for _, a := range args[:2] {
		switch f := a.Type().Family; {
		case f == types.Timestamp && bound.Family != types.TimestampTZ:
			bound = tTS
		case f == types.TimestampTZ, f == types.Date:
			bound = tTSTZ
		case f == types.Unknown:
		default:
			if isDatetime(f) {
				return t, true, pgerror.Newf(pgerror.UndefinedFunction, "function generate_series(%s) does not exist", argTypeList(args[:2]))
			}
		}
	}
	if bound.Family == types.Unknown {
		if args[2] == nil || args[2].Type().Family != types.Interval {
			return t, false, nil
		}
		bound = tTSTZ
	}
	if args[2] == nil {
		return t, true, pgerror.Newf(pgerror.UndefinedFunction, "function generate_series(%s) does not exist", argTypeList(args[:2]))
	}
	for i := range args[:2] {
		if args[i], err = coerce(args[i], bound); err != nil {
			return t, true, err
		}
	}
	if args[2], err = coerce(args[2], tInterval); err != nil {
		return t, true, err
	}
	return bound, true, nil
}

// withPrecision is t with a fractional-seconds precision p (timestamp(p),
// time(p)): kept as Scale = p + 1, 0 meaning none; above 6 is 6, as
// PostgreSQL reduces it (with a warning).
func withPrecision(t types.T, p *int) (types.T, error) {
	if p == nil {
		return t, nil
	}
	if *p < 0 {
		return types.T{}, pgerror.Newf(pgerror.InvalidParameterValue, "TIMESTAMP(%d) precision must not be negative", *p)
	}
	t.Scale = int32(min(*p, 6)) + 1
	return t, nil
}
