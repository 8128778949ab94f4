package types

import (
	"errors"
	"math"
	"strconv"
	"strings"
	"time"
)

// FormatDate renders days since 1970-01-01 as PostgreSQL's ISO DateStyle
// ("2020-01-31", "0044-03-15 BC").
func FormatDate(days int64) string {
	t := time.Unix(days*86400, 0).UTC()
	return string(appendYMD(nil, t))
}

// Infinite timestamps are the extremes of int64 microseconds, as
// PostgreSQL keeps them (DT_NOBEGIN, DT_NOEND).
const (
	TimestampInfinity    = math.MaxInt64
	TimestampNegInfinity = math.MinInt64
)

// FormatTimestamp renders microseconds since the epoch as PostgreSQL's ISO
// DateStyle does for timestamp without time zone.
func FormatTimestamp(us int64) string {
	return string(AppendTimestamp(nil, us, nil))
}

// AppendTimestamp appends the timestamp us in PostgreSQL's ISO DateStyle:
// without a zone when loc is nil, else as the local time in loc followed
// by its UTC offset ("+01", "+05:30").
func AppendTimestamp(b []byte, us int64, loc *time.Location) []byte {
	switch us {
	case TimestampInfinity:
		return append(b, "infinity"...)
	case TimestampNegInfinity:
		return append(b, "-infinity"...)
	}
	t := time.UnixMicro(us).UTC()
	if loc != nil {
		t = t.In(loc)
	}
	bc := t.Year() <= 0
	b = appendYMDNoEra(b, t)
	b = append(b, ' ')
	b = appendPad2(b, uint64(t.Hour()))
	b = append(b, ':')
	b = appendPad2(b, uint64(t.Minute()))
	b = append(b, ':')
	b = appendSeconds(b, uint64(t.Second()), uint64(t.Nanosecond()/1000))
	if loc != nil {
		_, off := t.Zone()
		b = appendOffset(b, off)
	}
	if bc {
		b = append(b, " BC"...)
	}
	return b
}

// appendOffset appends a UTC offset as PostgreSQL prints it: "+01",
// "-05:30", "+05:45:30".
func appendOffset(b []byte, off int) []byte {
	if off < 0 {
		b = append(b, '-')
		off = -off
	} else {
		b = append(b, '+')
	}
	b = appendPad2(b, uint64(off/3600))
	if m, sec := off/60%60, off%60; m != 0 || sec != 0 {
		b = append(b, ':')
		b = appendPad2(b, uint64(m))
		if sec != 0 {
			b = append(b, ':')
			b = appendPad2(b, uint64(sec))
		}
	}
	return b
}

func appendYMD(b []byte, t time.Time) []byte {
	b = appendYMDNoEra(b, t)
	if t.Year() <= 0 {
		b = append(b, " BC"...)
	}
	return b
}

// appendYMDNoEra appends YYYY-MM-DD with the year counted as PostgreSQL
// prints it: year 0 is 1 BC.
func appendYMDNoEra(b []byte, t time.Time) []byte {
	y := t.Year()
	if y <= 0 {
		y = 1 - y
	}
	ys := strconv.Itoa(y)
	for i := len(ys); i < 4; i++ {
		b = append(b, '0')
	}
	b = append(b, ys...)
	b = append(b, '-')
	b = appendPad2(b, uint64(t.Month()))
	b = append(b, '-')
	return appendPad2(b, uint64(t.Day()))
}

// ErrDateTimeSyntax is text that is not a date or timestamp (22007).
var ErrDateTimeSyntax = errors.New("invalid input syntax")

// ErrDateTimeRange is a date or time field out of range (22008):
// "2024-02-30", "25:00".
var ErrDateTimeRange = errors.New("date/time field value out of range")

// DateTime is date/time text taken apart (ParseDateTime).
type DateTime struct {
	Year, Month, Day int   // Year is astronomical: 0 is 1 BC
	Micros           int64 // time of day
	HasDate, HasTime bool
	Zone             *time.Location // an explicit zone or offset; nil if none
	Infinite         int            // +1 'infinity', -1 '-infinity'
	Epoch            bool           // 'epoch'
	Relative         string         // "now", "today", "tomorrow" or "yesterday"
}

