package eval

import (
	"math"
	"strings"
	"testing"

	"github.com/kvsql/kvsql/types"
)

// TestCast covers the exported Cast, which infers the source type from the
// datum's kind (a float is double precision: rint rounding).
func TestCast(t *testing.T) {
	for _, c := range []struct {
		d    types.Datum
		to   types.T
		want string
	}{
		{types.NewFloat(2.5), ty(types.Int8), "2"},
		{types.NewFloat(-3.5), ty(types.Int8), "-4"},
		{types.NewInt(40000), ty(types.Int2), "ERROR 22003"},
		{types.NewInt(3), ty(types.Float8), "3"},
		{types.NewText(" 42 "), ty(types.Int2), "42"},
		{types.NewText("4_2"), ty(types.Int4), "ERROR 22P02"},
		{types.NewText("0x1p3"), ty(types.Float8), "ERROR 22P02"},
		{types.NewText("1e400"), ty(types.Numeric), "1" + strings.Repeat("0", 400)},
		{types.NewText("1e131073"), ty(types.Numeric), "ERROR 22003"},
		{types.NewText(" 1.50 "), ty(types.Numeric), "1.50"},
		{types.NewText("1.5x"), ty(types.Numeric), "ERROR 22P02"},
		{types.NewText("Infinity"), ty(types.Numeric), "Infinity"},
		{types.NewText("on"), ty(types.Bool), "t"},
		{types.NewText("2024-01-02 03:04:05"), ty(types.Date), "2024-01-02"},
		{types.NewTimestamp(-1), ty(types.Date), "1969-12-31"},
		{types.NewText("2024-01-02 03:04:05"), ty(types.TimestampTZ), "2024-01-02 03:04:05+00"},
		{types.NewText("x"), ty(types.Timestamp), "ERROR 22007"},
		{types.NewBytes([]byte{0xde, 0xad}), ty(types.Text), `\xdead`},
		{types.NewFloat(math.Inf(-1)), ty(types.Text), "-Infinity"},
		{types.NewFloat(math.Copysign(0, -1)), ty(types.Text), "-0"},
		{types.NewFloat(1e-5), ty(types.Text), "1e-05"},
		{types.NewText("abc"), types.T{Family: types.Char, Width: 2}, "ab"},
		{types.NewText("é"), types.T{Family: types.Char, Width: 3}, "é  "},
		{types.NewBool(true), ty(types.Date), "ERROR 42846"},
		{types.Null, ty(types.Int4), "NULL"},
	} {
		d, err := Cast(c.d, c.to)
		if got := render(d, c.to, err); got != c.want {
			t.Errorf("Cast(%v, %s) = %s, want %s", c.d, c.to, got, c.want)
		}
	}
}

func TestCastCharToText(t *testing.T) {
	d, err := CastFrom(types.NewText("ab  "), types.T{Family: types.Char, Width: 4}, ty(types.Text))
	if err != nil || d.S != "ab" {
		t.Errorf("char(4) 'ab  ' to text = %q, %v; want \"ab\"", d.S, err)
	}
}

func TestFormatTextFloat4(t *testing.T) {
	for _, c := range []struct {
		f    float64
		want string
	}{{0.1, "0.1"}, {123456, "123456"}, {1234567, "1.234567e+06"}, {float64(float32(1.1)), "1.1"}} {
		if got := FormatText(types.NewFloat(c.f), ty(types.Float4)); got != c.want {
			t.Errorf("FormatText(%v, real) = %s, want %s", c.f, got, c.want)
		}
	}
	if got := FormatText(types.NewInt(3), ty(types.Float8)); got != "3" {
		t.Errorf("FormatText(int 3, float8) = %s", got)
	}
}
