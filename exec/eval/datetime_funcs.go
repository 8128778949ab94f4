package eval

import (
	"math"
	"math/big"
	"strconv"
	"strings"
	"time"

	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/planner"
	"github.com/kvsql/kvsql/types"
)

// The functions of PostgreSQL's "Date/Time Functions and Operators"
// chapter: extract/date_part, date_trunc, age, justify_*, make_*,
// isfinite and the clock functions. to_char and friends are in
// tochar.go.

// style is the session's settings that shape a value's text.
func (env *Env) style() Style {
	if env == nil {
		return Style{}
	}
	return Style{Loc: env.loc(), Interval: env.IntervalStyle, FloatDigits: env.FloatDigits}
}

// styled reports whether the text of x, of type t, depends on a
// setting other than the time zone that is not at its default
// (IntervalStyle, extra_float_digits).
func (env *Env) styled(x types.Datum, t types.T) bool {
	intervals, floats := env.IntervalStyle != types.IntervalPostgres, env.FloatDigits != 0
	switch x.Kind {
	case types.KindInterval:
		return intervals
	case types.KindFloat, types.KindInt:
		return floats && t.Kind() == types.KindFloat && t.Family != types.Numeric
	case types.KindArray, types.KindRecord:
		return intervals || floats
	}
	return false
}

// loc is the session's time zone (UTC when unset).
func (env *Env) loc() *time.Location {
	if env == nil || env.Loc == nil {
		return time.UTC
	}
	return env.Loc
}

