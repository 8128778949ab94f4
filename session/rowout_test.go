package session_test

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgproto3"
	"github.com/kvsql/kvsql/internal/testkit"
	"github.com/kvsql/kvsql/session"
)

// rowoutTypes are the column types the batch engine carries (vecClassOf),
// each with a generator of random SQL literals of it.
var rowoutTypes = []struct {
	typ string
	lit func(r *rand.Rand) string
}{
	{"bool", func(r *rand.Rand) string { return []string{"true", "false"}[r.IntN(2)] }},
	{"int2", func(r *rand.Rand) string { return fmt.Sprint(r.IntN(65536) - 32768) }},
	{"int4", func(r *rand.Rand) string { return fmt.Sprint(int32(r.Uint32())) }},
	{"int8", func(r *rand.Rand) string { return fmt.Sprint(int64(r.Uint64())) }},
	{"float4", func(r *rand.Rand) string {
		return []string{"'NaN'", "'Infinity'", "'-0'", "1.5", fmt.Sprint(float32(r.NormFloat64() * 1e6)), "3.4e38"}[r.IntN(6)]
	}},
	{"float8", func(r *rand.Rand) string {
		return []string{"'-Infinity'", "0", fmt.Sprint(r.NormFloat64()), "1e-300", fmt.Sprint(r.Float64() * 1e15)}[r.IntN(5)]
	}},
	{"numeric(14,3)", func(r *rand.Rand) string { return fmt.Sprintf("%.3f", r.NormFloat64()*1e6) }},
	{"numeric", func(r *rand.Rand) string {
		return []string{"'NaN'", "0", "-0.000001", fmt.Sprint(r.Int64()), "123456789012345678901234567890.5"}[r.IntN(5)]
	}},
	{"text", func(r *rand.Rand) string {
		return []string{"''", "'a'", "'padding twenty bytes'", "'ä€ \\ \"q\"'", "repeat('x', 3000)", "E'tab\\there'"}[r.IntN(6)]
	}},
	{"varchar(12)", func(r *rand.Rand) string { return []string{"''", "'v'", "'twelve chars'"}[r.IntN(3)] }},
	{"bytea", func(r *rand.Rand) string {
		return []string{"''::bytea", "'\\x00ff10'::bytea", "'abc'::bytea", "decode(repeat('ab', 500), 'hex')"}[r.IntN(4)]
	}},
	{"date", func(r *rand.Rand) string {
		return []string{"'2024-02-29'", "'0044-03-15 BC'", "'1970-01-01'", fmt.Sprintf("'1970-01-01'::date + %d", r.IntN(40000)-20000)}[r.IntN(4)]
	}},
	{"timestamp", func(r *rand.Rand) string {
		return []string{"'2024-02-29 13:14:15.123456'", "'1900-01-01 00:00:00'", "'1999-12-31 23:59:59'", fmt.Sprintf("'2000-01-01'::timestamp + interval '%d seconds'", r.IntN(1<<30))}[r.IntN(4)]
	}},
	{"timestamptz", func(r *rand.Rand) string {
		return []string{"'2024-07-01 12:00:00+02'", "'1950-06-30 23:59:59.5-07'", "'1901-01-01 00:00:00 UTC'", fmt.Sprintf("'2000-01-01 UTC'::timestamptz + interval '%d seconds'", r.IntN(1<<30))}[r.IntN(4)]
	}},
	{"time", func(r *rand.Rand) string {
		return []string{"'00:00:00'", "'23:59:59.999999'", "'24:00:00'", fmt.Sprintf("'12:34:56.%06d'", r.IntN(1000000))}[r.IntN(4)]
	}},
}

