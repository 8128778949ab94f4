package types

import (
	"errors"
	"math"
	"strconv"
	"strings"
)

// IntervalValue is PostgreSQL's interval: months, days and microseconds kept
// apart, because a month is not a fixed number of days nor a day a fixed
// number of hours once time zones enter. Only comparison folds them
// (Cmp: a month is 30 days, a day 24 hours).
type IntervalValue struct {
	Months int32
	Days   int32
	Micros int64
}

// Microsecond counts used by intervals, times and timestamps.
const (
	MicrosPerSecond = 1_000_000
	MicrosPerMinute = 60 * MicrosPerSecond
	MicrosPerHour   = 60 * MicrosPerMinute
	MicrosPerDay    = 24 * MicrosPerHour
	daysPerMonth    = 30
)

// NewInterval is the KindInterval datum of iv: I holds the microseconds,
// S the months and days as 8 big-endian bytes (empty when both are zero,
// so equal intervals are equal Datums and a time-only interval does not
// allocate).
func NewInterval(iv IntervalValue) Datum {
	d := Datum{Kind: KindInterval, I: iv.Micros}
	if iv.Months != 0 || iv.Days != 0 {
		m, dd := uint32(iv.Months), uint32(iv.Days)
		d.S = string([]byte{byte(m >> 24), byte(m >> 16), byte(m >> 8), byte(m), byte(dd >> 24), byte(dd >> 16), byte(dd >> 8), byte(dd)})
	}
	return d
}

// Interval returns the value of a KindInterval datum.
func (d Datum) Interval() IntervalValue {
	iv := IntervalValue{Micros: d.I}
	if len(d.S) == 8 {
		s := d.S
		iv.Months = int32(uint32(s[0])<<24 | uint32(s[1])<<16 | uint32(s[2])<<8 | uint32(s[3]))
		iv.Days = int32(uint32(s[4])<<24 | uint32(s[5])<<16 | uint32(s[6])<<8 | uint32(s[7]))
	}
	return iv
}

// CmpKey is the interval's position in PostgreSQL's order
// (interval_cmp_value): the span in microseconds with 30-day months and
// 24-hour days, split into whole days and the microseconds left
// (0 <= rem < MicrosPerDay) so that it fits two int64s.
func (iv IntervalValue) CmpKey() (days, rem int64) {
	days = int64(iv.Months)*daysPerMonth + int64(iv.Days) + floorDiv(iv.Micros, MicrosPerDay)
	rem = iv.Micros - floorDiv(iv.Micros, MicrosPerDay)*MicrosPerDay
	return days, rem
}

// Cmp orders intervals as PostgreSQL does: '1 mon' = '30 days' =
// '720 hours'.
func (iv IntervalValue) Cmp(o IntervalValue) int {
	ad, ar := iv.CmpKey()
	bd, br := o.CmpKey()
	switch {
	case ad < bd, ad == bd && ar < br:
		return -1
	case ad > bd, ad == bd && ar > br:
		return 1
	}
	return 0
}

// ErrIntervalRange is an interval field value that does not fit (22015).
var ErrIntervalRange = errors.New("interval field value out of range")

// ErrIntervalOverflow is an interval whose fields fit but whose total
// months do not ('2147483647 years'): 22008.
var ErrIntervalOverflow = errors.New("interval out of range")

// ErrIntervalSyntax is text that is not an interval.
var ErrIntervalSyntax = errors.New("invalid input syntax for type interval")

// FormatInterval renders iv in PostgreSQL's default IntervalStyle
// (postgres): "1 year 2 mons 3 days 04:05:06.5", "-1 days +02:00:00",
// "00:00:00" for zero.
func FormatInterval(iv IntervalValue) string {
	return string(AppendInterval(nil, iv))
}

