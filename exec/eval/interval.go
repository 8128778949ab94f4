package eval

import (
	"math"
	"time"

	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/types"
)

// Interval and date/time arithmetic, as PostgreSQL's timestamp.c and
// date.c do it: months are added on the calendar (clamped to the month's
// last day: '2020-01-31' + '1 mon' is '2020-02-29'), then days on the
// calendar, then microseconds; timestamp - timestamp is an interval of
// days and time (justify_hours), never of months.

// minTimestampMicros is the start of PostgreSQL's timestamp range,
// 4714-11-24 00:00:00 BC (Julian day 0), in microseconds since
// 1970-01-01. Its end (294277 AD) lies beyond int64 microseconds since
// 1970, so there overflow checks bound it (at 294247 AD).
const minTimestampMicros = -211813488000000000

func intervalOutOfRange() error {
	return pgerror.New(codeDatetimeFieldOverflow, "interval out of range")
}

func timestampOutOfRange() error {
	return pgerror.New(codeDatetimeFieldOverflow, "timestamp out of range")
}

// checkTimestamp returns us as a timestamp datum, or 22008 when it is
// outside PostgreSQL's range.
func checkTimestamp(us int64) (types.Datum, error) {
	if us < minTimestampMicros {
		return types.Null, timestampOutOfRange()
	}
	return types.NewTimestamp(us), nil
}

// addInt64 adds with an overflow flag.
func addInt64(a, b int64) (int64, bool) {
	s := a + b
	return s, (s > a) == (b > 0)
}

// intervalAdd is a + sign*b, field by field.
func intervalAdd(a, b types.IntervalValue, sign int64) (types.IntervalValue, error) {
	m := int64(a.Months) + sign*int64(b.Months)
	d := int64(a.Days) + sign*int64(b.Days)
	if b.Micros == math.MinInt64 && sign < 0 {
		return types.IntervalValue{}, intervalOutOfRange()
	}
	us, ok := addInt64(a.Micros, sign*b.Micros)
	if !ok || m != int64(int32(m)) || d != int64(int32(d)) {
		return types.IntervalValue{}, intervalOutOfRange()
	}
	return types.IntervalValue{Months: int32(m), Days: int32(d), Micros: us}, nil
}

// intervalNeg is -iv (interval_um).
func intervalNeg(iv types.IntervalValue) (types.IntervalValue, error) {
	return intervalAdd(types.IntervalValue{}, iv, -1)
}

// tsround rounds to microsecond precision as PostgreSQL's TSROUND.
func tsround(x float64) float64 { return math.RoundToEven(x*1e6) / 1e6 }

// intervalMul is interval_mul: each field scaled, the fractions of
// months cascading into days (30 a month) and of days into seconds.
func intervalMul(iv types.IntervalValue, f float64) (types.IntervalValue, error) {
	if math.IsNaN(f) {
		return types.IntervalValue{}, intervalOutOfRange()
	}
	md := float64(iv.Months) * f
	dd := float64(iv.Days) * f
	if md < math.MinInt32 || md > math.MaxInt32 || dd < math.MinInt32 || dd > math.MaxInt32 {
		return types.IntervalValue{}, intervalOutOfRange()
	}
	return intervalScale(iv, md, dd, float64(iv.Micros)*f)
}

// intervalDiv is interval_div.
func intervalDiv(iv types.IntervalValue, f float64) (types.IntervalValue, error) {
	if f == 0 {
		return types.IntervalValue{}, divisionByZero()
	}
	if math.IsNaN(f) {
		return types.IntervalValue{}, intervalOutOfRange()
	}
	return intervalScale(iv, float64(iv.Months)/f, float64(iv.Days)/f, float64(iv.Micros)/f)
}

// intervalScale finishes interval_mul/interval_div from the scaled
// fields md (months), dd (days) and ud (microseconds).
func intervalScale(iv types.IntervalValue, md, dd, ud float64) (types.IntervalValue, error) {
	if !(md >= math.MinInt32 && md <= math.MaxInt32 && dd >= math.MinInt32 && dd <= math.MaxInt32) {
		return types.IntervalValue{}, intervalOutOfRange()
	}
	months := int32(md)
	days := int32(dd)
	monthRemDays := tsround((md - float64(months)) * 30)
	secRem := tsround((dd - float64(days) + monthRemDays - math.Trunc(monthRemDays)) * 86400)
	if math.Abs(secRem) >= 86400 {
		days += int32(secRem / 86400)
		secRem -= math.Trunc(secRem/86400) * 86400
	}
	if d := int64(days) + int64(monthRemDays); d != int64(int32(d)) {
		return types.IntervalValue{}, intervalOutOfRange()
	}
	days += int32(monthRemDays)
	us := math.RoundToEven(ud + secRem*1e6)
	if math.IsNaN(us) || us < math.MinInt64 || us >= math.MaxInt64 {
		return types.IntervalValue{}, intervalOutOfRange()
	}
	return types.IntervalValue{Months: months, Days: days, Micros: int64(us)}, nil
}