// datetimeFunc evaluates a date/time function over non-NULL args; ok is
// false when name is not one.
func datetimeFunc(env *Env, e *planner.Func, args []types.Datum) (d types.Datum, ok bool, err error) {
	switch e.Name {
	case "pg_sleep", "pg_sleep_for", "pg_sleep_until":
		d, err = sleepFunc(env, e.Name, args[0]) // sleep.go
		return d, true, err
	case "justify_days", "justify_hours", "justify_interval":
		iv := args[0].Interval()
		switch e.Name {
		case "justify_days":
			iv, err = justifyDays(iv)
		case "justify_hours":
			iv, err = justifyHours(iv)
		default:
			iv, err = justifyInterval(iv)
		}
		return types.NewInterval(iv), true, err
	case "date_part", planner.ExtractFunc:
		d, err = extractField(env, strings.ToLower(args[0].S), args[1], e.Args[1].Type().Family, e.Name != "date_part")
		return d, true, err
	case "date_trunc":
		zone := env.loc()
		if len(args) == 3 {
			if zone, err = zoneByName(args[2].S); err != nil {
				return types.Null, true, err
			}
		}
		d, err = dateTrunc(strings.ToLower(args[0].S), args[1], e.Args[1].Type().Family, zone)
		return d, true, err
	case "age":
		var a, b types.Datum
		if len(args) == 2 {
			a, b = args[0], args[1]
		} else {
			// age(x) is age(current_date at midnight, x).
			y, m, dd := env.Now.In(env.loc()).Date()
			today := time.Date(y, m, dd, 0, 0, 0, 0, time.UTC).UnixMicro()
			if e.Args[0].Type().Family == types.TimestampTZ {
				today = time.Date(y, m, dd, 0, 0, 0, 0, env.loc()).UnixMicro()
			}
			a, b = types.NewTimestamp(today), args[0]
		}
		loc := time.UTC
		if e.Args[0].Type().Family == types.TimestampTZ {
			loc = env.loc()
		}
		d, err = age(timeMicros(a), timeMicros(b), loc)
		return d, true, err
	case "make_date":
		d, err = makeDate(args[0].I, args[1].I, args[2].I)
		return d, true, err
	case "make_time":
		us, err := makeTime(args[0].I, args[1].I, toFloat(args[2]))
		return types.NewTime(us), true, err
	case "make_timestamp", "make_timestamptz":
		day, err := makeDate(args[0].I, args[1].I, args[2].I)
		if err != nil {
			return types.Null, true, err
		}
		us, err := makeTime(args[3].I, args[4].I, toFloat(args[5]))
		if err != nil {
			return types.Null, true, err
		}
		if e.Name == "make_timestamp" {
			d, err = checkTimestamp(timeMicros(day) + us)
			return d, true, err
		}
		zone := env.loc()
		if len(args) == 7 {
			if zone, err = zoneByName(args[6].S); err != nil {
				return types.Null, true, err
			}
		}
		y, m, dd := time.UnixMicro(timeMicros(day)).UTC().Date()
		t := time.Date(y, m, dd, 0, 0, 0, 0, zone).Add(time.Duration(us) * time.Microsecond)
		d, err = checkTimestamp(time.Date(y, m, dd, t.Hour(), t.Minute(), t.Second(), t.Nanosecond(), zone).UnixMicro())
		return d, true, err
	case "make_interval":
		d, err = makeInterval(args)
		return d, true, err
	case "isfinite":
		switch args[0].Kind {
		case types.KindTimestamp:
			return types.NewBool(args[0].I != types.TimestampInfinity && args[0].I != types.TimestampNegInfinity), true, nil
		}
		return types.NewBool(true), true, nil
	case "transaction_timestamp":
		return types.NewTimestamp(env.Now.UnixMicro()), true, nil
	case "statement_timestamp":
		if env.StmtNow.IsZero() {
			return types.NewTimestamp(env.Now.UnixMicro()), true, nil
		}
		return types.NewTimestamp(env.StmtNow.UnixMicro()), true, nil
	case "clock_timestamp":
		return types.NewTimestamp(time.Now().UnixMicro()), true, nil
	case "timeofday":
		return types.NewText(time.Now().In(env.loc()).Format("Mon Jan 02 15:04:05.000000 2006 MST")), true, nil
	case "timezone":
		var zone *time.Location
		if args[0].Kind == types.KindInterval {
			iv := args[0].Interval()
			if iv.Months != 0 || iv.Days != 0 {
				return types.Null, true, pgerror.New(pgerror.InvalidParameterValue, "interval time zone \""+types.FormatInterval(iv)+"\" must not include months or days")
			}
			zone = time.FixedZone("", int(iv.Micros/1_000_000))
		} else if zone, err = zoneByName(args[0].S); err != nil {
			return types.Null, true, err
		}
		if e.T.Family == types.TimestampTZ { // timestamp AT TIME ZONE: its wall clock in zone
			d, err = checkTimestamp(instantMicros(args[1].I, zone))
			return d, true, err
		}
		return types.NewTimestamp(wallMicros(args[1].I, zone)), true, nil
	case "to_char":
		d, err = toChar(env, args[0], e.Args[0].Type(), args[1].S)
		return d, true, err
	case "to_number":
		d, err = toNumber(args[0].S, args[1].S)
		return d, true, err
	case "to_date":
		d, err = toDate(args[0].S, args[1].S)
		return d, true, err
	case "to_timestamp":
		if len(args) == 1 {
			f := toFloat(args[0])
			switch {
			case math.IsNaN(f):
				return types.Null, true, pgerror.New(pgerror.InvalidParameterValue, "timestamp cannot be NaN")
			case math.IsInf(f, 1):
				return types.NewTimestamp(types.TimestampInfinity), true, nil
			case math.IsInf(f, -1):
				return types.NewTimestamp(types.TimestampNegInfinity), true, nil
			case f < -210866803200 || f >= 9224318016000:
				return types.Null, true, pgerror.Newf(codeDatetimeFieldOverflow, "timestamp out of range: \"%s\"", strconv.FormatFloat(f, 'g', -1, 64))
			}
			d, err = checkTimestamp(int64(math.RoundToEven(f * 1e6)))
			return d, true, err
		}
		d, err = toTimestamp(env, args[0].S, args[1].S)
		return d, true, err
	}
	return types.Null, false, nil
}