// TestRowOutDifferential compares the rows a query sends over the wire
// when its scan runs in batches and lends its rows to the server
// (exec.LendRows: values alias the batches, the projection folded into
// the conversion) with the rows the row operators send: a random table of
// every type the batch engine carries, NULLs in every column, queried
// with text, binary and mixed result formats under several TimeZone,
// DateStyle and extra_float_digits settings, including portals run a few
// rows at a time (Execute with a row limit, PortalSuspended). The DataRows must be byte for byte the same, in the
// same order.
func TestRowOutDifferential(t *testing.T) {
	seed := testkit.Seed(t, 0, "rowout-seed")
	rng := rand.New(rand.NewPCG(uint64(seed), 7))
	ctx := context.Background()
	batches, err := session.Open(session.Options{Memory: true, VectorMinRows: -1})
	if err != nil {
		t.Fatal(err)
	}
	rowsDB, err := session.Open(session.Options{Memory: true, DisabledRules: map[string]bool{"vectorize": true}})
	if err != nil {
		t.Fatal(err)
	}
	servers := []*testkit.Server{testkit.StartServer(t, batches, nil), testkit.StartServer(t, rowsDB, nil)}

	defs := []string{"id int8 PRIMARY KEY", "k int4 NOT NULL"}
	var names []string
	for i, ty := range rowoutTypes {
		defs = append(defs, fmt.Sprintf("c%d %s", i, ty.typ))
		names = append(names, fmt.Sprintf("c%d", i))
	}
	stmts := []string{"CREATE TABLE r (" + strings.Join(defs, ", ") + ")"}
	const n = 1500
	for lo := 0; lo < n; lo += 100 {
		var vals []string
		for id := lo; id < lo+100; id++ {
			row := []string{fmt.Sprint(id * 3), fmt.Sprint(rng.IntN(10))}
			for _, ty := range rowoutTypes {
				if rng.IntN(6) == 0 {
					row = append(row, "NULL")
				} else {
					row = append(row, ty.lit(rng))
				}
			}
			vals = append(vals, "("+strings.Join(row, ", ")+")")
		}
		stmts = append(stmts, "INSERT INTO r VALUES "+strings.Join(vals, ", "))
	}
	stmts = append(stmts, "ANALYZE r")
	conns := make([]*pgconn.PgConn, len(servers))
	for i, ts := range servers {
		c := ts.Connect(t, pgx.QueryExecModeCacheStatement).PgConn()
		for _, q := range stmts {
			if _, err := c.Exec(ctx, q).ReadAll(); err != nil {
				t.Fatalf("%s: %v", q[:min(len(q), 60)], err)
			}
		}
		conns[i] = c
	}
	// The batch server's plan must be the batch one, or the test proves
	// nothing.
	plan, err := conns[0].Exec(ctx, "EXPLAIN SELECT id, c0 FROM r WHERE k < 5").ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, row := range plan[0].Rows {
		lines = append(lines, string(row[0]))
	}
	if s := strings.Join(lines, "\n"); !strings.Contains(s, "(vectorized, parallel)") {
		t.Fatalf("the batch server's plan is not a parallel batch scan:\n%s", s)
	}

	settings := [][]string{
		{"SET TimeZone = 'UTC'", "SET DateStyle = 'ISO, MDY'", "SET extra_float_digits = 1"},
		{"SET TimeZone = 'America/New_York'", "SET DateStyle = 'SQL, DMY'", "SET extra_float_digits = 0"},
		{"SET TimeZone = 'Asia/Kolkata'", "SET DateStyle = 'German'", "SET extra_float_digits = -3"},
		{"SET TimeZone = '-05:30'", "SET DateStyle = 'Postgres, YMD'", "SET extra_float_digits = 3"},
	}
	for iter := range 24 {
		for _, q := range settings[iter%len(settings)] {
			for _, c := range conns {
				if _, err := c.Exec(ctx, q).ReadAll(); err != nil {
					t.Fatal(err)
				}
			}
		}
		cols := append([]string{"id"}, names...)
		rng.Shuffle(len(cols), func(i, j int) { cols[i], cols[j] = cols[j], cols[i] })
		cols = cols[:1+rng.IntN(len(cols))]
		var formats []int16
		switch iter % 3 {
		case 1:
			formats = []int16{1}
		case 2:
			for range cols {
				formats = append(formats, int16(rng.IntN(2)))
			}
		}
		k := rng.IntN(11)
		sql := fmt.Sprintf("SELECT %s FROM r WHERE k < $1", strings.Join(cols, ", "))
		maxRows := []int{0, 0, 1, 7, 1000}[rng.IntN(5)]
		var got [2][][]byte
		for i, c := range conns {
			got[i] = portalRows(t, c, sql, fmt.Sprint(k), formats, maxRows)
		}
		name := fmt.Sprintf("iter %d: %s with $1 = %d, formats %v, %d rows per Execute", iter, sql, k, formats, maxRows)
		if len(got[0]) != len(got[1]) {
			t.Fatalf("%s: %d rows in batches, %d by rows", name, len(got[0]), len(got[1]))
		}
		for j := range got[0] {
			if !bytes.Equal(got[0][j], got[1][j]) {
				t.Fatalf("%s: row %d differs:\nbatches %q\nrows    %q", name, j, got[0][j], got[1][j])
			}
		}
	}
}

