package bench

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestQuickEndToEnd builds cmd/kvsql with -tags bench (the suite is left
// out of the default build) and runs "kvsql bench --quick": about
// a minute with PostgreSQL 15 installed. It is skipped under -short, and
// unless KVSQL_BENCH_E2E=1, to keep the package's default run fast.
func TestQuickEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("skipped under -short: runs kvsql bench --quick (about a minute)")
	}
	if os.Getenv("KVSQL_BENCH_E2E") != "1" {
		t.Skip("set KVSQL_BENCH_E2E=1 to run kvsql bench --quick end to end (about a minute)")
	}
	if ok, why := PostgresAvailable(); !ok {
		t.Skip(why)
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "kvsql")
	build := exec.Command("go", "build", "-tags", "bench", "-o", bin, "./cmd/kvsql")
	build.Dir = ".."
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	out := filepath.Join(dir, "benchmarks.md")
	run := exec.Command(bin, "bench", "--quick", "--out", out)
	logText, err := run.CombinedOutput()
	if err != nil {
		t.Fatalf("kvsql bench --quick: %v\n%s", err, tail(string(logText), 3000))
	}
	md, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"| pgbench TPC-B-like c=8 |", "| chat: send a message |", "| in-process point select |", "scaling.svg"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("report lacks %q", want)
		}
	}
	for _, f := range []string{"throughput.svg", "latency.svg", "scaling.svg"} {
		b, err := os.ReadFile(filepath.Join(dir, "benchmarks", f))
		if err != nil {
			t.Fatal(err)
		}
		wellFormed(t, b, "svg")
	}
}