// AppendInterval appends FormatInterval(iv) to b.
func AppendInterval(b []byte, iv IntervalValue) []byte {
	start := len(b)
	isZero, isBefore := true, false
	part := func(v int64, unit string) {
		if v == 0 {
			return
		}
		if !isZero {
			b = append(b, ' ')
		}
		if isBefore && v > 0 {
			b = append(b, '+')
		}
		b = strconv.AppendInt(b, v, 10)
		b = append(b, ' ')
		b = append(b, unit...)
		if v != 1 {
			b = append(b, 's')
		}
		isBefore = v < 0
		isZero = false
	}
	part(int64(iv.Months/12), "year")
	part(int64(iv.Months%12), "mon")
	part(int64(iv.Days), "day")
	t := iv.Micros
	hour := t / MicrosPerHour
	t -= hour * MicrosPerHour
	min := t / MicrosPerMinute
	t -= min * MicrosPerMinute
	sec := t / MicrosPerSecond
	fsec := t - sec*MicrosPerSecond
	if isZero || hour != 0 || min != 0 || sec != 0 || fsec != 0 {
		minus := hour < 0 || min < 0 || sec < 0 || fsec < 0
		if len(b) > start {
			b = append(b, ' ')
		}
		if minus {
			b = append(b, '-')
		} else if isBefore {
			b = append(b, '+')
		}
		b = appendPad2(b, absU(hour))
		b = append(b, ':')
		b = appendPad2(b, absU(min))
		b = append(b, ':')
		b = appendSeconds(b, absU(sec), absU(fsec))
	}
	return b
}

func absU(v int64) uint64 {
	if v < 0 {
		return uint64(-v)
	}
	return uint64(v)
}

func appendPad2(b []byte, v uint64) []byte {
	if v < 10 {
		b = append(b, '0')
	}
	return strconv.AppendUint(b, v, 10)
}

// appendSeconds appends seconds as two digits and, when fsec (micros) is
// not zero, a fraction without trailing zeros.
func appendSeconds(b []byte, sec, fsec uint64) []byte {
	b = appendPad2(b, sec)
	if fsec != 0 {
		f := []byte(strconv.FormatUint(fsec+MicrosPerSecond, 10))[1:]
		for len(f) > 0 && f[len(f)-1] == '0' {
			f = f[:len(f)-1]
		}
		b = append(b, '.')
		b = append(b, f...)
	}
	return b
}

// intervalAcc accumulates an interval while parsing, with the fractional
// carries PostgreSQL's DecodeInterval applies (a fraction of a month
// spills into days at 30 days a month, of a day into microseconds).
// overflow records a sum that left int64.
type intervalAcc struct {
	imonths, idays, imicros int64
	overflow                bool
	yearsOverflow           bool    // months from years left int32
	years                   float64 // whole years so far (tm_year), which must fit int32
}

// add64 adds v to *dst, recording overflow.
func (a *intervalAcc) add64(dst *int64, v int64) {
	r := *dst + v
	if (r > *dst) != (v > 0) && v != 0 {
		a.overflow = true
	}
	*dst = r
}

// addYears adds v years; a fraction of a year rounds to whole months
// (PostgreSQL: tm_mon += rint(fval * 12)).
func (a *intervalAcc) addYears(v, monthsPerUnit float64) {
	whole := math.Trunc(v)
	// The year count so far must fit (22015, as tm_year does); the
	// months it makes may not (22008).
	a.years += whole * monthsPerUnit / 12
	if a.years > math.MaxInt32 || a.years < math.MinInt32 {
		a.overflow = true
		return
	}
	m := whole*monthsPerUnit + math.RoundToEven((v-whole)*monthsPerUnit)
	if m > math.MaxInt32 || m < math.MinInt32 {
		a.yearsOverflow = true
		return
	}
	a.add64(&a.imonths, int64(m))
}

func (a *intervalAcc) addMonths(v float64) {
	whole := math.Trunc(v)
	if math.Abs(whole) > 1<<40 {
		a.overflow = true
		return
	}
	a.add64(&a.imonths, int64(whole))
	a.addDays((v - whole) * daysPerMonth)
}

func (a *intervalAcc) addDays(v float64) {
	whole := math.Trunc(v)
	if math.Abs(whole) > 1<<40 {
		a.overflow = true
		return
	}
	a.add64(&a.idays, int64(whole))
	a.addMicros((v - whole) * MicrosPerDay)
}

func (a *intervalAcc) addMicros(v float64) {
	r := math.RoundToEven(v)
	if r >= 1<<63 || r < -(1<<63) || math.IsNaN(r) {
		a.overflow = true
		return
	}
	a.add64(&a.imicros, int64(r))
}