// timestampAddInterval is timestamp_pl_interval (timestamptz_pl_interval
// when loc is the session zone): months on the calendar with the day
// clamped to the month's end, days on the calendar, then microseconds.
func timestampAddInterval(us int64, iv types.IntervalValue, loc *time.Location) (types.Datum, error) {
	if iv.Months != 0 || iv.Days != 0 {
		t := time.UnixMicro(us).In(loc)
		y, m, d := t.Date()
		if iv.Months != 0 {
			mon := int64(m) - 1 + int64(iv.Months)
			yy := int64(y) + floorDiv(mon, 12)
			mon -= floorDiv(mon, 12) * 12
			if yy < -4800 || yy > 300000 {
				return types.Null, timestampOutOfRange()
			}
			y, m = int(yy), time.Month(mon+1)
			if last := daysIn(y, m); d > last {
				d = last
			}
		}
		d += int(iv.Days)
		t = time.Date(y, m, d, t.Hour(), t.Minute(), t.Second(), t.Nanosecond(), loc)
		if y := t.Year(); y < -4800 || y > 300000 {
			return types.Null, timestampOutOfRange()
		}
		us = t.UnixMicro()
	}
	r, ok := addInt64(us, iv.Micros)
	if !ok {
		return types.Null, timestampOutOfRange()
	}
	return checkTimestamp(r)
}

// daysIn is the number of days of month m of year y.
func daysIn(y int, m time.Month) int {
	return time.Date(y, m+1, 0, 0, 0, 0, 0, time.UTC).Day()
}

// timestampDiff is timestamp_mi: the difference as days and time
// (justify_hours of the microseconds).
func timestampDiff(a, b int64) (types.Datum, error) {
	d, ok := addInt64(a, -b)
	if !ok || b == math.MinInt64 {
		return types.Null, intervalOutOfRange()
	}
	iv, err := justifyHours(types.IntervalValue{Micros: d})
	if err != nil {
		return types.Null, err
	}
	return types.NewInterval(iv), nil
}

// justifyHours moves whole 24-hour periods of the time into days, the
// time keeping the days' sign.
func justifyHours(iv types.IntervalValue) (types.IntervalValue, error) {
	whole := iv.Micros / microsPerDay
	iv.Micros -= whole * microsPerDay
	d := int64(iv.Days) + whole
	switch {
	case d > 0 && iv.Micros < 0:
		iv.Micros += microsPerDay
		d--
	case d < 0 && iv.Micros > 0:
		iv.Micros -= microsPerDay
		d++
	}
	if d != int64(int32(d)) {
		return iv, intervalOutOfRange()
	}
	iv.Days = int32(d)
	return iv, nil
}

// justifyDays moves whole 30-day periods into months.
func justifyDays(iv types.IntervalValue) (types.IntervalValue, error) {
	whole := iv.Days / 30
	iv.Days -= whole * 30
	m := int64(iv.Months) + int64(whole)
	switch {
	case m > 0 && iv.Days < 0:
		iv.Days += 30
		m--
	case m < 0 && iv.Days > 0:
		iv.Days -= 30
		m++
	}
	if m != int64(int32(m)) {
		return iv, intervalOutOfRange()
	}
	iv.Months = int32(m)
	return iv, nil
}

// justifyInterval is justify_interval: both, with one sign throughout.
func justifyInterval(iv types.IntervalValue) (types.IntervalValue, error) {
	whole := iv.Micros / microsPerDay
	iv.Micros -= whole * microsPerDay
	d := int64(iv.Days) + whole
	wm := d / 30
	d -= wm * 30
	m := int64(iv.Months) + wm
	switch {
	case m > 0 && (d < 0 || d == 0 && iv.Micros < 0):
		d += 30
		m--
	case m < 0 && (d > 0 || d == 0 && iv.Micros > 0):
		d -= 30
		m++
	}
	switch {
	case d > 0 && iv.Micros < 0:
		iv.Micros += microsPerDay
		d--
	case d < 0 && iv.Micros > 0:
		iv.Micros -= microsPerDay
		d++
	}
	if m != int64(int32(m)) || d != int64(int32(d)) {
		return iv, intervalOutOfRange()
	}
	iv.Months, iv.Days = int32(m), int32(d)
	return iv, nil
}