// zoneByName resolves a zone argument (date_trunc, make_timestamptz, AT
// TIME ZONE): an IANA name, UTC, or a POSIX-style offset.
func zoneByName(name string) (*time.Location, error) {
	if loc, ok := types.ZoneByName(name); ok {
		return loc, nil
	}
	return nil, pgerror.Newf(pgerror.InvalidParameterValue, "time zone \"%s\" not recognized", name)
}

// scaled renders v / 10^scale as a numeric datum with exactly scale
// decimals ("6.500000").
func scaled(v int64, scale int) types.Datum {
	neg := v < 0
	u := uint64(v)
	if neg {
		u = -u
	}
	s := strconv.FormatUint(u, 10)
	if scale > 0 {
		for len(s) <= scale {
			s = "0" + s
		}
		s = s[:len(s)-scale] + "." + s[len(s)-scale:]
	}
	if neg {
		s = "-" + s
	}
	return types.Datum{Kind: types.KindDecimal, S: s}
}

// fieldAliases maps PostgreSQL's accepted spellings of extract units.
var fieldAliases = map[string]string{
	"microsecond": "microseconds", "microseconds": "microseconds", "us": "microseconds", "usec": "microseconds", "usecs": "microseconds", "useconds": "microseconds",
	"millisecond": "milliseconds", "milliseconds": "milliseconds", "ms": "milliseconds", "msec": "milliseconds", "msecs": "milliseconds", "mseconds": "milliseconds",
	"second": "second", "seconds": "second", "s": "second", "sec": "second", "secs": "second",
	"minute": "minute", "minutes": "minute", "m": "minute", "min": "minute", "mins": "minute",
	"hour": "hour", "hours": "hour", "h": "hour", "hr": "hour", "hrs": "hour",
	"day": "day", "days": "day", "d": "day",
	"week": "week", "weeks": "week", "w": "week",
	"month": "month", "months": "month", "mon": "month", "mons": "month",
	"quarter": "quarter", "qtr": "quarter",
	"year": "year", "years": "year", "y": "year", "yr": "year", "yrs": "year",
	"decade": "decade", "decades": "decade", "dec": "decade", "decs": "decade",
	"century": "century", "centuries": "century", "c": "century", "cent": "century",
	"millennium": "millennium", "millennia": "millennium", "millenniums": "millennium", "mil": "millennium", "mils": "millennium",
	"epoch": "epoch", "dow": "dow", "isodow": "isodow", "doy": "doy", "julian": "julian", "j": "julian",
	"isoyear": "isoyear", "timezone": "timezone", "timezone_hour": "timezone_hour", "timezone_minute": "timezone_minute",
}