// intervalUnits maps unit words (PostgreSQL's deltatktbl) to a unit
// kind and a factor within that kind: months, days or microseconds.
var intervalUnits = map[string]struct {
	kind   byte // 'Y' years (factor in months), 'M' months, 'D' days, 'U' microseconds
	factor float64
}{
	"millennium": {'Y', 12000}, "millennia": {'Y', 12000}, "millenniums": {'Y', 12000}, "mil": {'Y', 12000}, "mils": {'Y', 12000},
	"century": {'Y', 1200}, "centuries": {'Y', 1200}, "cent": {'Y', 1200}, "c": {'Y', 1200},
	"decade": {'Y', 120}, "decades": {'Y', 120}, "dec": {'Y', 120}, "decs": {'Y', 120},
	"year": {'Y', 12}, "years": {'Y', 12}, "y": {'Y', 12}, "yr": {'Y', 12}, "yrs": {'Y', 12},
	"month": {'M', 1}, "months": {'M', 1}, "mon": {'M', 1}, "mons": {'M', 1},
	"week": {'D', 7}, "weeks": {'D', 7}, "w": {'D', 7},
	"day": {'D', 1}, "days": {'D', 1}, "d": {'D', 1},
	"hour": {'U', MicrosPerHour}, "hours": {'U', MicrosPerHour}, "h": {'U', MicrosPerHour}, "hr": {'U', MicrosPerHour}, "hrs": {'U', MicrosPerHour},
	"minute": {'U', MicrosPerMinute}, "minutes": {'U', MicrosPerMinute}, "min": {'U', MicrosPerMinute}, "mins": {'U', MicrosPerMinute}, "m": {'U', MicrosPerMinute},
	"second": {'U', MicrosPerSecond}, "seconds": {'U', MicrosPerSecond}, "sec": {'U', MicrosPerSecond}, "secs": {'U', MicrosPerSecond}, "s": {'U', MicrosPerSecond},
	"millisecond": {'U', 1000}, "milliseconds": {'U', 1000}, "ms": {'U', 1000}, "msec": {'U', 1000}, "msecs": {'U', 1000}, "millisecon": {'U', 1000},
	"microsecond": {'U', 1}, "microseconds": {'U', 1}, "us": {'U', 1}, "usec": {'U', 1}, "usecs": {'U', 1}, "microsecon": {'U', 1},
}

