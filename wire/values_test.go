package wire

import (
	"math"
	"testing"
	"time"

	"github.com/kvsql/kvsql/exec/eval"
	"github.com/kvsql/kvsql/types"
)

func TestFloatText(t *testing.T) {
	for _, tc := range []struct {
		f    float64
		fam  types.Family
		want string
	}{
		{1.5, types.Float8, "1.5"},
		{0.1, types.Float8, "0.1"},
		{1e15, types.Float8, "1e+15"},
		{1e14, types.Float8, "100000000000000"},
		{1.5e-5, types.Float8, "1.5e-05"},
		{0.0001, types.Float8, "0.0001"},
		{math.Inf(1), types.Float8, "Infinity"},
		{math.Inf(-1), types.Float4, "-Infinity"},
		{math.NaN(), types.Float8, "NaN"},
		{float64(float32(0.1)), types.Float4, "0.1"},
		{1e6, types.Float4, "1e+06"},
		{100000, types.Float4, "100000"},
	} {
		got := string(appendText(nil, types.T{Family: tc.fam}, types.NewFloat(tc.f), eval.Style{}))
		if got != tc.want {
			t.Errorf("%v as %s: got %q want %q", tc.f, tc.fam, got, tc.want)
		}
	}
}

func TestNumericBinaryRoundTrip(t *testing.T) {
	for _, s := range []string{"0", "0.00", "1", "-1", "123.45", "0.0001", "100000000000000000000", "-9999.9999",
		"12345.678", "0.0000000001", "1.50", "10000", "12345678901234567890.123456789", "Infinity", "-Infinity", "NaN"} {
		b := appendNumericBinary(nil, s)
		got, err := decodeNumericBinary(b)
		if err != nil || got != s {
			t.Errorf("%v: got %v err %v (bytes %x)", s, got, err, b)
		}
	}
	// 123.45 is ndigits=2 weight=0 sign=0 dscale=2 digits=[123, 4500].
	if got := appendNumericBinary(nil, "123.45"); string(got) != "\x00\x02\x00\x00\x00\x00\x00\x02\x00\x7b\x11\x94" {
		t.Errorf("123.45 → %x", got)
	}
}

// FuzzNumericBinary: whatever decodes re-encodes to a value that decodes
// to the same text.
func FuzzNumericBinary(f *testing.F) {
	f.Add(appendNumericBinary(nil, "123.45"))
	f.Add(appendNumericBinary(nil, "-0.0001"))
	f.Fuzz(func(t *testing.T, raw []byte) {
		s, err := decodeNumericBinary(raw)
		if err != nil {
			return
		}
		again, err := decodeNumericBinary(appendNumericBinary(nil, s))
		if err != nil || again != s {
			t.Fatalf("%x → %q → %q (%v)", raw, s, again, err)
		}
	})
}

func TestDecodeParamErrors(t *testing.T) {
	for _, tc := range []struct {
		oid    uint32
		format int16
		raw    string
		code   string
	}{
		{23, 0, "x", "22P02"},
		{21, 0, "70000", "22003"},
		{16, 0, "maybe", "22P02"},
		{23, 1, "\x00\x01", "08P01"},
		{1082, 0, "not a date", "22007"},
		{17, 0, `\xzz`, "22P02"},
		{1700, 1, "\x00", "08P01"},
		{25, 2, "x", "08P01"},
	} {
		_, err := decodeParam(tc.oid, tc.format, []byte(tc.raw), time.UTC)
		if string(codeOfErr(err)) != tc.code {
			t.Errorf("oid %d %q: got %v, want %s", tc.oid, tc.raw, err, tc.code)
		}
	}
	if d, err := decodeParam(17, 0, []byte(`a\\b\001`), time.UTC); err != nil || d.S != "a\\b\x01" {
		t.Errorf("bytea escape: %v %v", d, err)
	}
	if d, err := decodeParam(0, 0, []byte("raw"), time.UTC); err != nil || d != types.NewText("raw") {
		t.Errorf("unknown oid: %v %v", d, err)
	}
}
