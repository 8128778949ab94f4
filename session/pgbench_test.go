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

// TestPgbenchTPCB initializes pgbench's tables with `pgbench -i -s 1`
// itself (CREATE TABLE ... WITH (fillfactor), TRUNCATE of four tables,
// COPY, VACUUM, ALTER TABLE ... ADD PRIMARY KEY on the loaded tables),
// then runs its built-in TPC-B-like script with 8 clients and pgbench's
// default of one try per transaction (no --max-tries): contended writers
// wait for row locks, so no transaction may fail, and afterwards the
// balances agree: accounts, tellers and branches each sum to the
// history's deltas.
func TestPgbenchTPCB(t *testing.T) {
	bin, err := exec.LookPath("pgbench")
	if err != nil {
		t.Skip("pgbench is not installed")
	}
	dur := "30"
	if testing.Short() {
		dur = "5"
	}
	ts := testkit.StartServer(t, testkit.OpenPebble(t), nil)
	conn := ts.Connect(t, pgx.QueryExecModeCacheStatement)
	ctx := context.Background()
	initCmd := exec.Command(bin, "-i", "-s", "1", "-h", "127.0.0.1", "-p", fmt.Sprint(ts.Addr.Port), "-U", "tester", "kvsql")
	initCmd.Env = append(os.Environ(), "LANG=C", "LC_ALL=C", "PGPASSWORD=")
	if out, err := initCmd.CombinedOutput(); err != nil {
		t.Fatalf("pgbench -i -s 1: %v\n%s", err, out)
	}
	var accounts int
	if err := conn.QueryRow(ctx, "SELECT count(*) FROM pgbench_accounts").Scan(&accounts); err != nil || accounts != 100000 {
		t.Fatalf("after pgbench -i -s 1: %d accounts, %v; want 100000", accounts, err)
	}
	cctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(cctx, bin, "-n", "-b", "tpcb-like", "-M", "prepared", "-T", dur, "-c", "8", "-j", "2",
		"-h", "127.0.0.1", "-p", fmt.Sprint(ts.Addr.Port), "-U", "tester", "kvsql")
	cmd.Env = append(os.Environ(), "LANG=C", "LC_ALL=C", "PGPASSWORD=")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("pgbench TPC-B: %v\n%s", err, out)
	}
	processed, failed, tps := pgbenchProcessed.FindSubmatch(out), pgbenchFailed.FindSubmatch(out), pgbenchTPS.FindSubmatch(out)
	if processed == nil || failed == nil || tps == nil {
		t.Fatalf("unexpected pgbench output:\n%s", out)
	}
	n, _ := strconv.Atoi(string(processed[1]))
	if string(failed[1]) != "0" || n == 0 {
		t.Fatalf("TPC-B: %d transactions, %s failed\n%s", n, failed[1], out)
	}
	var a, b, tl, h, hn int64
	if err := conn.QueryRow(ctx, `SELECT (SELECT sum(abalance) FROM pgbench_accounts), (SELECT sum(bbalance) FROM pgbench_branches),
		(SELECT sum(tbalance) FROM pgbench_tellers), (SELECT sum(delta) FROM pgbench_history), (SELECT count(*) FROM pgbench_history)`).Scan(&a, &b, &tl, &h, &hn); err != nil {
		t.Fatal(err)
	}
	if a != b || b != tl || tl != h || hn != int64(n) {
		t.Fatalf("after %d transactions: accounts %d, branches %d, tellers %d, history %d in %d rows; all sums must agree and history hold one row per transaction",
			n, a, b, tl, h, hn)
	}
	t.Logf("pgbench TPC-B -c 8 -j 2 -T %s: %d transactions, 0 failed, %s TPS; every balance sums to %d", dur, n, tps[1], a)
}