// extractField is extract (numeric results, asNumeric) and date_part
// (double precision) of field from x, a value of family fam.
func extractField(env *Env, field string, x types.Datum, fam types.Family, asNumeric bool) (types.Datum, error) {
	f, ok := fieldAliases[field]
	typeName := fam.String()
	if !ok {
		return types.Null, pgerror.Newf(pgerror.InvalidParameterValue, "unit \"%s\" not recognized for type %s", field, typeName)
	}
	notSupported := func() (types.Datum, error) {
		return types.Null, pgerror.Newf(pgerror.FeatureNotSupported, "unit \"%s\" not supported for type %s", field, typeName)
	}
	// v is the value in units of 10^-scale.
	var v int64
	scale := 0
	var julianFrac int64 = -1 // microseconds of the day, for julian
	switch x.Kind {
	case types.KindInterval:
		iv := x.Interval()
		t := iv.Micros
		hour := t / types.MicrosPerHour
		t -= hour * types.MicrosPerHour
		min := t / types.MicrosPerMinute
		t -= min * types.MicrosPerMinute
		year, mon := int64(iv.Months/12), int64(iv.Months%12)
		switch f {
		case "microseconds":
			v = t
		case "milliseconds":
			v, scale = t, 3
		case "second":
			v, scale = t, 6
		case "minute":
			v = min
		case "hour":
			v = hour
		case "day":
			v = int64(iv.Days)
		case "month":
			v = mon
		case "quarter":
			v = mon/3 + 1
		case "year":
			v = year
		case "decade":
			v = year / 10
		case "century":
			v = year / 100
		case "millennium":
			v = year / 1000
		case "epoch":
			// DAYS_PER_YEAR is 365.25: count in quarter days.
			secs := ((1461*(int64(iv.Months)/12) + 120*(int64(iv.Months)%12) + 4*int64(iv.Days)) * 86400) / 4
			// The span can pass int64 microseconds: add in big integers.
			total := new(big.Int).Mul(big.NewInt(secs), big.NewInt(1_000_000))
			total.Add(total, big.NewInt(iv.Micros))
			if !total.IsInt64() {
				if !asNumeric {
					f, _ := new(big.Float).SetInt(total).Float64()
					return types.NewFloat(f / 1e6), nil
				}
				str := total.String()
				neg := strings.HasPrefix(str, "-")
				str = strings.TrimPrefix(str, "-")
				str = str[:len(str)-6] + "." + str[len(str)-6:]
				if neg {
					str = "-" + str
				}
				return types.Datum{Kind: types.KindDecimal, S: str}, nil
			}
			v, scale = total.Int64(), 6
		default:
			return notSupported()
		}
	case types.KindTime:
		t := x.I
		switch f {
		case "microseconds":
			v = t % types.MicrosPerMinute
		case "milliseconds":
			v, scale = t%types.MicrosPerMinute, 3
		case "second":
			v, scale = t%types.MicrosPerMinute, 6
		case "minute":
			v = t / types.MicrosPerMinute % 60
		case "hour":
			v = t / types.MicrosPerHour
		case "epoch":
			v, scale = t, 6
		default:
			return notSupported()
		}
	case types.KindDate, types.KindTimestamp:
		us := timeMicros(x)
		if x.Kind == types.KindTimestamp && (us == types.TimestampInfinity || us == types.TimestampNegInfinity) {
			return extractInfinite(f, us > 0, asNumeric, fam)
		}
		loc := time.UTC
		if fam == types.TimestampTZ {
			loc = env.loc()
		}
		t := time.UnixMicro(us).In(loc)
		year := int64(t.Year())
		if x.Kind == types.KindDate {
			switch f {
			case "microseconds", "milliseconds", "second", "minute", "hour", "timezone", "timezone_hour", "timezone_minute":
				return notSupported()
			}
		}
		if fam != types.TimestampTZ {
			switch f {
			case "timezone", "timezone_hour", "timezone_minute":
				return notSupported()
			}
		}
		secMicros := int64(t.Second())*1_000_000 + int64(t.Nanosecond()/1000)
		switch f {
		case "microseconds":
			v = secMicros
		case "milliseconds":
			v, scale = secMicros, 3
		case "second":
			v, scale = secMicros, 6
		case "minute":
			v = int64(t.Minute())
		case "hour":
			v = int64(t.Hour())
		case "day":
			v = int64(t.Day())
		case "month":
			v = int64(t.Month())
		case "quarter":
			v = (int64(t.Month())-1)/3 + 1
		case "week":
			_, w := t.ISOWeek()
			v = int64(w)
		case "year":
			v = year
			if year <= 0 {
				v = year - 1 // no year 0: 1 BC is -1
			}
		case "decade":
			if year > 0 {
				v = year / 10
			} else {
				v = -((8 - (year - 1)) / 10)
			}
		case "century":
			if year > 0 {
				v = (year + 99) / 100
			} else {
				v = -((99 - (year - 1)) / 100)
			}
		case "millennium":
			if year > 0 {
				v = (year + 999) / 1000
			} else {
				v = -((999 - (year - 1)) / 1000)
			}
		case "dow":
			v = int64(t.Weekday())
		case "isodow":
			v = int64(t.Weekday())
			if v == 0 {
				v = 7
			}
		case "doy":
			v = int64(t.YearDay())
		case "isoyear":
			y, _ := t.ISOWeek()
			v = int64(y)
			if v <= 0 {
				v--
			}
		case "julian":
			// Julian day number of 1970-01-01 is 2440588.
			_, off := t.Zone()
			local := us + int64(off)*1_000_000
			v = floorDiv(local, microsPerDay) + 2440588
			if x.Kind == types.KindTimestamp {
				julianFrac = local - floorDiv(local, microsPerDay)*microsPerDay
			}
		case "epoch":
			if x.Kind == types.KindDate {
				v = us / 1_000_000
			} else {
				v, scale = us, 6
			}
		case "timezone":
			_, off := t.Zone()
			v = int64(off)
		case "timezone_hour":
			_, off := t.Zone()
			v = int64(off) / 3600
		case "timezone_minute":
			_, off := t.Zone()
			v = int64(off) / 60 % 60
		default:
			return notSupported()
		}
	default:
		return types.Null, pgerror.Newf(pgerror.UndefinedFunction, "function date_part(unknown, %s) does not exist", typeName)
	}
	if !asNumeric {
		if julianFrac >= 0 {
			return types.NewFloat(float64(v) + float64(julianFrac)/float64(microsPerDay)), nil
		}
		return types.NewFloat(float64(v) / math.Pow10(scale)), nil
	}
	if julianFrac >= 0 {
		frac, err := DecimalDiv(types.NewInt(julianFrac), types.NewInt(microsPerDay))
		if err != nil {
			return types.Null, err
		}
		return decimalArith("+", types.NewInt(v), frac)
	}
	return scaled(v, scale), nil
}