// ParseInterval reads interval text as PostgreSQL's interval_in does
// with the default IntervalStyle: a sequence of "number unit" pairs
// (units in any case, singular, plural or abbreviated, fractions spilling
// into smaller units), an optional leading "@", a time "[-]h:m[:s[.f]]",
// a bare number (seconds), "y-m" year-month, a trailing "ago" that
// negates everything, and ISO 8601 "P1Y2M3DT4H5M6S" (also the
// alternative "P0001-02-03T04:05:06"). ErrIntervalSyntax or
// ErrIntervalRange otherwise.
func ParseInterval(s string) (IntervalValue, error) {
	s = strings.ToLower(strings.TrimSpace(s))
	if s == "" {
		return IntervalValue{}, ErrIntervalSyntax
	}
	if s[0] == 'p' {
		return parseISOInterval(s[1:])
	}
	var acc intervalAcc
	fields := splitIntervalFields(s)
	if len(fields) == 0 {
		return IntervalValue{}, ErrIntervalSyntax
	}
	ago := false
	if fields[0] == "@" {
		fields = fields[1:]
	}
	if n := len(fields); n > 0 && fields[n-1] == "ago" {
		ago = true
		fields = fields[:n-1]
	}
	if len(fields) == 0 {
		return IntervalValue{}, ErrIntervalSyntax
	}
	seen := map[string]bool{}
	for i := 0; i < len(fields); i++ {
		f := fields[i]
		switch {
		case strings.ContainsRune(f, ':'):
			// A time field sets hours, minutes and seconds at once.
			if seen["hour"] || seen["minute"] || seen["sec"] || seen["msec"] || seen["usec"] {
				return IntervalValue{}, ErrIntervalSyntax
			}
			seen["hour"], seen["minute"], seen["sec"], seen["msec"], seen["usec"] = true, true, true, true, true
			us, err := parseIntervalTime(f)
			if err != nil {
				return IntervalValue{}, err
			}
			acc.add64(&acc.imicros, us)
		case isIntervalNumber(f):
			unit := ""
			if i+1 < len(fields) && !isIntervalNumber(fields[i+1]) && !strings.ContainsRune(fields[i+1], ':') {
				unit = fields[i+1]
				i++
			} else if j := strings.IndexFunc(f[1:], func(r rune) bool { return r >= 'a' && r <= 'z' }); j >= 0 {
				unit = f[j+1:]
				f = f[:j+1]
			}
			if ym := strings.IndexByte(f[1:], '-'); ym >= 0 && unit == "" {
				// SQL standard year-month "1-2".
				y, err1 := strconv.ParseInt(f[:ym+1], 10, 64)
				m, err2 := strconv.ParseInt(f[ym+2:], 10, 64)
				if err1 != nil || err2 != nil || seen["ym"] {
					return IntervalValue{}, ErrIntervalSyntax
				}
				seen["ym"] = true
				if y < 0 || f[0] == '-' {
					m = -m
				}
				if y > math.MaxInt32 || y < math.MinInt32 || m > math.MaxInt32 {
					return IntervalValue{}, ErrIntervalRange
				}
				acc.add64(&acc.imonths, y*12+m)
				continue
			}
			v, err := strconv.ParseFloat(f, 64)
			if err != nil || math.IsInf(v, 0) || math.IsNaN(v) {
				return IntervalValue{}, ErrIntervalSyntax
			}
			if unit == "" {
				// A bare number is seconds; before a time field, days
				// ("1 2:03:04").
				if i+1 < len(fields) && strings.ContainsRune(fields[i+1], ':') {
					unit = "day"
				} else {
					unit = "second"
				}
			}
			u, ok := intervalUnits[unit]
			key := string(u.kind) + strconv.FormatFloat(u.factor, 'g', -1, 64)
			switch {
			case u.kind != 'U':
			case u.factor == MicrosPerHour:
				key = "hour"
			case u.factor == MicrosPerMinute:
				key = "minute"
			case u.factor == MicrosPerSecond:
				key = "sec"
			case u.factor == 1000:
				key = "msec" // seconds, milliseconds and microseconds are three fields
			case u.factor == 1:
				key = "usec"
			}
			if !ok || seen[key] {
				return IntervalValue{}, ErrIntervalSyntax
			}
			seen[key] = true
			switch u.kind {
			case 'Y':
				acc.addYears(v, u.factor)
			case 'M':
				acc.addMonths(v * u.factor)
			case 'D':
				acc.addDays(v * u.factor)
			default:
				if n, err := strconv.ParseInt(f, 10, 64); err == nil {
					// An integer count: exact, overflow checked.
					p := n * int64(u.factor)
					if n != 0 && (p/n != int64(u.factor)) {
						acc.overflow = true
					} else {
						acc.add64(&acc.imicros, p)
					}
				} else {
					acc.addMicros(v * u.factor)
				}
			}
		default:
			return IntervalValue{}, ErrIntervalSyntax
		}
	}
	iv, err := acc.result()
	if err != nil {
		return IntervalValue{}, err
	}
	if ago {
		if iv.Months == math.MinInt32 || iv.Days == math.MinInt32 || iv.Micros == math.MinInt64 {
			return IntervalValue{}, ErrIntervalRange
		}
		iv = IntervalValue{-iv.Months, -iv.Days, -iv.Micros}
	}
	return iv, nil
}

func (a *intervalAcc) result() (IntervalValue, error) {
	if a.yearsOverflow && !a.overflow {
		return IntervalValue{}, ErrIntervalOverflow
	}
	if a.overflow || a.imonths < math.MinInt32 || a.imonths > math.MaxInt32 || a.idays < math.MinInt32 || a.idays > math.MaxInt32 {
		return IntervalValue{}, ErrIntervalRange
	}
	return IntervalValue{Months: int32(a.imonths), Days: int32(a.idays), Micros: a.imicros}, nil
}

// splitIntervalFields splits interval text at spaces and between a
// number and a following sign ("1day-2hours" is rare; spaces suffice)
// and drops commas.
func splitIntervalFields(s string) []string {
	return strings.Fields(strings.ReplaceAll(s, ",", " "))
}

func isIntervalNumber(f string) bool {
	if f == "" {
		return false
	}
	i := 0
	if f[0] == '+' || f[0] == '-' {
		i++
	}
	return i < len(f) && (f[i] >= '0' && f[i] <= '9' || f[i] == '.' && i+1 < len(f) && f[i+1] >= '0' && f[i+1] <= '9')
}

