package encoding

import (
	"bytes"
	"math"
	"testing"

	"github.com/cockroachdb/apd/v3"
	"github.com/kvsql/kvsql/types"
)

func dec(t *testing.T, s string) types.Datum {
	d, _, err := apd.NewFromString(s)
	if err != nil {
		t.Fatal(err)
	}
	return types.NewDecimal(d)
}

// TestSortKeyOrder checks pairs whose sort keys must compare a given way
// in each direction, NULL placement included.
func TestSortKeyOrder(t *testing.T) {
	for _, c := range []struct {
		name string
		a, b types.Datum
		cmp  int // ascending order of a against b
	}{
		{"1.0 = 1.00", dec(t, "1.0"), dec(t, "1.00"), 0},
		{"-0 = 0 numeric", dec(t, "-0"), dec(t, "0.000"), 0},
		{"numeric NaN last", dec(t, "NaN"), dec(t, "Infinity"), 1},
		{"-0.0 = 0.0", types.NewFloat(math.Copysign(0, -1)), types.NewFloat(0), 0},
		{"float NaN last", types.NewFloat(math.NaN()), types.NewFloat(math.Inf(1)), 1},
		{"'1 mon' = '30 days'", types.NewInterval(types.IntervalValue{Months: 1}), types.NewInterval(types.IntervalValue{Days: 30}), 0},
		{"'1 day' = '24 hours'", types.NewInterval(types.IntervalValue{Days: 1}), types.NewInterval(types.IntervalValue{Micros: types.MicrosPerDay}), 0},
		{"text prefix first", types.NewText("ab"), types.NewText("abc"), -1},
		{"text with NUL", types.NewText("a\x00"), types.NewText("a"), 1},
		{"text bytewise (C)", types.NewText("B"), types.NewText("a"), -1},
		{"ints", types.NewInt(-1), types.NewInt(math.MaxInt64), -1},
	} {
		for _, desc := range []bool{false, true} {
			ka := AppendSortKey(nil, c.a, desc, false)
			kb := AppendSortKey(nil, c.b, desc, false)
			want := c.cmp
			if desc {
				want = -want
			}
			if got := bytes.Compare(ka, kb); got != want {
				t.Errorf("%s, desc %v: %x vs %x compares %d, want %d", c.name, desc, ka, kb, got, want)
			}
			for _, nullsFirst := range []bool{false, true} {
				n := AppendSortKey(nil, types.Null, desc, nullsFirst)
				k := AppendSortKey(nil, c.a, desc, nullsFirst)
				if got := bytes.Compare(n, k) < 0; got != nullsFirst {
					t.Errorf("%s, desc %v, nulls first %v: NULL %x before %x is %v", c.name, desc, nullsFirst, n, k, got)
				}
			}
		}
	}
}
