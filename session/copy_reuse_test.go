package session_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

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
	db, err := session.Open(session.Options{Memory: true})
	if err != nil {
		t.Fatal(err)
	}
	c := testkit.StartServer(t, db, nil).Connect(t, pgx.QueryExecModeSimpleProtocol)
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(23, 2026))
	for round := 0; round < 18; round++ {
		schema := copySchemas[round%len(copySchemas)]
		n := 1 + rng.IntN(3500)
		text, rows := randomCopyInput(rng, n, round)
		binary := round%4 == 3
		inTxn := round%5 < 2
		var results [2]string
		for i, noReuse := range []bool{true, false} {
			session.SetCopyNoReuse(t, noReuse)
			resetCopyTable(t, c, schema)
			if inTxn {
				mustExec(t, c, `BEGIN`)
			}
			tag, err := copyInto(ctx, c, text, rows, binary)
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