// ParseDateTime takes apart the date/time forms PostgreSQL's input
// functions accept and kvsql supports: ISO "YYYY-MM-DD", "YYYYMMDD",
// "MM/DD/YYYY" (DateStyle MDY), "Mon DD YYYY", "DD Mon YYYY" and
// "YYYY-Mon-DD" with English month names, an optional " BC"; a time
// "hh:mm[:ss[.ffffff]]" after a space or 'T', with AM/PM; a zone "Z",
// "+hh", "+hh:mm", "+hhmm", "UTC"/"GMT" or an IANA name; and the special
// words epoch, infinity and -infinity.
func ParseDateTime(s string) (DateTime, error) {
	var dt DateTime
	t := strings.ToLower(strings.TrimSpace(s))
	switch t {
	case "now", "today", "tomorrow", "yesterday":
		dt.Relative, dt.HasDate = t, true
		return dt, nil
	case "epoch":
		dt.Epoch, dt.Year, dt.Month, dt.Day, dt.HasDate = true, 1970, 1, 1, true
		return dt, nil
	case "infinity", "+infinity":
		dt.Infinite = 1
		return dt, nil
	case "-infinity":
		dt.Infinite = -1
		return dt, nil
	}
	// Split into fields at spaces, commas, and a 'T' between a date and a
	// time.
	fields := strings.FieldsFunc(t, func(r rune) bool { return r == ' ' || r == ',' || r == '\t' })
	if len(fields) > 0 {
		if i := strings.IndexByte(fields[0], 't'); i > 0 && i+1 < len(fields[0]) && fields[0][i+1] >= '0' && fields[0][i+1] <= '9' {
			rest := append([]string{fields[0][:i], fields[0][i+1:]}, fields[1:]...)
			fields = rest
		}
	}
	bc, pm, am := false, false, false
	var monthName int
	var nums []string
	for _, f := range fields {
		switch {
		case f == "bc":
			bc = true
		case f == "ad":
		case f == "pm":
			pm = true
		case f == "am":
			am = true
		case strings.ContainsRune(f, ':') && !dt.HasTime && f[0] >= '0' && f[0] <= '9':
			clock := f
			// A zone glued to the time: "12:00+02", "12:00z", "12:00-05:30".
			if i := strings.IndexAny(clock, "+-z"); i > 0 {
				z, err := parseZone(clock[i:])
				if err != nil {
					return dt, err
				}
				dt.Zone, clock = z, clock[:i]
			}
			if strings.HasSuffix(clock, "pm") || strings.HasSuffix(clock, "am") {
				pm, am = strings.HasSuffix(clock, "pm"), strings.HasSuffix(clock, "am")
				clock = clock[:len(clock)-2]
			}
			us, err := parseClock(clock)
			if err != nil {
				return dt, err
			}
			dt.Micros, dt.HasTime = us, true
		case !dt.HasDate && (strings.Count(f, "-") == 2 || strings.Count(f, "/") == 2 || strings.Count(f, ".") == 2) && f[0] >= '0' && f[0] <= '9':
			if err := parseDateField(f, &dt); err != nil {
				return dt, err
			}
		case !dt.HasDate && len(f) == 8 && isDigits(f):
			dt.Year, _ = strconv.Atoi(f[:4])
			dt.Month, _ = strconv.Atoi(f[4:6])
			dt.Day, _ = strconv.Atoi(f[6:])
			dt.HasDate = true
		case monthNumber(f) > 0 && monthName == 0:
			monthName = monthNumber(f)
		case isDigits(f):
			nums = append(nums, f)
		case f[0] == '+' || f[0] == '-' || f == "z" || f == "utc" || f == "gmt" || f == "zulu" || strings.ContainsRune(f, '/'):
			if dt.Zone != nil {
				return dt, ErrDateTimeSyntax
			}
			z, err := parseZone(f)
			if err != nil {
				return dt, err
			}
			dt.Zone = z
		case weekday(f):
			// A day name is ignored, as PostgreSQL does.
		default:
			if z, err := LoadZone(f); err == nil && dt.Zone == nil {
				dt.Zone = z
				continue
			}
			return dt, ErrDateTimeSyntax
		}
	}
	if monthName > 0 {
		if dt.HasDate || len(nums) != 2 {
			return dt, ErrDateTimeSyntax
		}
		a, _ := strconv.Atoi(nums[0])
		b, _ := strconv.Atoi(nums[1])
		dt.Month, dt.HasDate = monthName, true
		if len(nums[0]) > 2 { // "1999 Jan 08"
			dt.Year, dt.Day = a, b
		} else {
			dt.Day, dt.Year = a, b
		}
		nums = nil
	}
	if len(nums) > 0 || (!dt.HasDate && !dt.HasTime) {
		return dt, ErrDateTimeSyntax
	}
	if pm || am {
		h := dt.Micros / MicrosPerHour
		if h < 1 || h > 12 {
			return dt, ErrDateTimeRange
		}
		if h == 12 {
			dt.Micros -= 12 * MicrosPerHour
		}
		if pm {
			dt.Micros += 12 * MicrosPerHour
		}
	}
	if bc {
		if dt.Year <= 0 {
			return dt, ErrDateTimeRange
		}
		dt.Year = 1 - dt.Year
	}
	if dt.HasDate {
		if dt.Month < 1 || dt.Month > 12 || dt.Day < 1 || dt.Day > time.Date(dt.Year, time.Month(dt.Month)+1, 0, 0, 0, 0, 0, time.UTC).Day() {
			return dt, ErrDateTimeRange
		}
		if dt.Year == 0 && !bc {
			return dt, ErrDateTimeRange
		}
	}
	return dt, nil
}

func isDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

var monthNames = []string{"jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"}

// monthNumber is 1..12 for an English month name or its first three
// letters, 0 otherwise.
func monthNumber(f string) int {
	full := []string{"january", "february", "march", "april", "may", "june", "july", "august", "september", "october", "november", "december"}
	f = strings.TrimSuffix(f, ".")
	for i, m := range monthNames {
		if f == m || f == full[i] || (f == "sept" && i == 8) {
			return i + 1
		}
	}
	return 0
}

func weekday(f string) bool {
	f = strings.TrimSuffix(f, ".")
	for _, d := range []string{"sunday", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday"} {
		if f == d || f == d[:3] {
			return true
		}
	}
	return false
}

// parseDateField reads "YYYY-MM-DD", "YYYY-Mon-DD", "MM/DD/YYYY" or
// "YYYY/MM/DD" (and with dots).
func parseDateField(f string, dt *DateTime) error {
	sep := "-"
	if strings.ContainsRune(f, '/') {
		sep = "/"
	} else if strings.ContainsRune(f, '.') {
		sep = "."
	}
	p := strings.Split(f, sep)
	if len(p) != 3 || p[0] == "" || p[1] == "" || p[2] == "" {
		return ErrDateTimeSyntax
	}
	var a, b, c int
	var err error
	if a, err = strconv.Atoi(p[0]); err != nil {
		return ErrDateTimeSyntax
	}
	if m := monthNumber(p[1]); m > 0 {
		b = m
	} else if b, err = strconv.Atoi(p[1]); err != nil {
		return ErrDateTimeSyntax
	}
	if c, err = strconv.Atoi(p[2]); err != nil {
		return ErrDateTimeSyntax
	}
	switch {
	case len(p[0]) >= 3: // year first
		dt.Year, dt.Month, dt.Day = a, b, c
	case sep == "-" && len(p[2]) < 3:
		return ErrDateTimeSyntax
	default: // MDY
		dt.Month, dt.Day, dt.Year = a, b, c
		if len(p[2]) <= 2 {
			dt.Year = adjustTwoDigitYear(c)
		}
	}
	dt.HasDate = true
	return nil
}

// adjustTwoDigitYear maps 70..99 to 1970..1999 and 0..69 to 2000..2069.
func adjustTwoDigitYear(y int) int {
	if y < 70 {
		return y + 2000
	}
	return y + 1900
}

// parseClock reads "hh:mm[:ss[.ffffff]]" into microseconds (24:00:00
// at most).
func parseClock(f string) (int64, error) {
	parts := strings.Split(f, ":")
	if len(parts) < 2 || len(parts) > 3 {
		return 0, ErrDateTimeSyntax
	}
	h, err1 := strconv.Atoi(parts[0])
	m, err2 := strconv.Atoi(parts[1])
	if err1 != nil || err2 != nil || !isDigits(parts[0]) || !isDigits(parts[1]) {
		return 0, ErrDateTimeSyntax
	}
	var sec float64
	if len(parts) == 3 {
		if parts[2] == "" || parts[2][0] < '0' || parts[2][0] > '9' {
			return 0, ErrDateTimeSyntax
		}
		var err error
		if sec, err = strconv.ParseFloat(parts[2], 64); err != nil {
			return 0, ErrDateTimeSyntax
		}
	}
	us := int64(h)*MicrosPerHour + int64(m)*MicrosPerMinute + int64(math.RoundToEven(sec*MicrosPerSecond))
	if h > 24 || m > 59 || sec >= 60 || us > MicrosPerDay {
		return 0, ErrDateTimeRange
	}
	return us, nil
}

