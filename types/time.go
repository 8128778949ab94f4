package types

import "time"

const (
	microsPerDay = 86_400_000_000
	dateLayout   = "2006-01-02"
	tsLayout     = "2006-01-02 15:04:05.999999"
)

// FormatDate renders days since 1970-01-01 as PostgreSQL's ISO DateStyle.
func FormatDate(days int64) string {
	return time.Unix(days*86400, 0).UTC().Format(dateLayout)
}

// FormatTimestamp renders microseconds since the epoch as PostgreSQL's ISO
// DateStyle does for timestamp without time zone.
func FormatTimestamp(us int64) string {
	return time.UnixMicro(us).UTC().Format(tsLayout)
}

// ParseDate reads YYYY-MM-DD into days since 1970-01-01.
//
// A timestamp is accepted too and its time of day dropped, as PostgreSQL
// does for '2024-02-29 00:00:00Z'::date (drivers send dates that way).
func ParseDate(s string) (int64, error) {
	t, err := time.Parse(dateLayout, s)
	if err != nil {
		us, terr := ParseTimestamp(s)
		if terr != nil || len(s) <= len(dateLayout) {
			return 0, err
		}
		return floorDiv(us, microsPerDay), nil
	}
	return floorDiv(t.Unix(), 86400), nil
}

// ParseTimestamp reads an ISO timestamp ("2006-01-02 15:04:05[.ffffff]",
// a 'T' separator, or a bare date) into microseconds since the epoch.
func ParseTimestamp(s string) (int64, error) {
	for _, layout := range []string{tsLayout, "2006-01-02T15:04:05.999999", time.RFC3339Nano, "2006-01-02 15:04:05.999999Z07:00", "2006-01-02 15:04:05.999999Z07", dateLayout} {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UnixMicro(), nil
		}
	}
	_, err := time.Parse(tsLayout, s)
	return 0, err
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}
