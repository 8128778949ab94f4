package bench

import (
	"os"
	"testing"
)

func TestParsePgbench(t *testing.T) {
	for _, c := range []struct {
		file string
		want PgbenchResult
	}{
		{"testdata/pgbench_select.txt", PgbenchResult{TPS: 8750.509669, Transactions: 17448, LatencyMS: 0.914}},
		{"testdata/pgbench_tpcb_retries.txt", PgbenchResult{TPS: 547.473001, Transactions: 547, Failed: 103, Retried: 412, Retries: 2184, LatencyMS: 14.612}},
	} {
		b, err := os.ReadFile(c.file)
		if err != nil {
			t.Fatal(err)
		}
		got, err := ParsePgbench(string(b))
		if err != nil {
			t.Fatalf("%s: %v", c.file, err)
		}
		if got != c.want {
			t.Errorf("%s:\n got %+v\nwant %+v", c.file, got, c.want)
		}
	}
}

func TestParsePgbenchErrors(t *testing.T) {
	for _, in := range []string{
		"",
		"pgbench: error: connection to server failed\n",
		// A tps line but no processed line: an aborted run's partial output.
		"tps = 10.0 (without initial connection time)\n",
		"number of transactions actually processed: 3\n",
	} {
		if r, err := ParsePgbench(in); err == nil {
			t.Errorf("ParsePgbench(%q) = %+v, want an error", in, r)
		}
	}
}
