package eval

import (
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/types"
)

// to_char, to_date and to_timestamp: PostgreSQL's formatting functions
// (formatting.c) for the common template patterns.

var (
	monthFull = []string{"January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"}
	dayFull   = []string{"Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"}
	romans    = []string{"I", "II", "III", "IV", "V", "VI", "VII", "VIII", "IX", "X", "XI", "XII"}
)

// datePatterns are the date/time template patterns, longest first so
// that the scan takes "HH24" before "HH" and "MONTH" before "MON".
var datePatterns = []string{
	"Y,YYY", "A.M.", "a.m.", "P.M.", "p.m.", "B.C.", "b.c.", "A.D.", "a.d.",
	"MONTH", "Month", "month", "SSSSS", "HH24", "HH12", "YYYY", "IYYY", "SSSS", "IDDD",
	"DAY", "Day", "day", "MON", "Mon", "mon", "YYY", "IYY", "DDD", "TZH", "TZM",
	"HH", "MI", "SS", "MS", "US", "AM", "am", "PM", "pm", "BC", "bc", "AD", "ad",
	"DY", "Dy", "dy", "YY", "IY", "MM", "DD", "ID", "WW", "IW", "CC", "RM", "rm", "TZ", "tz", "OF",
	"FF1", "FF2", "FF3", "FF4", "FF5", "FF6",
	"Y", "I", "D", "W", "Q", "J",
}

// toChar is to_char(x, format) for a timestamp, timestamptz, interval or
// number x.
func toChar(env *Env, x types.Datum, t types.T, format string) (types.Datum, error) {
	switch x.Kind {
	case types.KindInt, types.KindFloat, types.KindDecimal:
		s, err := numberToCharAs(x, t.Family, format)
		if err != nil {
			return types.Null, err
		}
		return types.NewText(s), nil
	case types.KindTimestamp:
		if x.I == types.TimestampInfinity || x.I == types.TimestampNegInfinity {
			return types.Null, nil
		}
		loc := time.UTC
		if t.Family == types.TimestampTZ {
			loc = env.loc()
		}
		return types.NewText(dateToChar(dateFields(time.UnixMicro(x.I).In(loc), t.Family == types.TimestampTZ), format)), nil
	case types.KindInterval:
		return types.NewText(dateToChar(intervalFields(x.Interval()), format)), nil
	}
	return types.Null, pgerror.Newf(pgerror.UndefinedFunction, "function to_char(%s, text) does not exist", t)
}

// charFields are the values date patterns print.
type charFields struct {
	year, month, day, hour, min, sec, usec int64
	yday, wday                             int64 // 1-based day of year; 0 = Sunday
	isoYear, isoWeek                       int64
	julian                                 int64
	zone                                   string // abbreviation ("" without a zone)
	offset                                 int    // seconds east
	hasZone, interval                      bool
}

func dateFields(t time.Time, hasZone bool) charFields {
	iy, iw := t.ISOWeek()
	name, off := t.Zone()
	if name == "" || name[0] == '+' || name[0] == '-' {
		name = types.FormatOffsetName(off)
	}
	days := floorDiv(t.Unix()+int64(off), 86400)
	return charFields{
		year: int64(t.Year()), month: int64(t.Month()), day: int64(t.Day()),
		hour: int64(t.Hour()), min: int64(t.Minute()), sec: int64(t.Second()), usec: int64(t.Nanosecond() / 1000),
		yday: int64(t.YearDay()), wday: int64(t.Weekday()), isoYear: int64(iy), isoWeek: int64(iw),
		julian: days + 2440588, zone: name, offset: off, hasZone: hasZone,
	}
}

func intervalFields(iv types.IntervalValue) charFields {
	t := iv.Micros
	h := t / types.MicrosPerHour
	t -= h * types.MicrosPerHour
	m := t / types.MicrosPerMinute
	t -= m * types.MicrosPerMinute
	return charFields{
		year: int64(iv.Months / 12), month: int64(iv.Months % 12), day: int64(iv.Days),
		hour: h, min: m, sec: t / 1_000_000, usec: t % 1_000_000, interval: true,
	}
}

// padNum renders v with at least width digits (a minus sign first), or bare
// in fill mode.
func padNum(v int64, width int, fm bool) string {
	s := strconv.FormatInt(absInt(v), 10)
	if !fm {
		for len(s) < width {
			s = "0" + s
		}
	}
	if v < 0 {
		s = "-" + s
	}
	return s
}