// parseIntervalTime reads "[+-]h:m[:s[.f]]" into microseconds.
func parseIntervalTime(f string) (int64, error) {
	neg := false
	if f != "" && (f[0] == '-' || f[0] == '+') {
		neg = f[0] == '-'
		f = f[1:]
	}
	parts := strings.Split(f, ":")
	if len(parts) < 2 || len(parts) > 3 {
		return 0, ErrIntervalSyntax
	}
	h, err := strconv.ParseInt(parts[0], 10, 64)
	if err != nil || h < 0 {
		return 0, ErrIntervalSyntax
	}
	var m int64
	var sec float64
	if len(parts) == 2 && strings.ContainsRune(parts[1], '.') {
		// "m:s.f": minutes and seconds.
		x, err := strconv.ParseFloat(parts[1], 64)
		if err != nil || x < 0 {
			return 0, ErrIntervalSyntax
		}
		m, sec = h, x
		h = 0
	} else {
		if m, err = strconv.ParseInt(parts[1], 10, 64); err != nil || m < 0 || m > 59 {
			return 0, ErrIntervalSyntax
		}
		if len(parts) == 3 {
			if sec, err = strconv.ParseFloat(parts[2], 64); err != nil || sec < 0 || sec >= 60 || parts[2][0] == '+' || parts[2][0] == '-' {
				return 0, ErrIntervalSyntax
			}
		}
	}
	// The magnitude may reach 2^63 (a negative time of MinInt64).
	if uint64(h) > (1<<63)/MicrosPerHour {
		return 0, ErrIntervalRange
	}
	mag := uint64(h)*MicrosPerHour + uint64(m)*MicrosPerMinute + uint64(math.RoundToEven(sec*MicrosPerSecond))
	if mag < uint64(h)*MicrosPerHour || mag > 1<<63 || (!neg && mag == 1<<63) {
		return 0, ErrIntervalRange
	}
	if neg {
		return int64(-mag), nil
	}
	return int64(mag), nil
}

// parseISOInterval reads the part after "P" of an ISO 8601 duration:
// designators ("1Y2M3DT4H5M6.5S", fractions allowed), or the alternative
// forms of either part: "YYYY-MM-DD", "YYYYMMDD" or a year count before
// T, "hh:mm[:ss]", "hhmmss" or an hour count after it.
func parseISOInterval(s string) (IntervalValue, error) {
	var acc intervalAcc
	if s == "" {
		return IntervalValue{}, ErrIntervalSyntax
	}
	datePart, timePart, hasTime := strings.Cut(s, "t")
	if hasTime && timePart == "" {
		return IntervalValue{}, ErrIntervalSyntax
	}
	if datePart != "" {
		var err error
		if strings.ContainsAny(datePart, "ymwd") {
			err = isoDesignators(&acc, datePart, false)
		} else {
			err = isoAltDate(&acc, datePart)
		}
		if err != nil {
			return IntervalValue{}, err
		}
	}
	if hasTime {
		var err error
		switch {
		case strings.ContainsAny(timePart, "hms"):
			err = isoDesignators(&acc, timePart, true)
		case strings.ContainsRune(timePart, ':'):
			var us int64
			if us, err = parseIntervalTime(timePart); err == nil {
				acc.add64(&acc.imicros, us)
			}
		case len(timePart) == 6 && isDigits(timePart):
			h, _ := strconv.ParseInt(timePart[:2], 10, 64)
			m, _ := strconv.ParseInt(timePart[2:4], 10, 64)
			sec, _ := strconv.ParseInt(timePart[4:], 10, 64)
			acc.add64(&acc.imicros, h*MicrosPerHour+m*MicrosPerMinute+sec*MicrosPerSecond)
		default:
			v, perr := strconv.ParseFloat(timePart, 64)
			if perr != nil {
				return IntervalValue{}, ErrIntervalSyntax
			}
			acc.addMicros(v * MicrosPerHour)
		}
		if err != nil {
			return IntervalValue{}, err
		}
	}
	return acc.result()
}

