package types

import (
	"encoding/binary"
	"errors"
	"strings"
	"time"
)

// time with time zone. A KindBytes datum of family TimeTZ holds 12 bytes
// whose byte order is PostgreSQL's timetz_cmp order:
//
//	8 bytes  the time in UTC, micros - offset (may leave 0..24h), sign bit flipped, big-endian
//	4 bytes  the zone in seconds west of Greenwich (-offset), sign bit flipped, big-endian
//
// timetz_cmp compares the UTC times, then the zones (west of Greenwich
// sorting after east), so '11:00+01' < '10:00+00' though they are the
// same instant, and the two are not equal.

// TimeTZValue is a time of day (micros, 0..24h) at a UTC offset in
// seconds east of Greenwich.
type TimeTZValue struct {
	Micros int64
	Offset int
}

// MaxTimeTZOffset is the largest zone displacement timetz holds
// (PostgreSQL's TZDISP_LIMIT, 15:59:59), in seconds.
const MaxTimeTZOffset = 15*3600 + 59*60 + 59

// NewTimeTZ returns the datum of v.
func NewTimeTZ(v TimeTZValue) Datum {
	b := make([]byte, 12)
	binary.BigEndian.PutUint64(b, uint64(v.Micros-int64(v.Offset)*MicrosPerSecond)^1<<63)
	binary.BigEndian.PutUint32(b[8:], uint32(int32(-v.Offset))^1<<31)
	return Datum{Kind: KindBytes, S: string(b)}
}

// TimeTZOf takes a timetz datum apart; ok is false when d holds none.
func TimeTZOf(d Datum) (TimeTZValue, bool) {
	if d.Kind != KindBytes || len(d.S) != 12 {
		return TimeTZValue{}, false
	}
	b := []byte(d.S)
	utc := int64(binary.BigEndian.Uint64(b) ^ 1<<63)
	off := -int(int32(binary.BigEndian.Uint32(b[8:]) ^ 1<<31))
	v := TimeTZValue{Micros: utc + int64(off)*MicrosPerSecond, Offset: off}
	if v.Micros < 0 || v.Micros > MicrosPerDay || off > MaxTimeTZOffset || off < -MaxTimeTZOffset {
		return TimeTZValue{}, false
	}
	return v, true
}

// AppendTimeTZ appends v as PostgreSQL prints it: "11:00:00+01",
// "11:00:00.5-05:30".
func AppendTimeTZ(b []byte, v TimeTZValue) []byte {
	b = append(b, FormatTime(v.Micros)...)
	return appendOffset(b, v.Offset)
}

// ErrZoneDisplacement is a UTC offset beyond ±15:59:59 (22009).
var ErrZoneDisplacement = errors.New("time zone displacement out of range")

// zoneAbbrevs are the time zone abbreviations timetz input knows, with
// their offsets east of Greenwich as PostgreSQL's Default set has them
// (IST is Israel's there).
var zoneAbbrevs = map[string]int{
	"utc": 0, "ut": 0, "gmt": 0, "z": 0, "zulu": 0, "wet": 0, "west": 3600,
	"bst": 3600, "cet": 3600, "cest": 7200, "met": 3600, "mest": 7200, "eet": 7200, "eest": 10800,
	"msk": 10800, "ist": 7200, "jst": 9 * 3600, "kst": 9 * 3600, "hkt": 8 * 3600,
	"awst": 8 * 3600, "acst": 9*3600 + 1800, "aest": 10 * 3600, "aedt": 11 * 3600,
	"nzst": 12 * 3600, "nzdt": 13 * 3600,
	"ast": -4 * 3600, "adt": -3 * 3600, "est": -5 * 3600, "edt": -4 * 3600,
	"cst": -6 * 3600, "cdt": -5 * 3600, "mst": -7 * 3600, "mdt": -6 * 3600,
	"pst": -8 * 3600, "pdt": -7 * 3600, "akst": -9 * 3600, "akdt": -8 * 3600, "hst": -10 * 3600,
	"nst": -(3*3600 + 1800), "ndt": -(2*3600 + 1800),
}

// ParseTimeTZ reads timetz text: a time (as ParseTime reads it, after an
// optional date), then a zone: "+hh", "-hh:mm", "+hhmm", "Z", or one of
// the abbreviations above; without one the time is in loc at the
// current date, as PostgreSQL reads it. Errors are ErrDateTimeSyntax,
// ErrTimeRange and ErrZoneDisplacement.
func ParseTimeTZ(s string, loc *time.Location) (TimeTZValue, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	if i := strings.IndexAny(t, " t"); i > 0 && strings.Count(t[:i], "-") == 2 {
		t = strings.TrimSpace(t[i+1:]) // a date first
	}
	timePart, zonePart := t, ""
	if i := strings.IndexAny(t, "+-"); i > 0 {
		timePart, zonePart = t[:i], t[i:]
	} else if i := strings.LastIndexByte(t, ' '); i > 0 && !strings.HasSuffix(t, "am") && !strings.HasSuffix(t, "pm") {
		timePart, zonePart = t[:i], strings.TrimSpace(t[i+1:])
	} else if strings.HasSuffix(t, "z") {
		timePart, zonePart = t[:len(t)-1], "z"
	}
	timePart = strings.TrimSpace(timePart)
	if timePart == "" || strings.IndexFunc(timePart, func(r rune) bool { return r >= 'a' && r <= 'z' && r != 'a' && r != 'p' && r != 'm' }) >= 0 {
		return TimeTZValue{}, ErrDateTimeSyntax
	}
	us, err := ParseTime(timePart)
	if err != nil {
		if errors.Is(err, ErrTimeRange) {
			return TimeTZValue{}, ErrTimeRange
		}
		return TimeTZValue{}, ErrDateTimeSyntax
	}
	var off int
	switch {
	case zonePart == "":
		if loc == nil {
			loc = time.UTC
		}
		_, off = Now().In(loc).Zone()
	case zonePart[0] == '+' || zonePart[0] == '-':
		o, ok := parseOffset(zonePart[1:])
		if !ok {
			if digits := zonePart[1:]; digits != "" && strings.Trim(digits, "0123456789:") == "" && len(digits) <= 8 {
				return TimeTZValue{}, ErrZoneDisplacement // "+16": well formed, too far
			}
			return TimeTZValue{}, ErrDateTimeSyntax
		}
		if zonePart[0] == '-' {
			o = -o
		}
		off = o
	default:
		o, ok := zoneAbbrevs[zonePart]
		if !ok {
			return TimeTZValue{}, ErrDateTimeSyntax
		}
		off = o
	}
	if off > MaxTimeTZOffset || off < -MaxTimeTZOffset {
		return TimeTZValue{}, ErrZoneDisplacement
	}
	return TimeTZValue{Micros: us, Offset: off}, nil
}