// timeAddInterval is time_pl_interval: the time of day wraps around
// midnight.
func timeAddInterval(t int64, iv types.IntervalValue, sign int64) types.Datum {
	r := (t + sign*(iv.Micros%microsPerDay)) % microsPerDay
	if r < 0 {
		r += microsPerDay
	}
	return types.NewTime(r)
}

// datetimeArith handles the operators over dates, timestamps, times and
// intervals (the planner has typed them; t is the result type); loc is
// the calendar months and days are added on (the session's zone for
// timestamptz, UTC otherwise).
func datetimeArith(op string, l, r types.Datum, t types.T, loc *time.Location) (types.Datum, error) {
	lk, rk := l.Kind, r.Kind
	switch {
	case lk == types.KindInterval && rk == types.KindInterval && (op == "+" || op == "-"):
		sign := int64(1)
		if op == "-" {
			sign = -1
		}
		iv, err := intervalAdd(l.Interval(), r.Interval(), sign)
		return types.NewInterval(iv), err
	case lk == types.KindInterval && isNumber(r) && (op == "*" || op == "/"):
		var iv types.IntervalValue
		var err error
		if op == "*" {
			iv, err = intervalMul(l.Interval(), toFloat(r))
		} else {
			iv, err = intervalDiv(l.Interval(), toFloat(r))
		}
		return types.NewInterval(iv), err
	case isNumber(l) && rk == types.KindInterval && op == "*":
		iv, err := intervalMul(r.Interval(), toFloat(l))
		return types.NewInterval(iv), err
	case (lk == types.KindTimestamp || lk == types.KindDate) && rk == types.KindInterval && (op == "+" || op == "-"):
		iv := r.Interval()
		if op == "-" {
			var err error
			if iv, err = intervalNeg(iv); err != nil {
				return types.Null, err
			}
		}
		return timestampAddInterval(timeMicros(l), iv, loc)
	case lk == types.KindInterval && (rk == types.KindTimestamp || rk == types.KindDate) && op == "+":
		return timestampAddInterval(timeMicros(r), l.Interval(), loc)
	case (lk == types.KindTimestamp || lk == types.KindDate) && (rk == types.KindTimestamp || rk == types.KindDate) && op == "-" && t.Family == types.Interval:
		return timestampDiff(timeMicros(l), timeMicros(r))
	case lk == types.KindTime && rk == types.KindInterval && (op == "+" || op == "-"):
		sign := int64(1)
		if op == "-" {
			sign = -1
		}
		return timeAddInterval(l.I, r.Interval(), sign), nil
	case lk == types.KindInterval && rk == types.KindTime && op == "+":
		return timeAddInterval(r.I, l.Interval(), 1), nil
	case lk == types.KindTime && rk == types.KindTime && op == "-":
		return types.NewInterval(types.IntervalValue{Micros: l.I - r.I}), nil
	case lk == types.KindDate && rk == types.KindTime && op == "+":
		return checkTimestamp(timeMicros(l) + r.I)
	case lk == types.KindTime && rk == types.KindDate && op == "+":
		return checkTimestamp(timeMicros(r) + l.I)
	case lk == types.KindDate || rk == types.KindDate:
		return dateArith(op, l, r)
	}
	return types.Null, pgerror.Newf(pgerror.UndefinedFunction, "operator does not exist: %s %s %s", l.Kind, op, r.Kind)
}

// isDatetimeKind reports whether k takes part in datetimeArith.
func isDatetimeKind(k types.Kind) bool {
	return k == types.KindDate || k == types.KindTimestamp || k == types.KindInterval || k == types.KindTime
}

// AddIntervals is a + b (interval_pl), for sum(interval).
func AddIntervals(a, b types.IntervalValue) (types.IntervalValue, error) { return intervalAdd(a, b, 1) }

// DivInterval is iv / f (interval_div), for avg(interval).
func DivInterval(iv types.IntervalValue, f float64) (types.IntervalValue, error) {
	return intervalDiv(iv, f)
}

// AddInterval is timestamp + interval with months and days on the
// calendar of loc (generate_series over timestamps).
func AddInterval(us int64, iv types.IntervalValue, loc *time.Location) (types.Datum, error) {
	return timestampAddInterval(us, iv, loc)
}
