package eval

import (
	"errors"
	"time"

	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/types"
)

// codeInvalidTimeZoneDisplacement is 22009 invalid_time_zone_displacement_value.
const codeInvalidTimeZoneDisplacement pgerror.Code = "22009"

// castTimeTZ runs the casts to and from time with time zone: text in
// (types.ParseTimeTZ, the session's zone when the text names none) and
// out, timetz to time (the time of day, zone dropped), time to timetz
// (in the session's zone today), timestamptz to timetz (the wall time
// and offset in the session's zone). ok is false for the casts it does
// not handle (to text: FormatText knows timetz).
func castTimeTZ(d types.Datum, from, to types.T, loc *time.Location) (types.Datum, bool, error) {
	if from.Family == types.TimeTZ {
		v, valid := types.TimeTZOf(d)
		if !valid {
			return types.Null, false, nil
		}
		switch to.Family {
		case types.TimeTZ:
			return d, true, nil
		case types.Time:
			return types.NewTime(v.Micros), true, nil
		}
		return types.Null, false, nil
	}
	switch {
	case d.Kind == types.KindText:
		v, err := types.ParseTimeTZ(d.S, loc)
		switch {
		case errors.Is(err, types.ErrTimeRange):
			return types.Null, true, pgerror.Newf(codeDatetimeFieldOverflow, "date/time field value out of range: %q", d.S)
		case errors.Is(err, types.ErrZoneDisplacement):
			return types.Null, true, pgerror.Newf(codeInvalidTimeZoneDisplacement, "time zone displacement out of range: %q", d.S)
		case err != nil:
			return types.Null, true, pgerror.Newf(pgerror.InvalidDatetimeFormat, "invalid input syntax for type time with time zone: %q", d.S)
		}
		return types.NewTimeTZ(v), true, nil
	case d.Kind == types.KindTime:
		_, off := types.Now().In(loc).Zone()
		return types.NewTimeTZ(types.TimeTZValue{Micros: d.I, Offset: off}), true, nil
	case d.Kind == types.KindTimestamp && from.Family == types.TimestampTZ:
		if d.I == types.TimestampInfinity || d.I == types.TimestampNegInfinity {
			return types.Null, true, pgerror.New(codeDatetimeFieldOverflow, "timestamp out of range")
		}
		t := time.UnixMicro(d.I).In(loc)
		_, off := t.Zone()
		w := wallMicros(d.I, loc)
		return types.NewTimeTZ(types.TimeTZValue{Micros: w - floorDiv(w, microsPerDay)*microsPerDay, Offset: off}), true, nil
	}
	return types.Null, true, cannotCast(from, to)
}

// timeTZArith is timetz + interval, interval + timetz and timetz -
// interval: the interval's time part moves the time of day around the
// clock (months and days do nothing), the zone stays.
func timeTZArith(op string, l, r types.Datum) (types.Datum, error) {
	tz, iv := l, r
	if l.Kind == types.KindInterval {
		tz, iv = r, l
	}
	v, ok := types.TimeTZOf(tz)
	if !ok || iv.Kind != types.KindInterval {
		return types.Null, pgerror.Newf(pgerror.UndefinedFunction, "operator does not exist: %s %s %s", l.Kind, op, r.Kind)
	}
	sign := int64(1)
	if op == "-" {
		sign = -1
	}
	t := timeAddInterval(v.Micros, iv.Interval(), sign)
	return types.NewTimeTZ(types.TimeTZValue{Micros: t.I, Offset: v.Offset}), nil
}
