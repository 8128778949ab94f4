package eval

import (
	"testing"

	"github.com/kvsql/kvsql/types"
)

// FuzzToChar: any template, applied to a timestamp, an interval or a
// number, and any text read by any template (to_date, to_timestamp),
// never panics.
func FuzzToChar(f *testing.F) {
	f.Add("YYYY-MM-DD HH24:MI:SS.MS TZ", "2020-03-05 14:07:08", "FM9,999.00S")
	f.Add(`"lit" FMMonth DDth IYYY rm`, "5 Mar 20 2:07 pm", "0000MI")
	f.Fuzz(func(t *testing.T, format, text, numFormat string) {
		env := &Env{}
		ts := types.T{Family: types.TimestampTZ}
		_, _ = toChar(env, types.NewTimestamp(1583417228500000), ts, format)
		_, _ = toChar(env, types.NewInterval(types.IntervalValue{Months: -14, Days: 3, Micros: -4_500_000}), types.T{Family: types.Interval}, format)
		_, _ = toChar(env, types.Datum{Kind: types.KindDecimal, S: "-1234.5678"}, types.T{Family: types.Numeric}, numFormat)
		_, _ = toChar(env, types.NewFloat(-0.5), types.T{Family: types.Float8}, numFormat)
		_, _ = toDate(text, format)
		_, _ = toTimestamp(env, text, format)
	})
}

// TestToCharNumbers pins number templates to PostgreSQL 15's output.
func TestToCharNumbers(t *testing.T) {
	for _, c := range []struct {
		v      types.Datum
		format string
		want   string
	}{
		{types.NewInt(12), "999", "  12"},
		{types.NewInt(-12), "999", " -12"},
		{types.NewInt(12345), "999", " ###"},
		{types.Datum{Kind: types.KindDecimal, S: "1234.567"}, "9,999.99", " 1,234.57"},
		{types.Datum{Kind: types.KindDecimal, S: "-0.5"}, "0.99", "-0.50"},
		{types.Datum{Kind: types.KindDecimal, S: "3.14159"}, "FM990.00", "3.14"},
		{types.NewInt(-12), "999MI", " 12-"},
		{types.NewInt(12), "S999", " +12"},
		{types.Datum{Kind: types.KindDecimal, S: "0.25"}, "9.99", "  .25"},
	} {
		got, err := toChar(&Env{}, c.v, types.T{Family: types.Numeric}, c.format)
		if err != nil || got.S != c.want {
			t.Errorf("to_char(%v, %q) = %q, %v; want %q", c.v, c.format, got.S, err, c.want)
		}
	}
}