// isoDesignators reads "1Y2M3D" (date) or "4H5M6.5S" (time).
func isoDesignators(acc *intervalAcc, s string, inTime bool) error {
	for s != "" {
		j := 0
		if s[j] == '-' || s[j] == '+' {
			j++
		}
		for j < len(s) && (s[j] >= '0' && s[j] <= '9' || s[j] == '.' || s[j] == 'e' && j > 0 && j+1 < len(s) && s[j+1] >= '0' && s[j+1] <= '9') {
			j++
		}
		if j == 0 || j >= len(s) {
			return ErrIntervalSyntax
		}
		v, err := strconv.ParseFloat(s[:j], 64)
		if err != nil {
			return ErrIntervalSyntax
		}
		switch u := s[j]; {
		case u == 'y' && !inTime:
			acc.addYears(v, 12)
		case u == 'm' && !inTime:
			acc.addMonths(v)
		case u == 'w' && !inTime:
			acc.addDays(v * 7)
		case u == 'd' && !inTime:
			acc.addDays(v)
		case u == 'h' && inTime:
			acc.addMicros(v * MicrosPerHour)
		case u == 'm' && inTime:
			acc.addMicros(v * MicrosPerMinute)
		case u == 's' && inTime:
			acc.addMicros(v * MicrosPerSecond)
		default:
			return ErrIntervalSyntax
		}
		s = s[j+1:]
	}
	return nil
}

// isoAltDate reads the alternative date part: "YYYY-MM-DD" (one to
// three fields), "YYYYMMDD", or a number of years.
func isoAltDate(acc *intervalAcc, s string) error {
	if len(s) == 8 && isDigits(s) {
		y, _ := strconv.ParseInt(s[:4], 10, 64)
		m, _ := strconv.ParseInt(s[4:6], 10, 64)
		d, _ := strconv.ParseInt(s[6:], 10, 64)
		acc.add64(&acc.imonths, y*12+m)
		acc.add64(&acc.idays, d)
		return nil
	}
	for i, p := range strings.Split(s, "-") {
		v, err := strconv.ParseFloat(p, 64)
		if err != nil || i > 2 {
			return ErrIntervalSyntax
		}
		switch i {
		case 0:
			acc.addYears(v, 12)
		case 1:
			acc.addMonths(v)
		case 2:
			acc.addDays(v)
		}
	}
	return nil
}

// Interval qualifier fields (INTERVAL DAY TO SECOND), largest first.
var intervalQualFields = []string{"", "year", "month", "day", "hour", "minute", "second"}

// IntervalQualifier reads a qualified interval type name ("interval",
// "interval year to month", "interval second") into the codes of its
// largest and smallest fields (1 year .. 6 second; 0, 0 for none).
func IntervalQualifier(name string) (from, to int, ok bool) {
	words := strings.Fields(name)
	if len(words) == 0 || words[0] != "interval" {
		return 0, 0, false
	}
	code := func(w string) int {
		for i, f := range intervalQualFields {
			if i > 0 && f == w {
				return i
			}
		}
		return 0
	}
	switch len(words) {
	case 1:
		return 0, 0, true
	case 2:
		c := code(words[1])
		return c, c, c > 0
	case 4:
		a, b := code(words[1]), code(words[3])
		return a, b, a > 0 && b > a && words[2] == "to"
	}
	return 0, 0, false
}

// ParseIntervalQualified reads interval text under a qualifier as
// PostgreSQL's DecodeInterval does with a typmod range, then truncates
// the value to the smallest field and rounds seconds to precision
// (negative: none). When the text is only bare numbers and times, the
// fields are typed right to left: the rightmost bare number is the
// qualifier's smallest field ('999' SECOND is 999 seconds), a bare
// number left of hours or of a time is days ('1 2' DAY TO HOUR is 1 day 2
// hours), and any other takes the type of the one to its right, so two
// of them are the same field twice, a syntax error ('1 2' DAY TO MINUTE).
// A time "m:s" is minutes and seconds under MINUTE TO SECOND.
func ParseIntervalQualified(s string, from, to, precision int) (IntervalValue, error) {
	if to > 0 {
		if typed, ok := typeQualifiedFields(strings.Fields(strings.ToLower(strings.TrimSpace(s))), from, to); ok {
			s = typed
		}
	}
	iv, err := ParseInterval(s)
	if err != nil {
		return iv, err
	}
	return TruncateInterval(iv, to, precision), nil
}

