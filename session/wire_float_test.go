package session_test

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/kvsql/kvsql/internal/testkit"
)

// TestWireExtraFloatDigits: SET extra_float_digits shapes float text as
// PostgreSQL 15 prints it — the wire's text format in both protocols,
// casts to text, ||, arrays and COPY TO — and a value out of its range
// is 22023. The wanted rows are PostgreSQL 15's answers.
func TestWireExtraFloatDigits(t *testing.T) {
	ts := testkit.StartServer(t, nil, nil)
	conn := ts.Connect(t, pgx.QueryExecModeSimpleProtocol)
	pg := conn.PgConn()
	ctx := context.Background()
	const query = `SELECT 1/3::float8, '0.33333334'::float4, 1e20::float8, 1e-5::float8/3, 2.5::float4, ` +
		`array[1/3::float8, 100], 'x' || 2/3::float8, '1234.5678'::float4::text, array['0.33333334'::float4]`
	const copy = `COPY (SELECT 1/3::float8, '0.33333334'::float4, array[1/3::float8]) TO STDOUT`
	for _, c := range []struct {
		digits    string
		row, copy string
	}{
		{"1", "0.3333333333333333|0.33333334|1e+20|3.3333333333333337e-06|2.5|{0.3333333333333333,100}|x0.6666666666666666|1234.5677|{0.33333334}",
			"0.3333333333333333\t0.33333334\t{0.3333333333333333}\n"},
		{"3", "0.3333333333333333|0.33333334|1e+20|3.3333333333333337e-06|2.5|{0.3333333333333333,100}|x0.6666666666666666|1234.5677|{0.33333334}",
			"0.3333333333333333\t0.33333334\t{0.3333333333333333}\n"},
		{"0", "0.333333333333333|0.333333|1e+20|3.33333333333333e-06|2.5|{0.333333333333333,100}|x0.666666666666667|1234.57|{0.333333}",
			"0.333333333333333\t0.333333\t{0.333333333333333}\n"},
		{"-3", "0.333333333333|0.333|1e+20|3.33333333333e-06|2.5|{0.333333333333,100}|x0.666666666667|1.23e+03|{0.333}",
			"0.333333333333\t0.333\t{0.333333333333}\n"},
		{"-15", "0.3|0.3|1e+20|3e-06|2|{0.3,1e+02}|x0.7|1e+03|{0.3}",
			"0.3\t0.3\t{0.3}\n"},
	} {
		if _, err := pg.Exec(ctx, "SET extra_float_digits = "+c.digits).ReadAll(); err != nil {
			t.Fatal(err)
		}
		// The simple protocol, then the extended one with text results.
		res, err := pg.Exec(ctx, query).ReadAll()
		if err != nil {
			t.Fatal(err)
		}
		ext := pg.ExecParams(ctx, query, nil, nil, nil, nil).Read()
		if ext.Err != nil {
			t.Fatal(ext.Err)
		}
		for _, rows := range [][][]byte{res[0].Rows[0], ext.Rows[0]} {
			var got []string
			for _, v := range rows {
				got = append(got, string(v))
			}
			if g := strings.Join(got, "|"); g != c.row {
				t.Errorf("extra_float_digits %s:\n got %s\nwant %s", c.digits, g, c.row)
			}
		}
		var b bytes.Buffer
		if _, err := pg.CopyTo(ctx, &b, copy); err != nil {
			t.Fatal(err)
		}
		if b.String() != c.copy {
			t.Errorf("extra_float_digits %s, COPY TO: got %q, want %q", c.digits, b.String(), c.copy)
		}
	}
	for _, c := range []struct{ set, code, msg string }{
		{"SET extra_float_digits = 4", "22023", `4 is outside the valid range for parameter "extra_float_digits" (-15 .. 3)`},
		{"SET extra_float_digits = -16", "22023", `-16 is outside the valid range for parameter "extra_float_digits" (-15 .. 3)`},
		{"SET extra_float_digits = 'x'", "22023", `invalid value for parameter "extra_float_digits": "x"`},
	} {
		_, err := conn.Exec(ctx, c.set)
		if pgErrCode(err) != c.code || err == nil || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%s: %v, want %s %s", c.set, err, c.code, c.msg)
		}
	}
	var got string
	if _, err := conn.Exec(ctx, "SET extra_float_digits = 2.6"); err != nil {
		t.Fatal(err)
	}
	if err := conn.QueryRow(ctx, "SHOW extra_float_digits").Scan(&got); err != nil || got != "3" {
		t.Errorf("SET extra_float_digits = 2.6 then SHOW: %q, %v; want 3 (PostgreSQL rounds)", got, err)
	}
}