func absInt(v int64) int64 {
	if v < 0 {
		return -v
	}
	return v
}

// ordinal is the English suffix of n: st, nd, rd or th.
func ordinal(n int64) string {
	n = absInt(n)
	if n%100 >= 11 && n%100 <= 13 {
		return "th"
	}
	switch n % 10 {
	case 1:
		return "st"
	case 2:
		return "nd"
	case 3:
		return "rd"
	}
	return "th"
}

// casePattern renders word in the case the pattern is written in: all
// upper ("MONTH"), capitalised ("Month") or lower ("month"), padded to
// width unless fm.
func casePattern(pat, word string, width int, fm bool) string {
	switch {
	case pat == strings.ToUpper(pat):
		word = strings.ToUpper(word)
	case pat == strings.ToLower(pat):
		word = strings.ToLower(word)
	}
	if !fm {
		for len(word) < width {
			word += " "
		}
	}
	return word
}

// dateToChar applies a date/time template to f.
func dateToChar(f charFields, format string) string {
	var b strings.Builder
	year := f.year
	bc := !f.interval && year <= 0
	if bc {
		year = 1 - year
	}
	hour12 := f.hour % 12
	if hour12 == 0 {
		hour12 = 12
	}
	for i := 0; i < len(format); {
		fm := false
		if strings.HasPrefix(format[i:], "FM") || strings.HasPrefix(format[i:], "fm") {
			fm = true
			i += 2
		}
		if strings.HasPrefix(format[i:], "FX") || strings.HasPrefix(format[i:], "fx") {
			i += 2
			continue
		}
		if i >= len(format) {
			break
		}
		c := format[i]
		if c == '"' {
			j := i + 1
			for j < len(format) && format[j] != '"' {
				if format[j] == '\\' && j+1 < len(format) {
					j++
				}
				b.WriteByte(format[j])
				j++
			}
			i = j + 1
			continue
		}
		if c == '\\' && i+1 < len(format) && format[i+1] == '"' {
			b.WriteByte('"')
			i += 2
			continue
		}
		pat := matchPattern(format[i:])
		if pat == "" {
			b.WriteByte(c)
			i++
			continue
		}
		i += len(pat)
		var out string
		num := int64(math.MinInt64) // the value, for a TH suffix
		switch pat {
		case "HH", "HH12":
			num, out = hour12, padNum(hour12, 2, fm)
			if f.interval {
				num, out = f.hour, padNum(f.hour, 2, fm)
			}
		case "HH24":
			num, out = f.hour, padNum(f.hour, 2, fm)
		case "MI":
			num, out = f.min, padNum(f.min, 2, fm)
		case "SS":
			num, out = f.sec, padNum(f.sec, 2, fm)
		case "MS":
			num, out = f.usec/1000, padNum(f.usec/1000, 3, fm)
		case "US":
			num, out = f.usec, padNum(f.usec, 6, fm)
		case "FF1", "FF2", "FF3", "FF4", "FF5", "FF6":
			n := int(pat[2] - '0')
			v := f.usec / int64(math.Pow10(6-n))
			num, out = v, padNum(v, n, fm)
		case "SSSS", "SSSSS":
			v := f.hour*3600 + f.min*60 + f.sec
			num, out = v, strconv.FormatInt(v, 10)
		case "AM", "PM", "am", "pm", "A.M.", "P.M.", "a.m.", "p.m.":
			word := "am"
			if f.hour%24 >= 12 {
				word = "pm"
			}
			if strings.Contains(pat, ".") {
				word = word[:1] + "." + word[1:] + "."
			}
			if pat[0] >= 'A' && pat[0] <= 'Z' {
				word = strings.ToUpper(word)
			}
			out = word
		case "BC", "AD", "bc", "ad", "B.C.", "A.D.", "b.c.", "a.d.":
			word := "ad"
			if bc {
				word = "bc"
			}
			if strings.Contains(pat, ".") {
				word = word[:1] + "." + word[1:] + "."
			}
			if pat[0] >= 'A' && pat[0] <= 'Z' {
				word = strings.ToUpper(word)
			}
			out = word
		case "Y,YYY":
			s := padNum(year, 4, false)
			out = s[:len(s)-3] + "," + s[len(s)-3:]
		case "YYYY":
			num, out = year, padNum(year, 4, fm)
		case "YYY", "YY", "Y":
			n := len(pat)
			v := year % int64(math.Pow10(n))
			num, out = v, padNum(v, n, fm)
		case "IYYY":
			num, out = f.isoYear, padNum(f.isoYear, 4, fm)
		case "IYY", "IY", "I":
			n := len(pat)
			v := f.isoYear % int64(math.Pow10(n))
			num, out = v, padNum(v, n, fm)
		case "MONTH", "Month", "month":
			if f.month >= 1 && f.month <= 12 {
				out = casePattern(pat, monthFull[f.month-1], 9, fm)
			}
		case "MON", "Mon", "mon":
			if f.month >= 1 && f.month <= 12 {
				out = casePattern(pat, monthFull[f.month-1][:3], 3, true)
			}
		case "MM":
			num, out = f.month, padNum(f.month, 2, fm)
		case "DAY", "Day", "day":
			if !f.interval {
				out = casePattern(pat, dayFull[f.wday], 9, fm)
			}
		case "DY", "Dy", "dy":
			if !f.interval {
				out = casePattern(pat, dayFull[f.wday][:3], 3, true)
			}
		case "DDD":
			num, out = f.yday, padNum(f.yday, 3, fm)
		case "IDDD":
			v := (f.isoWeek-1)*7 + (f.wday+6)%7 + 1
			num, out = v, padNum(v, 3, fm)
		case "DD":
			num, out = f.day, padNum(f.day, 2, fm)
		case "D":
			num, out = f.wday+1, strconv.FormatInt(f.wday+1, 10)
		case "ID":
			v := (f.wday+6)%7 + 1
			num, out = v, strconv.FormatInt(v, 10)
		case "W":
			v := (f.day-1)/7 + 1
			num, out = v, strconv.FormatInt(v, 10)
		case "WW":
			v := (f.yday-1)/7 + 1
			num, out = v, padNum(v, 2, fm)
		case "IW":
			num, out = f.isoWeek, padNum(f.isoWeek, 2, fm)
		case "CC":
			var v int64
			if f.interval {
				v = year / 100
			} else if f.year > 0 {
				v = (f.year + 99) / 100
			} else {
				v = -((99 - (f.year - 1)) / 100)
			}
			num, out = v, padNum(v, 2, fm)
		case "Q":
			v := (f.month-1)/3 + 1
			num, out = v, strconv.FormatInt(v, 10)
		case "J":
			num, out = f.julian, strconv.FormatInt(f.julian, 10)
		case "RM", "rm":
			if f.month >= 1 && f.month <= 12 {
				out = casePattern(pat, romans[f.month-1], 4, fm)
			}
		case "TZ", "tz":
			if f.hasZone {
				out = f.zone
				if pat == "tz" {
					out = strings.ToLower(out)
				}
			}
		case "OF":
			if f.hasZone {
				out = types.FormatOffsetName(f.offset)
			}
		case "TZH":
			if f.hasZone {
				out = types.FormatOffsetName(f.offset / 3600 * 3600)
			}
		case "TZM":
			if f.hasZone {
				out = padNum(int64(absInt(int64(f.offset))/60%60), 2, fm)
			}
		}
		b.WriteString(out)
		if num != math.MinInt64 && i+1 < len(format)+1 {
			switch {
			case strings.HasPrefix(format[i:], "TH"):
				b.WriteString(strings.ToUpper(ordinal(num)))
				i += 2
			case strings.HasPrefix(format[i:], "th"):
				b.WriteString(ordinal(num))
				i += 2
			}
		}
	}
	return b.String()
}