// extractInfinite is extract/date_part of an infinite timestamp: ±Infinity
// for the unbounded fields, NULL for the others (PostgreSQL 15).
func extractInfinite(f string, pos, asNumeric bool, fam types.Family) (types.Datum, error) {
	switch f {
	case "epoch", "julian", "year", "decade", "century", "millennium", "isoyear":
		inf := "Infinity"
		if !pos {
			inf = "-Infinity"
		}
		if asNumeric {
			return types.Datum{Kind: types.KindDecimal, S: inf}, nil
		}
		return types.NewFloat(math.Inf(map[bool]int{true: 1, false: -1}[pos])), nil
	}
	return types.Null, nil
}

// truncUnits orders date_trunc's units from finest to coarsest.
var truncUnits = map[string]int{
	"microseconds": 0, "milliseconds": 1, "second": 2, "minute": 3, "hour": 4, "day": 5, "week": 6,
	"month": 7, "quarter": 8, "year": 9, "decade": 10, "century": 11, "millennium": 12,
}

// dateTrunc is date_trunc(unit, x): a timestamp (with loc the zone whose
// wall clock is truncated, for timestamptz) or an interval.
func dateTrunc(unit string, x types.Datum, fam types.Family, loc *time.Location) (types.Datum, error) {
	f, ok := fieldAliases[unit]
	rank, ok2 := truncUnits[f]
	if !ok || !ok2 {
		if !ok {
			return types.Null, pgerror.Newf(pgerror.InvalidParameterValue, "unit \"%s\" not recognized for type %s", unit, fam)
		}
		return types.Null, pgerror.Newf(pgerror.FeatureNotSupported, "unit \"%s\" not supported for type %s", unit, fam)
	}
	if x.Kind == types.KindInterval {
		iv := x.Interval()
		if f == "week" {
			return types.Null, pgerror.Newf(pgerror.FeatureNotSupported, "unit \"%s\" not supported for type interval", unit)
		}
		t := iv.Micros
		switch {
		case rank >= 5:
			t = 0
		case rank == 4:
			t -= t % types.MicrosPerHour
		case rank == 3:
			t -= t % types.MicrosPerMinute
		case rank == 2:
			t -= t % types.MicrosPerSecond
		case rank == 1:
			t -= t % 1000
		}
		if rank >= 7 {
			iv.Days = 0
		}
		y, m := iv.Months/12, iv.Months%12
		switch f {
		case "quarter":
			m = m / 3 * 3
		case "year":
			m = 0
		case "decade":
			y, m = y/10*10, 0
		case "century":
			y, m = y/100*100, 0
		case "millennium":
			y, m = y/1000*1000, 0
		}
		iv.Months, iv.Micros = y*12+m, t
		return types.NewInterval(iv), nil
	}
	us := timeMicros(x)
	if us == types.TimestampInfinity || us == types.TimestampNegInfinity {
		return types.NewTimestamp(us), nil
	}
	if fam != types.TimestampTZ {
		loc = time.UTC
	}
	t := time.UnixMicro(us).In(loc)
	y, mo, d := t.Date()
	h, mi, s, us6 := t.Hour(), t.Minute(), t.Second(), t.Nanosecond()/1000
	switch {
	case rank >= 1 && rank <= 4:
		if rank >= 1 {
			us6 -= us6 % 1000
		}
		if rank >= 2 {
			us6 = 0
		}
		if rank >= 3 {
			s = 0
		}
		if rank >= 4 {
			mi = 0
		}
	case rank >= 5:
		h, mi, s, us6 = 0, 0, 0, 0
		switch f {
		case "week":
			wd := (int(t.Weekday()) + 6) % 7 // days since Monday
			d -= wd
		case "month":
			d = 1
		case "quarter":
			mo, d = (mo-1)/3*3+1, 1
		case "year":
			mo, d = 1, 1
		case "decade":
			if y > 0 {
				y = y / 10 * 10
			} else {
				y = -((8 - (y - 1)) / 10 * 10) + 1 // PostgreSQL's BC decades
			}
			mo, d = 1, 1
		case "century":
			if y > 0 {
				y = (y+99)/100*100 - 99
			} else {
				y = -((99 - (y - 1)) / 100 * 100) + 1
			}
			mo, d = 1, 1
		case "millennium":
			if y > 0 {
				y = (y+999)/1000*1000 - 999
			} else {
				y = -((999 - (y - 1)) / 1000 * 1000) + 1
			}
			mo, d = 1, 1
		}
	}
	r := time.Date(y, mo, d, h, mi, s, us6*1000, loc)
	if fam != types.TimestampTZ {
		r = time.Date(y, mo, d, h, mi, s, us6*1000, time.UTC)
	}
	return checkTimestamp(r.UnixMicro())
}

