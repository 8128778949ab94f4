package types

import "strconv"

// IntervalStyle is the IntervalStyle setting: how intervals are shown as
// text. IntervalPostgres, the default, is AppendInterval's form.
type IntervalStyle uint8

const (
	IntervalPostgres        IntervalStyle = iota // 1 year 2 mons 3 days 04:05:06
	IntervalPostgresVerbose                      // @ 1 year 2 mons 3 days 4 hours 5 mins 6 secs
	IntervalSQLStandard                          // +1-2 +3 +4:05:06
	IntervalISO8601                              // P1Y2M3DT4H5M6S
)

// ParseIntervalStyle reads a setting's value (lower case); ok is false for
// an unknown style.
func ParseIntervalStyle(s string) (IntervalStyle, bool) {
	switch s {
	case "postgres":
		return IntervalPostgres, true
	case "postgres_verbose":
		return IntervalPostgresVerbose, true
	case "sql_standard":
		return IntervalSQLStandard, true
	case "iso_8601":
		return IntervalISO8601, true
	}
	return IntervalPostgres, false
}

// AppendIntervalStyle appends iv as the given IntervalStyle shows it,
// field for field as PostgreSQL's EncodeInterval writes it.
func AppendIntervalStyle(b []byte, iv IntervalValue, style IntervalStyle) []byte {
	f := splitInterval(iv)
	switch style {
	case IntervalPostgresVerbose:
		return f.appendVerbose(b)
	case IntervalSQLStandard:
		return f.appendSQLStandard(b)
	case IntervalISO8601:
		return f.appendISO8601(b)
	}
	return AppendInterval(b, iv)
}

// intervalFields are an interval's fields as PostgreSQL's interval2tm
// splits it: every part carries the sign of its own field.
type intervalFields struct {
	year, mon, day, hour, min, sec, fsec int64
}

func splitInterval(iv IntervalValue) intervalFields {
	t := iv.Micros
	f := intervalFields{year: int64(iv.Months / 12), mon: int64(iv.Months % 12), day: int64(iv.Days)}
	f.hour = t / MicrosPerHour
	t -= f.hour * MicrosPerHour
	f.min = t / MicrosPerMinute
	t -= f.min * MicrosPerMinute
	f.sec = t / MicrosPerSecond
	f.fsec = t - f.sec*MicrosPerSecond
	return f
}

func (f intervalFields) timeIsZero() bool {
	return f.hour == 0 && f.min == 0 && f.sec == 0 && f.fsec == 0
}

// appendSecs appends |sec| (two digits when pad) and |fsec| as a fraction
// without trailing zeros.
func appendSecs(b []byte, sec, fsec int64, pad bool) []byte {
	if pad {
		return appendSeconds(b, absU(sec), absU(fsec))
	}
	b = strconv.AppendUint(b, absU(sec), 10)
	if fsec != 0 {
		s := appendSeconds(nil, 0, absU(fsec))
		b = append(b, s[2:]...)
	}
	return b
}

func (f intervalFields) appendVerbose(b []byte) []byte {
	b = append(b, '@')
	isZero, isBefore := true, false
	part := func(v int64, unit string) {
		if v == 0 {
			return
		}
		if isZero {
			isBefore = v < 0
			if v < 0 {
				v = -v
			}
		} else if isBefore {
			v = -v
		}
		b = append(b, ' ')
		b = strconv.AppendInt(b, v, 10)
		b = append(b, ' ')
		b = append(b, unit...)
		if v != 1 {
			b = append(b, 's')
		}
		isZero = false
	}
	part(f.year, "year")
	part(f.mon, "mon")
	part(f.day, "day")
	part(f.hour, "hour")
	part(f.min, "min")
	if f.sec != 0 || f.fsec != 0 {
		b = append(b, ' ')
		if f.sec < 0 || (f.sec == 0 && f.fsec < 0) {
			if isZero {
				isBefore = true
			} else if !isBefore {
				b = append(b, '-')
			}
		} else if isBefore {
			b = append(b, '-')
		}
		b = appendSecs(b, f.sec, f.fsec, false)
		b = append(b, " sec"...)
		if absU(f.sec) != 1 || f.fsec != 0 {
			b = append(b, 's')
		}
		isZero = false
	}
	if isZero {
		b = append(b, " 0"...)
	}
	if isBefore {
		b = append(b, " ago"...)
	}
	return b
}

func (f intervalFields) appendSQLStandard(b []byte) []byte {
	neg := f.year < 0 || f.mon < 0 || f.day < 0 || f.hour < 0 || f.min < 0 || f.sec < 0 || f.fsec < 0
	pos := f.year > 0 || f.mon > 0 || f.day > 0 || f.hour > 0 || f.min > 0 || f.sec > 0 || f.fsec > 0
	yearMonth := f.year != 0 || f.mon != 0
	dayTime := f.day != 0 || !f.timeIsZero()
	standard := !(neg && pos) && !(yearMonth && dayTime)
	if neg && standard {
		b = append(b, '-')
		f = intervalFields{-f.year, -f.mon, -f.day, -f.hour, -f.min, -f.sec, -f.fsec}
	}
	clock := func(b []byte) []byte {
		b = strconv.AppendUint(b, absU(f.hour), 10)
		b = append(b, ':')
		b = appendPad2(b, absU(f.min))
		b = append(b, ':')
		return appendSecs(b, f.sec, f.fsec, true)
	}
	sign := func(negative bool) byte {
		if negative {
			return '-'
		}
		return '+'
	}
	switch {
	case !neg && !pos:
		return append(b, '0')
	case !standard:
		b = append(b, sign(f.year < 0 || f.mon < 0))
		b = strconv.AppendUint(b, absU(f.year), 10)
		b = append(b, '-')
		b = strconv.AppendUint(b, absU(f.mon), 10)
		b = append(b, ' ', sign(f.day < 0))
		b = strconv.AppendUint(b, absU(f.day), 10)
		b = append(b, ' ', sign(f.hour < 0 || f.min < 0 || f.sec < 0 || f.fsec < 0))
		return clock(b)
	case yearMonth:
		b = strconv.AppendInt(b, f.year, 10)
		b = append(b, '-')
		return strconv.AppendInt(b, f.mon, 10)
	case f.day != 0:
		b = strconv.AppendInt(b, f.day, 10)
		b = append(b, ' ')
		return clock(b)
	}
	return clock(b)
}

func (f intervalFields) appendISO8601(b []byte) []byte {
	if f.year == 0 && f.mon == 0 && f.day == 0 && f.timeIsZero() {
		return append(b, "PT0S"...)
	}
	b = append(b, 'P')
	part := func(v int64, unit byte) {
		if v != 0 {
			b = strconv.AppendInt(b, v, 10)
			b = append(b, unit)
		}
	}
	part(f.year, 'Y')
	part(f.mon, 'M')
	part(f.day, 'D')
	if !f.timeIsZero() {
		b = append(b, 'T')
	}
	part(f.hour, 'H')
	part(f.min, 'M')
	if f.sec != 0 || f.fsec != 0 {
		if f.sec < 0 || f.fsec < 0 {
			b = append(b, '-')
		}
		b = appendSecs(b, f.sec, f.fsec, false)
		b = append(b, 'S')
	}
	return b
}
