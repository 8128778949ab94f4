package types

import (
	"testing"

	"github.com/cockroachdb/apd/v3"
)

func TestParseDecimal(t *testing.T) {
	for _, c := range []struct{ in, out string }{
		{"1.50", "1.50"}, {" -0.00 ", "0.00"}, {"1e3", "1000"}, {"1.5e-3", "0.0015"}, {"+7", "7"},
		{"nan", "NaN"}, {"-Inf", "-Infinity"}, {"infinity", "Infinity"}, {".5", "0.5"}, {"5.", "5"},
		{"12345678901234567890.0000000001", "12345678901234567890.0000000001"},
	} {
		var x apd.Decimal
		if !ParseDecimal(c.in, &x) {
			t.Errorf("ParseDecimal(%q) failed", c.in)
			continue
		}
		if got := DecimalText(&x); got != c.out {
			t.Errorf("ParseDecimal(%q) = %q, want %q", c.in, got, c.out)
		}
		// The text reads back as itself.
		var y apd.Decimal
		if !ParseDecimal(c.out, &y) || DecimalText(&y) != c.out {
			t.Errorf("%q does not read back", c.out)
		}
	}
	for _, bad := range []string{"", "abc", "1.5x", "-nan", "0x10", "1e", "1_000", "--1"} {
		var x apd.Decimal
		if ParseDecimal(bad, &x) {
			t.Errorf("ParseDecimal(%q) accepted %s", bad, DecimalText(&x))
		}
	}
	var x apd.Decimal
	if ok, overflow := ParseDecimalRange("1e999999999", &x); !ok || !overflow {
		t.Errorf("1e999999999: ok %v overflow %v, want an overflow", ok, overflow)
	}
}

func TestDecimalFloat(t *testing.T) {
	for s, want := range map[string]float64{"0.1": 0.1, "-2.5": -2.5, "1e400": 0, "NaN": 0} {
		got := DecimalFloat(Datum{Kind: KindDecimal, S: s})
		switch s {
		case "1e400":
			if got <= 1e308 {
				t.Errorf("%s → %v, want +Inf", s, got)
			}
		case "NaN":
			if got == got {
				t.Errorf("NaN → %v", got)
			}
		default:
			if got != want {
				t.Errorf("%s → %v, want %v", s, got, want)
			}
		}
	}
}
