package fuzz

import (
	"context"
	"flag"
	"testing"
	"time"

	"github.com/kvsql/kvsql/internal/testkit"
)

var seedFlag = flag.Int64("fuzz.seed", 1, "the fuzz tests' seed (0: from the clock)")

// runShort fuzzes for d with the test's seed and fails on any finding,
// printing each reduced script.
func runShort(t *testing.T, d time.Duration, pgURL string) {
	seed := testkit.Seed(t, *seedFlag, "fuzz.seed")
	rep, err := Run(context.Background(), Config{Seed: seed, Duration: d, PostgresURL: pgURL,
		ReduceBudget: 20 * time.Second, MaxReduced: 5, AvoidKnown: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Log(rep.Summary())
	if rep.Statements == 0 {
		t.Fatal("no statement ran")
	}
	for _, f := range rep.Findings {
		t.Errorf("%s finding (%s): %s\n%s", f.Oracle, f.Kind, f.Detail, f.Script)
	}
}

// TestFuzzAlone runs the oracles that need only kvsql: TLP, NoREC and
// the consistency check after writes.
func TestFuzzAlone(t *testing.T) {
	d := 10 * time.Second
	if testing.Short() {
		d = 3 * time.Second
	}
	runShort(t, d, "")
}

// TestFuzzDifferential adds the comparison with PostgreSQL 15; it skips,
// saying so, where PostgreSQL's binaries are missing.
func TestFuzzDifferential(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: no PostgreSQL run")
	}
	url := testkit.StartPostgres(t)
	runShort(t, 10*time.Second, url)
}