// typeQualifiedFields spells out the fields of ParseIntervalQualified's
// text with their units; ok is false when a field is neither a bare
// number nor a time (the text is then read as it is).
func typeQualifiedFields(fields []string, from, to int) (string, bool) {
	if len(fields) == 0 {
		return "", false
	}
	out := make([]string, len(fields))
	next := to
	for k := len(fields) - 1; k >= 0; k-- {
		f := fields[k]
		switch {
		case isIntervalTime(f):
			if from == 5 && to == 6 && strings.Count(f, ":") == 1 && !strings.Contains(f, ".") {
				// m:s, kept signed: "-2:03" is "-00:2:03".
				sign := ""
				if f[0] == '-' || f[0] == '+' {
					sign, f = f[:1], f[1:]
				}
				f = sign + "00:" + f
			}
			out[k] = f
			next = 3
		case isIntervalNumber(f) && !strings.ContainsAny(f[1:], "-+:abcdefghijklmnopqrstuvwxyz"):
			out[k] = f + " " + intervalQualFields[next]
			if next == 4 {
				next = 3
			}
		default:
			return "", false
		}
	}
	return strings.Join(out, " "), true
}

// isIntervalTime reports whether f is a signed or unsigned h:m[:s[.f]]
// (or m:s.f) time field.
func isIntervalTime(f string) bool {
	if f != "" && (f[0] == '-' || f[0] == '+') {
		f = f[1:]
	}
	if !strings.Contains(f, ":") || f[0] == ':' {
		return false
	}
	for _, c := range f {
		if c != ':' && c != '.' && (c < '0' || c > '9') {
			return false
		}
	}
	return true
}

// TruncateInterval drops the fields below to (a qualifier's smallest
// field) and rounds seconds to precision digits (negative: no rounding).
func TruncateInterval(iv IntervalValue, to, precision int) IntervalValue {
	switch to {
	case 1:
		iv.Months, iv.Days, iv.Micros = iv.Months/12*12, 0, 0
	case 2:
		iv.Days, iv.Micros = 0, 0
	case 3:
		iv.Micros = 0
	case 4:
		iv.Micros = iv.Micros / MicrosPerHour * MicrosPerHour
	case 5:
		iv.Micros = iv.Micros / MicrosPerMinute * MicrosPerMinute
	}
	if precision >= 0 && precision < 6 {
		unit := int64(math.Pow10(6 - precision))
		q := iv.Micros / unit
		r := iv.Micros - q*unit
		if 2*absI64(r) >= unit { // half away from zero
			if iv.Micros < 0 {
				q--
			} else {
				q++
			}
		}
		iv.Micros = q * unit
	}
	return iv
}

func absI64(v int64) int64 {
	if v < 0 {
		return -v
	}
	return v
}

// intervalTypmod is PostgreSQL's interval typmod: the qualifier's field
// mask in the high 16 bits (0x7FFF: all), the seconds precision in the
// low ones (0xFFFF: full).
func intervalTypmod(from, to, precision int) int32 {
	// PostgreSQL's field bits: MONTH 1, YEAR 2, DAY 3, HOUR 10, MINUTE 11, SECOND 12.
	bits := []int32{0, 1 << 2, 1 << 1, 1 << 3, 1 << 10, 1 << 11, 1 << 12}
	rng := int32(0x7FFF)
	if from > 0 {
		rng = 0
		for f := from; f <= to; f++ {
			rng |= bits[f]
		}
	}
	prec := int32(0xFFFF)
	if precision >= 0 {
		prec = int32(precision)
	}
	return rng<<16 | prec
}

// RoundMicros rounds microseconds to p fractional digits of a second,
// halves away from zero (PostgreSQL's AdjustTimestampForTypmod).
func RoundMicros(us int64, p int) int64 {
	if p < 0 || p >= 6 {
		return us
	}
	unit := int64(math.Pow10(6 - p))
	if us >= 0 {
		return (us + unit/2) / unit * unit
	}
	return -((-us + unit/2) / unit * unit)
}

// IntervalTypmodSuffix is what format_type appends to "interval" for a
// typmod: " day to second(2)", " year", "(3)".
func IntervalTypmodSuffix(typmod int32) string {
	rng, prec := typmod>>16&0x7FFF, typmod&0xFFFF
	s := ""
	if rng != 0x7FFF {
		bits := []int32{0, 1 << 2, 1 << 1, 1 << 3, 1 << 10, 1 << 11, 1 << 12}
		from, to := 0, 0
		for f := 1; f <= 6; f++ {
			if rng&bits[f] != 0 {
				if from == 0 {
					from = f
				}
				to = f
			}
		}
		if from > 0 {
			s = " " + intervalQualFields[from]
			if to != from {
				s += " to " + intervalQualFields[to]
			}
		}
	}
	if prec != 0xFFFF {
		s += "(" + strconv.Itoa(int(prec)) + ")"
	}
	return s
}