// portalRows runs sql with one text parameter through Parse, Bind and
// Execute with maxRows rows per Execute (0: all), and returns each row's
// values as the DataRow carried them (length-prefixed, -1 for NULL).
func portalRows(t *testing.T, c *pgconn.PgConn, sql, param string, formats []int16, maxRows int) [][]byte {
	t.Helper()
	ctx := context.Background()
	if maxRows == 0 {
		res := c.ExecParams(ctx, sql, [][]byte{[]byte(param)}, nil, nil, formats).Read()
		if res.Err != nil {
			t.Fatalf("%s: %v", sql, res.Err)
		}
		return encodeValues(res.Rows)
	}
	// pgconn has no Execute with a row limit: speak the protocol.
	fe := c.Frontend()
	fe.Send(&pgproto3.Parse{Query: sql})
	fe.Send(&pgproto3.Bind{Parameters: [][]byte{[]byte(param)}, ResultFormatCodes: formats})
	var out [][]byte
	for done := false; !done; {
		fe.Send(&pgproto3.Execute{MaxRows: uint32(maxRows)})
		fe.Send(&pgproto3.Flush{})
		if err := fe.Flush(); err != nil {
			t.Fatal(err)
		}
		for step := false; !step; {
			msg, err := fe.Receive()
			if err != nil {
				t.Fatal(err)
			}
			switch m := msg.(type) {
			case *pgproto3.DataRow:
				vals := make([][]byte, len(m.Values))
				for i, v := range m.Values {
					if v != nil {
						vals[i] = append([]byte{}, v...)
					}
				}
				out = append(out, encodeValues([][][]byte{vals})...)
			case *pgproto3.PortalSuspended:
				step = true
			case *pgproto3.CommandComplete:
				step, done = true, true
			case *pgproto3.ErrorResponse:
				t.Fatalf("%s: %s", sql, m.Message)
			}
		}
	}
	fe.Send(&pgproto3.Sync{})
	if err := fe.Flush(); err != nil {
		t.Fatal(err)
	}
	for {
		msg, err := fe.Receive()
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := msg.(*pgproto3.ReadyForQuery); ok {
			return out
		}
	}
}

func encodeValues(rows [][][]byte) [][]byte {
	out := make([][]byte, len(rows))
	for i, row := range rows {
		var b []byte
		for _, v := range row {
			if v == nil {
				b = append(b, 0xff, 0xff, 0xff, 0xff)
				continue
			}
			b = append(b, byte(len(v)>>24), byte(len(v)>>16), byte(len(v)>>8), byte(len(v)))
			b = append(b, v...)
		}
		out[i] = b
	}
	return out
}