// parseZone reads "z", "+hh", "+hh:mm", "+hhmm", "+hh:mm:ss", UTC, GMT
// or an IANA name into a location.
func parseZone(f string) (*time.Location, error) {
	switch f {
	case "z", "zulu", "utc", "gmt", "ut":
		return time.UTC, nil
	}
	if f[0] != '+' && f[0] != '-' {
		return LoadZone(f)
	}
	off, ok := parseOffset(f[1:])
	if !ok {
		return nil, ErrDateTimeSyntax
	}
	if f[0] == '-' {
		off = -off
	}
	return time.FixedZone("", off), nil
}

// parseOffset reads "hh", "hhmm", "hh:mm" or "hh:mm:ss" as seconds.
func parseOffset(f string) (int, bool) {
	var h, m, sec int
	var err error
	switch {
	case strings.ContainsRune(f, ':'):
		p := strings.Split(f, ":")
		if len(p) > 3 {
			return 0, false
		}
		for i, x := range p {
			if !isDigits(x) || len(x) > 2 {
				return 0, false
			}
			v, _ := strconv.Atoi(x)
			switch i {
			case 0:
				h = v
			case 1:
				m = v
			case 2:
				sec = v
			}
		}
	case isDigits(f) && len(f) <= 2:
		h, err = strconv.Atoi(f)
	case isDigits(f) && len(f) == 4:
		h, _ = strconv.Atoi(f[:2])
		m, err = strconv.Atoi(f[2:])
	default:
		return 0, false
	}
	if err != nil || h > 15 || m > 59 || sec > 59 {
		return 0, false
	}
	return h*3600 + m*60 + sec, true
}

// ParseDate reads date text (ParseDateTime) into days since 1970-01-01;
// a time and zone after the date are dropped, as PostgreSQL's date_in
// does.
func ParseDate(s string) (int64, error) { return ParseDateIn(s, time.UTC) }

// ParseDateIn is ParseDate with 'now', 'today', 'tomorrow' and
// 'yesterday' read on the calendar of loc (the session's zone).
func ParseDateIn(s string, loc *time.Location) (int64, error) {
	dt, err := ParseDateTime(s)
	if err != nil {
		return 0, err
	}
	if dt.Relative != "" {
		us := relativeMicros(dt.Relative, loc, false)
		return floorDiv(us, MicrosPerDay), nil
	}
	if dt.Infinite != 0 || !dt.HasDate {
		return 0, ErrDateTimeSyntax
	}
	return floorDiv(time.Date(dt.Year, time.Month(dt.Month), dt.Day, 0, 0, 0, 0, time.UTC).Unix(), 86400), nil
}

// ParseTimestamp reads timestamp text into microseconds since the epoch,
// an explicit zone applied (timestamptz input with the session in UTC).
func ParseTimestamp(s string) (int64, error) {
	return ParseTimestampIn(s, time.UTC, true)
}

