package session_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/kvsql/kvsql/internal/testkit"
	"github.com/kvsql/kvsql/session"
	"github.com/kvsql/kvsql/wire"
)

// TestCopyPipelinedMatchesInline is the differential test of COPY FROM's
// pipelined writer (the wire server decodes the next batch while one is
// stored): on random input, over tables without and with secondary and
// unique indexes, it gives the same tag or error (SQLSTATE and message)
// and leaves the same rows and index entries as Insert calls run inline.
// Inputs span several 1,000-row batches and hold NULLs, duplicate keys
// (23505) and malformed fields (22P02) at random places, in text format
// and in binary (pgx CopyFrom).
func TestCopyPipelinedMatchesInline(t *testing.T) {
	open := func(inline bool) *pgx.Conn {
		db, err := session.Open(session.Options{Dir: t.TempDir()})
		if err != nil {
			t.Fatal(err)
		}
		return testkit.StartServer(t, db, func(c *wire.Config) { c.CopyInline = inline }).Connect(t, pgx.QueryExecModeSimpleProtocol)
	}
	inline, piped := open(true), open(false)
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(17, 2026))
	for round := 0; round < 24; round++ {
		schema := copySchemas[round%len(copySchemas)]
		n := 1 + rng.IntN(3500)
		text, rows := randomCopyInput(rng, n, round)
		binary := round%4 == 3
		var results [2]string
		for i, c := range []*pgx.Conn{inline, piped} {
			resetCopyTable(t, c, schema)
			tag, err := copyInto(ctx, c, text, rows, binary)
			results[i] = fmt.Sprintf("tag %d, error %s\n", tag, describeErr(err)) + dumpCopied(t, c)
		}
		if results[0] != results[1] {
			t.Fatalf("round %d (%s, %d rows, binary %v): inline and pipelined COPY differ:\ninline:\n%.2000s\npipelined:\n%.2000s",
				round, schema, n, binary, results[0], results[1])
		}
		t.Logf("round %d: %s", round, results[0][:strings.IndexByte(results[0], '\n')])
	}
}

// copySchemas are the tables the COPY differential tests load into:
// without and with secondary and unique indexes.
var copySchemas = []string{
	`CREATE TABLE t (id int PRIMARY KEY, a int, b text)`,
	`CREATE TABLE t (id int PRIMARY KEY, a int, b text); CREATE INDEX t_a ON t (a)`,
	`CREATE TABLE t (id int PRIMARY KEY, a int, b text); CREATE UNIQUE INDEX t_b ON t (b); CREATE INDEX t_a ON t (a, b)`,
}

// resetCopyTable drops table t and creates it as schema (statements
// separated by "; ").
func resetCopyTable(t *testing.T, c *pgx.Conn, schema string) {
	t.Helper()
	mustExec(t, c, `DROP TABLE IF EXISTS t`)
	for _, stmt := range strings.Split(schema, "; ") {
		mustExec(t, c, stmt)
	}
}

// copyInto copies into t(id, a, b): rows through pgx's binary CopyFrom
// when binary is set, else text in COPY's text format.
func copyInto(ctx context.Context, c *pgx.Conn, text string, rows [][]any, binary bool) (int64, error) {
	if binary {
		return c.CopyFrom(ctx, pgx.Identifier{"t"}, []string{"id", "a", "b"}, pgx.CopyFromRows(rows))
	}
	ct, err := c.PgConn().CopyFrom(ctx, strings.NewReader(text), `COPY t FROM STDIN`)
	return ct.RowsAffected(), err
}

// randomCopyInput returns n rows in COPY's text format and as values for
// pgx's binary CopyFrom. Some rounds repeat a key (23505 at a random
// row); some text inputs hold a malformed integer, some both.
func randomCopyInput(rng *rand.Rand, n, round int) (string, [][]any) {
	var sb strings.Builder
	rows := make([][]any, n)
	dupAt, badAt := -1, -1
	switch round % 3 {
	case 1:
		dupAt = rng.IntN(n)
	case 2:
		badAt = rng.IntN(n)
		if round%2 == 0 {
			// Both: the one on the earlier row is reported, as
			// PostgreSQL stores rows in order (the pipelined writer may
			// have decoded the malformed row before it stored the
			// duplicate).
			dupAt, badAt = rng.IntN(min(n, 1000)), n-1
		}
	}
	for i := 0; i < n; i++ {
		id := int32(i*3 + 1)
		if i == dupAt && i > 0 {
			id = int32(rng.IntN(i)*3 + 1)
		}
		var a, b any = int32(rng.IntN(50)), fmt.Sprintf("v%d", id)
		if rng.IntN(10) == 0 {
			a = nil
		}
		if rng.IntN(10) == 0 {
			b = nil
		}
		rows[i] = []any{id, a, b}
		field := func(v any) string {
			if v == nil {
				return `\N`
			}
			return fmt.Sprint(v)
		}
		fa := field(a)
		if i == badAt {
			fa = "x" + fa
		}
		fmt.Fprintf(&sb, "%d\t%s\t%s\n", id, fa, field(b))
	}
	return sb.String(), rows
}

// describeErr is an error's SQLSTATE and message, or "none".
func describeErr(err error) string {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Code + " " + pe.Message + " " + pe.Detail
	}
	if err != nil {
		return err.Error()
	}
	return "none"
}

// dumpCopied lists t's rows in key order and reads them back through
// each index (a count per a, and b's unique lookups), so that a missing
// or extra index entry shows as a difference.
func dumpCopied(t *testing.T, c *pgx.Conn) string {
	t.Helper()
	var out bytes.Buffer
	for _, q := range []string{
		`SELECT id, a, b FROM t ORDER BY id`,
		`SELECT a, count(*) FROM t WHERE a >= 0 GROUP BY a ORDER BY a`,
		`SELECT id FROM t WHERE b IN ('v1', 'v4', 'v301', 'v3001') ORDER BY id`,
	} {
		rows, err := c.Query(context.Background(), q)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		for rows.Next() {
			vals, err := rows.Values()
			if err != nil {
				t.Fatal(err)
			}
			fmt.Fprintln(&out, vals...)
		}
		if err := rows.Err(); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	return out.String()
}
