package session_test

// pgbench against a server over the real engine: a point-select script in
// each of pgbench's protocol modes must complete with zero failed
// transactions. The script checks every answer: \gset aborts the client
// when the row is missing, and a wrong balance runs SELECT 1/0.

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/kvsql/kvsql/internal/testkit"
)

const pgbenchRows = 1000

const pointScript = `\set aid random(1, 1000)
SELECT abalance FROM pgbench_accounts WHERE aid = :aid \gset
\if :abalance != 2 * :aid
SELECT 1 / 0;
\endif
`

var (
	pgbenchProcessed = regexp.MustCompile(`number of transactions actually processed: (\d+)`)
	pgbenchFailed    = regexp.MustCompile(`number of failed transactions: (\d+)`)
	pgbenchTPS       = regexp.MustCompile(`tps = ([0-9.]+) \(without initial connection time\)`)
)

func TestPgbenchPointSelect(t *testing.T) {
	bin, err := exec.LookPath("pgbench")
	if err != nil {
		t.Skip("pgbench is not installed")
	}
	ts := testkit.StartServer(t, nil, nil)
	conn := ts.Connect(t, pgx.QueryExecModeCacheStatement)
	mustExec(t, conn, `CREATE TABLE pgbench_accounts (aid int PRIMARY KEY, bid int, abalance int, filler char(84))`)
	rows := make([][]any, pgbenchRows)
	for i := range rows {
		rows[i] = []any{int32(i + 1), int32(1), int32(2 * (i + 1)), "filler"}
	}
	if _, err := conn.CopyFrom(context.Background(), pgx.Identifier{"pgbench_accounts"},
		[]string{"aid", "bid", "abalance", "filler"}, pgx.CopyFromRows(rows)); err != nil {
		t.Fatal(err)
	}
	script := filepath.Join(t.TempDir(), "point.sql")
	if err := os.WriteFile(script, []byte(pointScript), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, mode := range []string{"simple", "extended", "prepared"} {
		t.Run(mode, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			cmd := exec.CommandContext(ctx, bin, "-n", "-f", script, "-M", mode, "-T", "3", "-c", "2",
				"-h", "127.0.0.1", "-p", fmt.Sprint(ts.Addr.Port), "-U", "tester", "kvsql")
			cmd.Env = append(os.Environ(), "LANG=C", "LC_ALL=C", "PGPASSWORD=")
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("pgbench -M %s: %v\n%s", mode, err, out)
			}
			processed := pgbenchProcessed.FindSubmatch(out)
			failed := pgbenchFailed.FindSubmatch(out)
			tps := pgbenchTPS.FindSubmatch(out)
			if processed == nil || failed == nil || tps == nil {
				t.Fatalf("unexpected pgbench output:\n%s", out)
			}
			n, _ := strconv.Atoi(string(processed[1]))
			if string(failed[1]) != "0" || n == 0 {
				t.Errorf("-M %s: %d transactions, %s failed\n%s", mode, n, failed[1], out)
			}
			rate, _ := strconv.ParseFloat(string(tps[1]), 64)
			t.Logf("pgbench -M %s -c 2: %d transactions, %.0f TPS", mode, n, rate)
		})
	}
	checkAlive(t, ts)
}