// ParseTimestampIn reads timestamp text into microseconds since the
// epoch. With useZone (timestamptz) the text is local time in loc unless
// it names its own zone; without (timestamp) it is wall-clock time and
// any zone is ignored. 'now', 'today', 'tomorrow' and 'yesterday' are
// read on the clock and calendar of loc either way.
func ParseTimestampIn(s string, loc *time.Location, useZone bool) (int64, error) {
	dt, err := ParseDateTime(s)
	if err != nil {
		return 0, err
	}
	if dt.Relative != "" {
		return relativeMicros(dt.Relative, loc, useZone), nil
	}
	if !useZone {
		loc = time.UTC
	}
	switch {
	case dt.Infinite > 0:
		return TimestampInfinity, nil
	case dt.Infinite < 0:
		return TimestampNegInfinity, nil
	case !dt.HasDate:
		return 0, ErrDateTimeSyntax
	case dt.Epoch:
		return 0, nil
	}
	if useZone && dt.Zone != nil {
		loc = dt.Zone
	}
	t := time.Date(dt.Year, time.Month(dt.Month), dt.Day, 0, 0, 0, 0, loc)
	if dt.Micros != 0 {
		// Add the time of day on the wall clock of loc.
		t = time.Date(dt.Year, time.Month(dt.Month), dt.Day, int(dt.Micros/MicrosPerHour), int(dt.Micros/MicrosPerMinute%60),
			int(dt.Micros/MicrosPerSecond%60), int(dt.Micros%MicrosPerSecond)*1000, loc)
	}
	if y := t.Year(); y < -4713 || y > 294276 {
		return 0, ErrDateTimeRange
	}
	return t.UnixMicro(), nil
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

// FormatTime renders microseconds since midnight as PostgreSQL prints a
// time: "04:05:06", "04:05:06.5".
func FormatTime(us int64) string {
	h := us / MicrosPerHour
	us -= h * MicrosPerHour
	m := us / MicrosPerMinute
	us -= m * MicrosPerMinute
	s := us / MicrosPerSecond
	b := appendPad2(nil, absU(h))
	b = append(b, ':')
	b = appendPad2(b, absU(m))
	b = append(b, ':')
	return string(appendSeconds(b, absU(s), absU(us-s*MicrosPerSecond)))
}

// ParseTime reads a time of day as PostgreSQL's time_in does for the
// common forms: "hh:mm", "hh:mm:ss[.ffffff]" (fractions rounded to
// microseconds), an optional AM/PM, "allballs", and a date-time whose
// date (and any zone) is dropped. 24:00:00 is allowed.
func ParseTime(s string) (int64, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	bad := errors.New("invalid input syntax for type time")
	if t == "allballs" {
		return 0, nil
	}
	if i := strings.IndexAny(t, " t"); i > 0 && strings.Count(t[:i], "-") == 2 {
		t = strings.TrimSpace(t[i+1:]) // a date first
	}
	pm, am := strings.HasSuffix(t, "pm"), strings.HasSuffix(t, "am")
	if pm || am {
		t = strings.TrimSpace(t[:len(t)-2])
	}
	// Drop a zone: "+02", "-05:30", "z", or a name after a space.
	if i := strings.IndexAny(t, "+-z "); i > 0 {
		t = t[:i]
	}
	parts := strings.Split(t, ":")
	if len(parts) < 2 || len(parts) > 3 {
		return 0, bad
	}
	h, err1 := strconv.Atoi(parts[0])
	m, err2 := strconv.Atoi(parts[1])
	if err1 != nil || err2 != nil || len(parts[0]) > 2 || len(parts[1]) != 2 {
		return 0, bad
	}
	var fs float64
	if len(parts) == 3 {
		if parts[2] == "" || parts[2][0] < '0' || parts[2][0] > '9' {
			return 0, bad
		}
		var err error
		if fs, err = strconv.ParseFloat(parts[2], 64); err != nil {
			return 0, bad
		}
	}
	if pm || am {
		if h < 1 || h > 12 {
			return 0, ErrTimeRange
		}
		if h == 12 {
			h = 0
		}
		if pm {
			h += 12
		}
	}
	us := int64(h)*MicrosPerHour + int64(m)*MicrosPerMinute + int64(math.RoundToEven(fs*MicrosPerSecond))
	if h < 0 || m < 0 || m > 59 || fs < 0 || fs >= 60 || us > MicrosPerDay {
		return 0, ErrTimeRange
	}
	return us, nil
}

// ErrTimeRange is a time field out of range ("25:00").
var ErrTimeRange = errors.New("date/time field value out of range")

// Now is the clock 'now', 'today', 'tomorrow' and 'yesterday' read
// (tests may replace it).
var Now = time.Now

// relativeMicros resolves a relative date/time word in loc: an instant
// (instant set: timestamptz) or wall-clock time (timestamp, date).
func relativeMicros(word string, loc *time.Location, instant bool) int64 {
	now := Now().In(loc)
	if word == "now" {
		if instant {
			return now.UnixMicro()
		}
		_, off := now.Zone()
		return now.UnixMicro() + int64(off)*MicrosPerSecond
	}
	y, m, d := now.Date()
	switch word {
	case "tomorrow":
		d++
	case "yesterday":
		d--
	}
	if instant {
		return time.Date(y, m, d, 0, 0, 0, 0, loc).UnixMicro()
	}
	return time.Date(y, m, d, 0, 0, 0, 0, time.UTC).UnixMicro()
}