// age is age(a, b): the difference as years, months and days of the
// calendar (PostgreSQL's timestamp_age), computed field by field and
// borrowing from the next larger field.
func age(a, b int64, loc *time.Location) (types.Datum, error) {
	ta, tb := time.UnixMicro(a).In(loc), time.UnixMicro(b).In(loc)
	neg := a < b
	if neg {
		ta, tb = tb, ta
	}
	usA := int64(ta.Hour())*types.MicrosPerHour + int64(ta.Minute())*types.MicrosPerMinute + int64(ta.Second())*types.MicrosPerSecond + int64(ta.Nanosecond()/1000)
	usB := int64(tb.Hour())*types.MicrosPerHour + int64(tb.Minute())*types.MicrosPerMinute + int64(tb.Second())*types.MicrosPerSecond + int64(tb.Nanosecond()/1000)
	fus := usA - usB
	days := ta.Day() - tb.Day()
	months := int(ta.Month()) - int(tb.Month())
	years := ta.Year() - tb.Year()
	if fus < 0 {
		fus += microsPerDay
		days--
	}
	if days < 0 {
		// Borrow the length of the month before ta's month of the
		// earlier timestamp's month, as timestamp_age does.
		days += daysIn(tb.Year(), tb.Month())
		months--
	}
	if months < 0 {
		months += 12
		years--
	}
	iv := types.IntervalValue{Months: int32(years*12 + months), Days: int32(days), Micros: fus}
	if neg {
		var err error
		if iv, err = intervalNeg(iv); err != nil {
			return types.Null, err
		}
	}
	return types.NewInterval(iv), nil
}

