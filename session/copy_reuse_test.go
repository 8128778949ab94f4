package session_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/kvsql/kvsql/internal/testkit"
	"github.com/kvsql/kvsql/session"
)

// TestCopyReuseMatchesFresh is the differential test of COPY FROM's
// reuse of one batch's constants for the next (session/copy.go): on
// random inputs of several 1,000-row batches, over tables without and
// with secondary and unique indexes, with NULLs, duplicate keys (23505)
// and malformed fields (22P02), in text and binary format, and in an
// explicit transaction that reads its rows back before it commits or
// rolls back, COPY with fresh constants per batch and COPY reusing them
// give the same tag or error and leave the same rows and index entries.
func TestCopyReuseMatchesFresh(t *testing.T) {
	schemas := []string{
		`CREATE TABLE t (id int PRIMARY KEY, a int, b text)`,
		`CREATE TABLE t (id int PRIMARY KEY, a int, b text); CREATE INDEX t_a ON t (a)`,
		`CREATE TABLE t (id int PRIMARY KEY, a int, b text); CREATE UNIQUE INDEX t_b ON t (b); CREATE INDEX t_a ON t (a, b)`,
	}
	db, err := session.Open(session.Options{Memory: true})
	if err != nil {
		t.Fatal(err)
	}
	c := testkit.StartServer(t, db, nil).Connect(t, pgx.QueryExecModeSimpleProtocol)
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(23, 2026))
	for round := 0; round < 18; round++ {
		schema := schemas[round%len(schemas)]
		n := 1 + rng.IntN(3500)
		text, rows := randomCopyInput(rng, n, round)
		binary := round%4 == 3
		inTxn := round%5 < 2
		var results [2]string
		for i, noReuse := range []bool{true, false} {
			session.SetCopyNoReuse(t, noReuse)
			mustExec(t, c, `DROP TABLE IF EXISTS t`)
			for _, stmt := range strings.Split(schema, "; ") {
				mustExec(t, c, stmt)
			}
			if inTxn {
				mustExec(t, c, `BEGIN`)
			}
			var tag int64
			var err error
			if binary {
				tag, err = c.CopyFrom(ctx, pgx.Identifier{"t"}, []string{"id", "a", "b"}, pgx.CopyFromRows(rows))
			} else {
				var ct pgconn.CommandTag
				ct, err = c.PgConn().CopyFrom(ctx, strings.NewReader(text), `COPY t FROM STDIN`)
				tag = ct.RowsAffected()
			}
			results[i] = fmt.Sprintf("tag %d, error %s\n", tag, describeErr(err))
			if inTxn {
				if err == nil {
					results[i] += "in the transaction:\n" + dumpCopied(t, c)
				}
				end := `COMMIT`
				if round%2 == 1 {
					end = `ROLLBACK`
				}
				mustExec(t, c, end)
			}
			results[i] += dumpCopied(t, c)
		}
		if results[0] != results[1] {
			t.Fatalf("round %d (%s, %d rows, binary %v, in a transaction %v): fresh and reused constants differ:\nfresh:\n%.2000s\nreused:\n%.2000s",
				round, schema, n, binary, inTxn, results[0], results[1])
		}
		t.Logf("round %d: %s", round, results[0][:strings.IndexByte(results[0], '\n')])
	}
}