// toDate is to_date(text, format).
func toDate(s, format string) (types.Datum, error) {
	f, err := parseWithTemplate(s, format)
	if err != nil {
		return types.Null, err
	}
	return makeDate(f.year, f.month, f.day)
}

// toTimestamp is to_timestamp(text, format): the fields read in the
// session's time zone unless the text gives one (TZH/TZM).
func toTimestamp(env *Env, s, format string) (types.Datum, error) {
	f, err := parseWithTemplate(s, format)
	if err != nil {
		return types.Null, err
	}
	day, err := makeDate(f.year, f.month, f.day)
	if err != nil {
		return types.Null, err
	}
	if f.hour > 24 || f.min > 59 || f.sec > 60 {
		return types.Null, pgerror.Newf(codeDatetimeFieldOverflow, "date/time field value out of range: %q", s)
	}
	loc := env.loc()
	if f.hasZone {
		loc = time.FixedZone("", f.offset)
	}
	wall := timeMicros(day) + f.hour*types.MicrosPerHour + f.min*types.MicrosPerMinute + f.sec*types.MicrosPerSecond + f.usec
	return checkTimestamp(instantMicros(wall, loc))
}

// parseWithTemplate reads s by a date/time template (to_date,
// to_timestamp): numeric fields take as many digits as the pattern's
// width (or up to the next non-digit), names match in any case,
// literal characters and spaces are skipped. Missing fields default to
// year 1, January, day 1, midnight.
func parseWithTemplate(s, format string) (charFields, error) {
	f := charFields{year: 1, month: 1, day: 1}
	bad := func() (charFields, error) {
		return f, pgerror.Newf(pgerror.InvalidDatetimeFormat, "invalid value %q for template %q", s, format)
	}
	pm, am, bc := false, false, false
	hour12 := false
	j := 0
	skipSpaces := func() {
		for j < len(s) && s[j] == ' ' {
			j++
		}
	}
	readInt := func(max int) (int64, bool) {
		skipSpaces()
		start := j
		neg := false
		if j < len(s) && (s[j] == '-' || s[j] == '+') {
			neg = s[j] == '-'
			j++
			start = j
		}
		for j < len(s) && s[j] >= '0' && s[j] <= '9' && (max <= 0 || j-start < max) {
			j++
		}
		if j == start {
			return 0, false
		}
		v, err := strconv.ParseInt(s[start:j], 10, 64)
		if neg {
			v = -v
		}
		return v, err == nil
	}
	matchWord := func(words []string, n int) (int, bool) {
		skipSpaces()
		for i, w := range words {
			if n > 0 && len(w) > n {
				w = w[:n]
			}
			if len(s)-j >= len(w) && strings.EqualFold(s[j:j+len(w)], w) {
				j += len(w)
				return i, true
			}
		}
		return 0, false
	}
	for i := 0; i < len(format); {
		if strings.HasPrefix(format[i:], "FM") || strings.HasPrefix(format[i:], "fm") || strings.HasPrefix(format[i:], "FX") {
			i += 2
			continue
		}
		if format[i] == '"' {
			k := strings.IndexByte(format[i+1:], '"')
			if k < 0 {
				k = len(format) - i - 1
			}
			j += min(k, len(s)-j)
			i += k + 2
			continue
		}
		pat := matchPattern(format[i:])
		if pat == "" {
			// A separator: skip one non-alphanumeric character of s.
			if j < len(s) && !(s[j] >= '0' && s[j] <= '9' || s[j] >= 'a' && s[j] <= 'z' || s[j] >= 'A' && s[j] <= 'Z') {
				j++
			}
			i++
			continue
		}
		i += len(pat)
		var ok bool
		var v int64
		switch strings.ToUpper(pat) {
		case "YYYY", "IYYY":
			// Four digits when another field follows at once (YYYYMMDD),
			// else as many as there are.
			width := 0
			if i < len(format) && matchPattern(format[i:]) != "" {
				width = 4
			}
			f.year, ok = readInt(width)
		case "YYY", "YY", "Y", "IYY", "IY", "I":
			start := j
			v, ok = readInt(len(pat))
			n := j - start
			switch {
			case n == 2 && len(pat) == 2:
				v = int64(adjustYear2(int(v)))
			case n == 3 && len(pat) == 3:
				v += 1000 + map[bool]int64{true: 1000, false: 0}[v < 70]
			case n == 1:
				v += 2000
			}
			f.year = v
		case "MM":
			f.month, ok = readInt(2)
		case "DD":
			f.day, ok = readInt(2)
		case "HH", "HH12":
			f.hour, ok = readInt(2)
			hour12 = true
		case "HH24":
			f.hour, ok = readInt(2)
		case "MI":
			f.min, ok = readInt(2)
		case "SS":
			f.sec, ok = readInt(2)
		case "MS":
			start := j
			if v, ok = readInt(3); ok {
				for n := j - start; n < 3; n++ {
					v *= 10
				}
				f.usec += v * 1000
			}
		case "US":
			start := j
			if v, ok = readInt(6); ok {
				for n := j - start; n < 6; n++ {
					v *= 10
				}
				f.usec += v
			}
		case "MONTH":
			var m int
			m, ok = matchWord(monthFull, 0)
			f.month = int64(m + 1)
		case "MON":
			var m int
			m, ok = matchWord(monthFull, 3)
			f.month = int64(m + 1)
		case "DAY":
			_, ok = matchWord(dayFull, 0)
		case "DY":
			_, ok = matchWord(dayFull, 3)
		case "AM", "PM", "A.M.", "P.M.":
			var w int
			w, ok = matchWord([]string{"am", "pm", "a.m.", "p.m."}, 0)
			pm, am = w%2 == 1, w%2 == 0
		case "BC", "AD", "B.C.", "A.D.":
			var w int
			w, ok = matchWord([]string{"bc", "ad", "b.c.", "a.d."}, 0)
			bc = w%2 == 0
		case "TZH":
			if v, ok = readInt(2); ok {
				f.hasZone, f.offset = true, int(v)*3600
			}
		case "TZM":
			if v, ok = readInt(2); ok {
				if f.offset < 0 {
					v = -v
				}
				f.hasZone, f.offset = true, f.offset+int(v)*60
			}
		case "J":
			var jd int64
			if jd, ok = readInt(0); ok {
				t := time.Unix((jd-2440588)*86400, 0).UTC()
				f.year, f.month, f.day = int64(t.Year()), int64(t.Month()), int64(t.Day())
				if f.year <= 0 {
					f.year--
				}
			}
		case "D", "ID", "W", "WW", "IW", "Q", "CC", "DDD", "IDDD", "RM", "SSSS", "SSSSS", "TZ", "OF", "FF1", "FF2", "FF3", "FF4", "FF5", "FF6", "Y,YYY":
			return f, pgerror.Newf(pgerror.FeatureNotSupported, "template pattern %q is not supported in to_date/to_timestamp", pat)
		default:
			ok = true
		}
		if !ok {
			return bad()
		}
	}
	if hour12 || pm || am {
		if f.hour < 1 || f.hour > 12 {
			return f, pgerror.Newf(codeDatetimeFieldOverflow, "hour \"%d\" is invalid for the 12-hour clock", f.hour)
		}
		if f.hour == 12 {
			f.hour = 0
		}
		if pm {
			f.hour += 12
		}
	}
	if bc {
		f.year = -f.year
	}
	if f.month < 1 || f.month > 12 {
		return f, pgerror.Newf(codeDatetimeFieldOverflow, "date/time field value out of range: %q", s)
	}
	return f, nil
}

