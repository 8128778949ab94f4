package types

import "testing"

// TestIntervalStyles compares each IntervalStyle's text with PostgreSQL
// 15's for the same values (SET IntervalStyle ...; SELECT v::text).
func TestIntervalStyles(t *testing.T) {
	cases := []struct {
		in                            string
		verbose, sqlStandard, iso8601 string
	}{
		{"0", "@ 0", "0", "PT0S"},
		{"1 year 2 mons 3 days 04:05:06.789", "@ 1 year 2 mons 3 days 4 hours 5 mins 6.789 secs", "+1-2 +3 +4:05:06.789", "P1Y2M3DT4H5M6.789S"},
		{"-1 year -2 mons", "@ 1 year 2 mons ago", "-1-2", "P-1Y-2M"},
		{"1 day -1 hours", "@ 1 day -1 hours", "+0-0 +1 -1:00:00", "P1DT-1H"},
		{"-1 days +1 hours", "@ 1 day -1 hours ago", "+0-0 -1 +1:00:00", "P-1DT1H"},
		{"-02:10:25.3", "@ 2 hours 10 mins 25.3 secs ago", "-2:10:25.3", "PT-2H-10M-25.3S"},
		{"-10 mons -3 days +03:55:06.70", "@ 10 mons 3 days -3 hours -55 mins -6.7 secs ago", "-0-10 -3 +3:55:06.7", "P-10M-3DT3H55M6.7S"},
		{"1 sec", "@ 1 sec", "0:00:01", "PT1S"},
		{"0.7 sec", "@ 0.7 secs", "0:00:00.7", "PT0.7S"},
		{"3 days", "@ 3 days", "3 0:00:00", "P3D"},
		{"-3 days -00:00:01", "@ 3 days 1 sec ago", "-3 0:00:01", "P-3DT-1S"},
		{"1 mon", "@ 1 mon", "0-1", "P1M"},
	}
	for _, c := range cases {
		iv, err := ParseInterval(c.in)
		if err != nil {
			t.Fatalf("%q: %v", c.in, err)
		}
		for _, w := range []struct {
			style IntervalStyle
			want  string
		}{{IntervalPostgresVerbose, c.verbose}, {IntervalSQLStandard, c.sqlStandard}, {IntervalISO8601, c.iso8601}} {
			if got := string(AppendIntervalStyle(nil, iv, w.style)); got != w.want {
				t.Errorf("%q in style %d: got %q, want %q", c.in, w.style, got, w.want)
			}
		}
	}
}
