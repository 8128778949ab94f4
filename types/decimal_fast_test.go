package types

import (
	"testing"

	"github.com/cockroachdb/apd/v3"
)

func TestDecimalInt64(t *testing.T) {
	for _, c := range []struct {
		in    string
		coef  int64
		scale int
		ok    bool
	}{
		{"1.50", 150, 2, true}, {"-0.05", -5, 2, true}, {"12", 12, 0, true}, {"0", 0, 0, true},
		{"123456789012345678", 123456789012345678, 0, true}, {"1234567890123456789", 0, 0, false},
		{"NaN", 0, 0, false}, {"-Infinity", 0, 0, false}, {"1.2.3", 0, 0, false}, {"", 0, 0, false},
	} {
		coef, scale, ok := DecimalInt64(c.in)
		if ok != c.ok || ok && (coef != c.coef || scale != c.scale) {
			t.Errorf("DecimalInt64(%q) = %d, %d, %v; want %d, %d, %v", c.in, coef, scale, ok, c.coef, c.scale, c.ok)
		}
		if ok {
			// The same number apd reads.
			var x apd.Decimal
			ParseDecimal(c.in, &x)
			if y := apd.New(coef, int32(-scale)); x.Cmp(y) != 0 {
				t.Errorf("%q: %s vs %s", c.in, &x, y)
			}
		}
	}
	for _, s := range []string{"1.50", "-0.5", "NaN", "Infinity", "-Infinity", "12"} {
		if !IsDecimalText(s) {
			t.Errorf("IsDecimalText(%q) = false", s)
		}
	}
	for _, s := range []string{"", "-", "1.", ".5", "1e3", "abc", "--1", "1.2.3"} {
		if IsDecimalText(s) {
			t.Errorf("IsDecimalText(%q) = true", s)
		}
	}
}