// adjustYear2 maps a two-digit year as PostgreSQL does: 70..99 are
// 1970..1999, 00..69 are 2000..2069.
func adjustYear2(y int) int {
	if y < 70 {
		return y + 2000
	}
	return y + 1900
}

// caseFree are the patterns whose output does not depend on the case
// they are written in (numbers): "yyyy" is "YYYY".
var caseFree = map[string]bool{
	"Y,YYY": true, "HH24": true, "HH12": true, "HH": true, "MI": true, "SS": true, "MS": true, "US": true,
	"SSSS": true, "SSSSS": true, "YYYY": true, "YYY": true, "YY": true, "Y": true, "IYYY": true, "IYY": true,
	"IY": true, "I": true, "DDD": true, "DD": true, "D": true, "ID": true, "IDDD": true, "W": true, "WW": true,
	"IW": true, "CC": true, "Q": true, "J": true, "MM": true, "TZH": true, "TZM": true, "OF": true,
	"FF1": true, "FF2": true, "FF3": true, "FF4": true, "FF5": true, "FF6": true,
}

// matchPattern returns the template pattern at the start of f ("" for
// none): as written, or upper-cased for a number pattern.
func matchPattern(f string) string {
	for _, p := range datePatterns {
		if strings.HasPrefix(f, p) {
			return p
		}
	}
	u := strings.ToUpper(f)
	for _, p := range datePatterns {
		if caseFree[p] && strings.HasPrefix(u, p) {
			return p
		}
	}
	return ""
}