// makeDate is make_date(year, month, day); a negative year is BC.
func makeDate(y, m, d int64) (types.Datum, error) {
	bad := func() (types.Datum, error) {
		return types.Null, pgerror.Newf(codeDatetimeFieldOverflow, "date field value out of range: %d-%02d-%02d", y, m, d)
	}
	if y == 0 || m < 1 || m > 12 || d < 1 || y < -4713 || y > 5874897 {
		return bad()
	}
	yy := y
	if y < 0 {
		yy = y + 1
	}
	if d > int64(daysIn(int(yy), time.Month(m))) {
		return bad()
	}
	t := time.Date(int(yy), time.Month(m), int(d), 0, 0, 0, 0, time.UTC)
	return types.NewDate(floorDiv(t.Unix(), 86400)), nil
}

// makeTime is make_time(hour, min, sec).
func makeTime(h, m int64, sec float64) (int64, error) {
	us := h*types.MicrosPerHour + m*types.MicrosPerMinute + int64(math.RoundToEven(sec*1e6))
	if h < 0 || m < 0 || m > 59 || sec < 0 || sec > 60 || math.IsNaN(sec) || us > microsPerDay {
		return 0, pgerror.Newf(codeDatetimeFieldOverflow, "time field value out of range: %d:%02d:%s", h, m, strconv.FormatFloat(sec, 'f', -1, 64))
	}
	return us, nil
}

// makeInterval is make_interval(years, months, weeks, days, hours, mins,
// secs); missing arguments are 0.
func makeInterval(args []types.Datum) (types.Datum, error) {
	var v [6]int64
	secs := 0.0
	for i, a := range args {
		if i < 6 {
			v[i] = a.I
		} else {
			secs = toFloat(a)
		}
	}
	months := v[0]*12 + v[1]
	days := v[2]*7 + v[3]
	us := v[4]*types.MicrosPerHour + v[5]*types.MicrosPerMinute
	f := math.RoundToEven(float64(us) + secs*1e6)
	if months != int64(int32(months)) || days != int64(int32(days)) || math.IsNaN(f) || math.Abs(f) > 9.2e18 {
		return types.Null, intervalOutOfRange()
	}
	return types.NewInterval(types.IntervalValue{Months: int32(months), Days: int32(days), Micros: int64(f)}), nil
}

// wallMicros is the instant us as a timestamp without time zone: the
// wall-clock time in loc (timestamptz::timestamp).
func wallMicros(us int64, loc *time.Location) int64 {
	if us == types.TimestampInfinity || us == types.TimestampNegInfinity || loc == time.UTC {
		return us
	}
	_, off := time.UnixMicro(us).In(loc).Zone()
	return us + int64(off)*1_000_000
}

// instantMicros is the wall-clock timestamp us read in loc as an instant
// (timestamp::timestamptz); a time skipped or repeated by a DST change
// resolves as PostgreSQL does (the offset before the change).
func instantMicros(us int64, loc *time.Location) int64 {
	if us == types.TimestampInfinity || us == types.TimestampNegInfinity || loc == time.UTC {
		return us
	}
	t := time.UnixMicro(us).UTC()
	return time.Date(t.Year(), t.Month(), t.Day(), t.Hour(), t.Minute(), t.Second(), t.Nanosecond(), loc).UnixMicro()
}
