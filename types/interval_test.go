package types

import "testing"

// FuzzIntervalText: parsing arbitrary text never panics, and every
// interval's output (IntervalStyle postgres) parses back to the same
// fields, negative and mixed-sign ones included.
func FuzzIntervalText(f *testing.F) {
	f.Add("1 year 2 mons 3 days 04:05:06.5", int32(-14), int32(3), int64(-4_500_000))
	f.Add("-1 days +02:00:00", int32(0), int32(-1), int64(7_200_000_000))
	f.Add("P1Y2M3DT4H5M6.5S", int32(2147483647), int32(-2147483648), int64(-9223372036854775808))
	f.Add("@ 1 hour ago", int32(1), int32(0), int64(1))
	f.Fuzz(func(t *testing.T, s string, m, d int32, us int64) {
		_, _ = ParseInterval(s)
		iv := IntervalValue{Months: m, Days: d, Micros: us}
		text := FormatInterval(iv)
		back, err := ParseInterval(text)
		if err != nil || back != iv {
			t.Fatalf("%+v prints %q, which parses to %+v, %v", iv, text, back, err)
		}
	})
}
