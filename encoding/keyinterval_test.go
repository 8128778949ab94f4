package encoding

import (
	"bytes"
	"testing"

	"github.com/kvsql/kvsql/types"
)

// FuzzIntervalKeyOrder: for any two intervals, negative ones included,
// the order of their keys is PostgreSQL's interval order refined by
// months then days (compareKey), in both directions, and each key
// decodes to the interval encoded.
func FuzzIntervalKeyOrder(f *testing.F) {
	f.Add(int32(1), int32(0), int64(0), int32(0), int32(30), int64(0))
	f.Add(int32(-1), int32(2), int64(-3), int32(0), int32(-28), int64(-86400000000))
	f.Add(int32(0), int32(0), int64(-9223372036854775808), int32(-2147483648), int32(-2147483648), int64(9223372036854775807))
	f.Fuzz(func(t *testing.T, m1, d1 int32, u1 int64, m2, d2 int32, u2 int64) {
		a := types.NewInterval(types.IntervalValue{Months: m1, Days: d1, Micros: u1})
		b := types.NewInterval(types.IntervalValue{Months: m2, Days: d2, Micros: u2})
		want := compareKey(a, b)
		for _, dir := range dirs {
			ka, kb := EncodeKeyDatum(nil, a, dir), EncodeKeyDatum(nil, b, dir)
			got := bytes.Compare(ka, kb)
			if dir == Descending {
				got = -got
			}
			if got != want {
				t.Fatalf("%v: compare(%v, %v) = %d from bytes, want %d", dir, a, b, got, want)
			}
			rest, back, _, err := DecodeKeyDatum(ka)
			if err != nil || len(rest) != 0 || back != a {
				t.Fatalf("%v: %v decodes to %v, rest %x, err %v", dir, a, back, rest, err)
			}
		}
	})
}

// TestIntervalKeySQLOrder pins the SQL side of the order on values whose
// fields disagree: '1 mon' = '30 days' = '720:00:00' by cmp value, and
// '-1 days +25:00:00' > '0'.
func TestIntervalKeySQLOrder(t *testing.T) {
	iv := func(m, d int32, us int64) types.IntervalValue {
		return types.IntervalValue{Months: m, Days: d, Micros: us}
	}
	cases := []struct {
		a, b types.IntervalValue
		want int
	}{
		{iv(1, 0, 0), iv(0, 30, 0), 0},
		{iv(0, 30, 0), iv(0, 0, 720*types.MicrosPerHour), 0},
		{iv(0, -1, 25*types.MicrosPerHour), iv(0, 0, 0), 1},
		{iv(-1, 0, 0), iv(0, -29, 0), -1},
		{iv(0, 0, -1), iv(0, 0, 0), -1},
	}
	for _, c := range cases {
		if got := c.a.Cmp(c.b); got != c.want {
			t.Errorf("Cmp(%v, %v) = %d, want %d", c.a, c.b, got, c.want)
		}
		ka := EncodeKeyDatum(nil, types.NewInterval(c.a), Ascending)
		kb := EncodeKeyDatum(nil, types.NewInterval(c.b), Ascending)
		if c.want != 0 && sign(bytes.Compare(ka, kb)) != c.want {
			t.Errorf("keys of %v and %v compare %d, want %d", c.a, c.b, bytes.Compare(ka, kb), c.want)
		}
	}
}
