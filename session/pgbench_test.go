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
	bin := testkit.PGProgram(t, "pgbench")
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

// TestPgbenchBuiltins initializes pgbench's tables with `pgbench -i -s
// 10` itself (CREATE TABLE ... WITH (fillfactor), TRUNCATE of four
// tables, COPY of a million accounts, VACUUM, ALTER TABLE ... ADD PRIMARY
// KEY on the loaded tables), then runs its built-in scripts unmodified
// with 4 clients on 2 threads and pgbench's default of one try per
// transaction (no --max-tries): TPC-B-like, whose contended writers wait
// for row locks, so no transaction may fail, and afterwards the balances
// agree (accounts, tellers and branches each sum to the history's
// deltas, one history row per transaction); then select-only, which
// changes nothing.
func TestPgbenchBuiltins(t *testing.T) {
	bin := testkit.PGProgram(t, "pgbench")
	scale, dur := 10, "10"
	if testing.Short() {
		scale, dur = 1, "3"
	}
	ts := testkit.StartServer(t, testkit.OpenPebble(t), nil)
	conn := ts.Connect(t, pgx.QueryExecModeCacheStatement)
	ctx := context.Background()
	pgbench := func(args ...string) []byte {
		t.Helper()
		cctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
		defer cancel()
		all := append(args, "-h", "127.0.0.1", "-p", fmt.Sprint(ts.Addr.Port), "-U", "tester", "kvsql")
		cmd := exec.CommandContext(cctx, bin, all...)
		cmd.Env = append(os.Environ(), "LANG=C", "LC_ALL=C", "PGPASSWORD=")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("pgbench %v: %v\n%s", args, err, out)
		}
		return out
	}
	pgbench("-i", "-s", fmt.Sprint(scale))
	var accounts, branches, tellers int
	if err := conn.QueryRow(ctx, `SELECT (SELECT count(*) FROM pgbench_accounts), (SELECT count(*) FROM pgbench_branches),
		(SELECT count(*) FROM pgbench_tellers)`).Scan(&accounts, &branches, &tellers); err != nil {
		t.Fatal(err)
	}
	if accounts != 100000*scale || branches != scale || tellers != 10*scale {
		t.Fatalf("after pgbench -i -s %d: %d accounts, %d branches, %d tellers; want %d, %d, %d",
			scale, accounts, branches, tellers, 100000*scale, scale, 10*scale)
	}

	// run runs a built-in script and returns how many transactions it
	// processed, failing unless there were some and none failed.
	run := func(script string) int64 {
		t.Helper()
		out := pgbench("-n", "-b", script, "-M", "prepared", "-T", dur, "-c", "4", "-j", "2")
		processed, failed, tps := pgbenchProcessed.FindSubmatch(out), pgbenchFailed.FindSubmatch(out), pgbenchTPS.FindSubmatch(out)
		if processed == nil || failed == nil || tps == nil {
			t.Fatalf("unexpected pgbench output:\n%s", out)
		}
		n, _ := strconv.ParseInt(string(processed[1]), 10, 64)
		if string(failed[1]) != "0" || n == 0 {
			t.Fatalf("%s: %d transactions, %s failed\n%s", script, n, failed[1], out)
		}
		t.Logf("pgbench -b %s -c 4 -j 2 -T %s: %d transactions, 0 failed, %s TPS", script, dur, n, tps[1])
		return n
	}
	balances := func() (a, b, tl, h, hn int64) {
		t.Helper()
		if err := conn.QueryRow(ctx, `SELECT (SELECT sum(abalance) FROM pgbench_accounts), (SELECT sum(bbalance) FROM pgbench_branches),
			(SELECT sum(tbalance) FROM pgbench_tellers), (SELECT sum(delta) FROM pgbench_history), (SELECT count(*) FROM pgbench_history)`).Scan(&a, &b, &tl, &h, &hn); err != nil {
			t.Fatal(err)
		}
		return a, b, tl, h, hn
	}

	n := run("tpcb-like")
	a, b, tl, h, hn := balances()
	if a != b || b != tl || tl != h || hn != n {
		t.Fatalf("after %d transactions: accounts %d, branches %d, tellers %d, history %d in %d rows; all sums must agree and history hold one row per transaction",
			n, a, b, tl, h, hn)
	}
	run("select-only")
	if a2, b2, tl2, h2, hn2 := balances(); a2 != a || b2 != b || tl2 != tl || h2 != h || hn2 != hn {
		t.Fatalf("select-only changed the balances: accounts %d→%d, branches %d→%d, tellers %d→%d, history %d→%d in %d→%d rows",
			a, a2, b, b2, tl, tl2, h, h2, hn, hn2)
	}
}
