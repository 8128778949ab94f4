package session_test

// Resource limits under hostile SQL: identifiers past 63 bytes, values
// past the value cap, queries past the per-query memory limit, spill
// files after cancel / error / disconnect, and a huge result to a client
// that stops reading. Each test also checks that the server keeps
// serving other clients.

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgproto3"
	"github.com/kvsql/kvsql/internal/testkit"
	"github.com/kvsql/kvsql/session"
	"github.com/kvsql/kvsql/wire"
)

// TestIdentifierTruncation: an identifier longer than 63 bytes is cut to
// 63 bytes (at a UTF-8 character boundary) with PostgreSQL's NOTICE
// 42622, and the object is then reachable by either spelling.
func TestIdentifierTruncation(t *testing.T) {
	ts := testkit.StartServer(t, nil, nil)
	for _, m := range modes {
		t.Run(m.name, func(t *testing.T) {
			cfg, err := pgx.ParseConfig(ts.URL())
			if err != nil {
				t.Fatal(err)
			}
			cfg.DefaultQueryExecMode = m.mode
			var notices []*pgconn.Notice
			cfg.OnNotice = func(_ *pgconn.PgConn, n *pgconn.Notice) { notices = append(notices, n) }
			ctx := context.Background()
			conn, err := pgx.ConnectConfig(ctx, cfg)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close(ctx)

			long := "t_" + m.name + "_" + strings.Repeat("abcdefghij", 7) // > 63 bytes
			short := long[:63]
			mustExec(t, conn, "CREATE TABLE "+strings.ToUpper(long)+" (x int)")
			if len(notices) != 1 {
				t.Fatalf("notices after CREATE TABLE: %d, want 1", len(notices))
			}
			want := `identifier "` + long + `" will be truncated to "` + short + `"`
			if n := notices[0]; n.Code != "42622" || n.Severity != "NOTICE" || n.Message != want {
				t.Errorf("notice %s %s %q, want NOTICE 42622 %q", n.Severity, n.Code, n.Message, want)
			}
			mustExec(t, conn, "INSERT INTO "+short+" VALUES (1)", `INSERT INTO "`+long+`" VALUES (2)`)
			var n int64
			if err := conn.QueryRow(ctx, "SELECT count(*) FROM "+long).Scan(&n); err != nil || n != 2 {
				t.Errorf("count by the long name: %d, %v", n, err)
			}
			var name string
			if err := conn.QueryRow(ctx, "SELECT relname::text FROM pg_class WHERE relname = '"+short+"'").Scan(&name); err != nil || name != short {
				t.Errorf("pg_class holds %q, %v; want %q", name, err, short)
			}

			// A quoted identifier of two-byte characters is cut before
			// the character that would cross byte 63.
			notices = nil
			e := strings.Repeat("é", 40) // 80 bytes
			rows, err := conn.Query(ctx, `SELECT 1 AS "`+e+`"`)
			if err != nil {
				t.Fatal(err)
			}
			col := string(rows.FieldDescriptions()[0].Name)
			rows.Close()
			if col != strings.Repeat("é", 31) {
				t.Errorf("column name %q (%d bytes), want 31 é (62 bytes)", col, len(col))
			}
			if len(notices) != 1 || notices[0].Code != "42622" {
				t.Errorf("notices for the quoted identifier: %+v", notices)
			}

			// Exactly 63 bytes: no notice.
			notices = nil
			mustExec(t, conn, "SELECT 1 AS "+strings.Repeat("z", 63))
			if len(notices) != 0 {
				t.Errorf("a 63-byte identifier raised %d notices", len(notices))
			}
		})
	}
}

// limitServer serves a fresh in-memory store opened with opts.
func limitServer(t *testing.T, opts session.Options) *testkit.Server {
	t.Helper()
	opts.Memory = true
	db, err := session.Open(opts)
	if err != nil {
		t.Fatal(err)
	}
	return testkit.StartServer(t, db, nil)
}

// wantCode runs sql on conn and asserts it fails with code.
func wantCode(t *testing.T, conn *pgx.Conn, code, sql string, args ...any) *pgconn.PgError {
	t.Helper()
	rows, err := conn.Query(context.Background(), sql, args...)
	if err == nil {
		for rows.Next() {
		}
		rows.Close()
		err = rows.Err()
	}
	var pe *pgconn.PgError
	if !errors.As(err, &pe) || pe.Code != code {
		t.Fatalf("%.80s: got %v, want %s", sql, err, code)
	}
	return pe
}

// TestValueSizeLimit: a value past the server's cap fails with 54000
// wherever it is built, before memory is spent on it where its size is
// known in advance, and the session and the server go on.
func TestValueSizeLimit(t *testing.T) {
	t.Run("default", func(t *testing.T) {
		ts := limitServer(t, session.Options{})
		conn := ts.Connect(t, pgx.QueryExecModeSimpleProtocol)
		var before runtime.MemStats
		runtime.ReadMemStats(&before)
		pe := wantCode(t, conn, "54000", "SELECT repeat('x', 500000000)")
		if pe.Message != "requested length too large" {
			t.Errorf("message %q", pe.Message)
		}
		var after runtime.MemStats
		runtime.ReadMemStats(&after)
		if grew := after.TotalAlloc - before.TotalAlloc; grew > 64<<20 {
			t.Errorf("refusing repeat allocated %d bytes", grew)
		}
		checkAlive(t, ts)
	})
	ts := limitServer(t, session.Options{MaxValueSize: 1 << 20})
	other := ts.Connect(t, pgx.QueryExecModeCacheStatement)
	for _, m := range modes {
		t.Run(m.name, func(t *testing.T) {
			conn := ts.Connect(t, m.mode)
			for _, sql := range []string{
				"SELECT repeat('ab', 600000)",
				"SELECT lpad('x', 2000000)",
				"SELECT rpad('x', 1100000, 'yz')",
				"SELECT repeat('x', 600000) || repeat('y', 600000)",
				"SELECT concat(repeat('x', 600000), 1, repeat('y', 600000))",
				"SELECT string_agg(repeat('x', 1000), ',') FROM generate_series(1, 2000)",
				"SELECT upper(repeat('x', 1000) || repeat('y', 1048000))",
			} {
				wantCode(t, conn, "54000", sql)
				var n int64
				if err := other.QueryRow(context.Background(), "SELECT length(repeat('x', 1000000))").Scan(&n); err != nil || n != 1000000 {
					t.Fatalf("another session after %q: %d, %v", sql, n, err)
				}
			}
			if m.mode != pgx.QueryExecModeSimpleProtocol {
				wantCode(t, conn, "54000", "SELECT length($1::text)", strings.Repeat("p", 1<<20+1))
			}
			var n int64
			if err := conn.QueryRow(context.Background(), "SELECT length(repeat('x', 1048576))").Scan(&n); err != nil || n != 1<<20 {
				t.Errorf("a value of exactly the cap: %d, %v", n, err)
			}
		})
	}
	checkAlive(t, ts)
}

// TestQueryMemoryLimit: a statement whose operators would hold far more
// than the per-query limit fails with 53200 (and its memory is freed)
// while another connection keeps answering; operators that can spill
// spill instead of failing; a session can lower the limit but not raise
// it above the server's.
func TestQueryMemoryLimit(t *testing.T) {
	ts := limitServer(t, session.Options{MaxQueryMem: 16 << 20})
	ctx := context.Background()
	conn := ts.Connect(t, pgx.QueryExecModeSimpleProtocol)
	other := ts.Connect(t, pgx.QueryExecModeCacheStatement)

	stop := make(chan struct{})
	served := make(chan error, 1)
	go func() {
		var err error
		n := 0
		for err == nil {
			select {
			case <-stop:
				if n == 0 {
					err = errors.New("the other session answered nothing")
				}
				served <- err
				return
			default:
			}
			var v int64
			err = other.QueryRow(ctx, "SELECT sum(g) FROM generate_series(1, 1000) g").Scan(&v)
			if err == nil && v != 500500 {
				err = fmt.Errorf("sum %d", v)
			}
			n++
		}
		served <- err
	}()

	for _, sql := range []string{
		// Non-spilling operators: INTERSECT's counted rows, a window
		// partition, TopN's heap, an IN list, string_agg's state.
		"SELECT g FROM generate_series(1, 2000000) g INTERSECT SELECT g FROM generate_series(1, 10) g",
		"SELECT count(*) FROM (SELECT g, row_number() OVER () FROM generate_series(1, 1000000) g) s",
		"SELECT count(*) FROM (SELECT g FROM generate_series(1, 1000000) g ORDER BY g DESC LIMIT 900000) s",
		"SELECT count(*) FROM generate_series(1, 3) x WHERE x IN (SELECT g FROM generate_series(1, 1000000) g)",
		"SELECT length(string_agg(repeat('x', 100), ',')) FROM generate_series(1, 1000000)",
	} {
		pe := wantCode(t, conn, "53200", sql)
		if pe.Message != "out of memory" || !strings.HasPrefix(pe.Detail, "Failed on request of size ") {
			t.Errorf("%.60s: %q / %q", sql, pe.Message, pe.Detail)
		}
	}
	// Spilling operators go to disk instead: a sort and a hash
	// aggregation of ~50 MB each.
	var n int64
	if err := conn.QueryRow(ctx, "SELECT count(*) FROM (SELECT g, repeat('x', 100) FROM generate_series(1, 300000) g ORDER BY 2, 1 DESC) s").Scan(&n); err != nil || n != 300000 {
		t.Errorf("spilling sort: %d, %v", n, err)
	}
	if err := conn.QueryRow(ctx, "SELECT count(*) FROM (SELECT g % 200000, count(*) FROM generate_series(1, 400000) g GROUP BY 1) s").Scan(&n); err != nil || n != 200000 {
		t.Errorf("spilling hash aggregation: %d, %v", n, err)
	}
	close(stop)
	if err := <-served; err != nil {
		t.Errorf("another session while the limit was hit: %v", err)
	}

	// The setting lowers the limit for one session only, and cannot raise it.
	mustExec(t, conn, "SET kvsql.max_query_memory = '1MB'")
	wantCode(t, conn, "53200", "SELECT count(*) FROM (SELECT g, row_number() OVER () FROM generate_series(1, 20000) g) s")
	if err := other.QueryRow(ctx, "SELECT count(*) FROM (SELECT g, row_number() OVER () FROM generate_series(1, 20000) g) s").Scan(&n); err != nil || n != 20000 {
		t.Errorf("another session under the server's limit: %d, %v", n, err)
	}
	mustExec(t, conn, "SET kvsql.max_query_memory = '10GB'")
	wantCode(t, conn, "53200", "SELECT count(*) FROM (SELECT g, row_number() OVER () FROM generate_series(1, 1000000) g) s")
	checkAlive(t, ts)
}

// heapPeak samples the Go heap's live bytes (what the last collection
// found reachable) every 20ms until stop is closed and then sends the
// largest growth it saw over the live heap when it started.
//
// Live bytes, not the heap in use: run after other tests in one process,
// a large live heap lets garbage pile up in proportion to it before a
// collection, which says nothing about this statement (the heap in use
// so read 87 MB over the base in a full run where the live heap grew by
// a few). The collector is made eager meanwhile, so a collection, and a
// fresh live figure, comes at least every few MB allocated.
func heapPeak(stop <-chan struct{}) <-chan uint64 {
	out := make(chan uint64, 1)
	old := debug.SetGCPercent(10)
	runtime.GC()
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(sample)
	base := sample[0].Value.Uint64()
	go func() {
		defer debug.SetGCPercent(old)
		var peak uint64
		tk := time.NewTicker(20 * time.Millisecond)
		defer tk.Stop()
		for {
			metrics.Read(sample)
			if live := sample[0].Value.Uint64(); live > base {
				peak = max(peak, live-base)
			}
			select {
			case <-stop:
				out <- peak
				return
			case <-tk.C:
			}
		}
	}()
	return out
}

// hugeRows is the size of the streamed result: 10 million rows of ~110
// bytes, over 1 GB on the wire; -short uses a million.
func hugeRows() int {
	if testing.Short() {
		return 1_000_000
	}
	return 10_000_000
}

// TestHugeResultStreams: a result of 10 million rows (over 1 GB) reaches
// the client with the server's heap bounded, since rows are produced as
// the client reads them.
func TestHugeResultStreams(t *testing.T) {
	ts := testkit.StartServer(t, nil, nil)
	conn := ts.Connect(t, pgx.QueryExecModeCacheStatement)
	runtime.GC()
	stop := make(chan struct{})
	peak := heapPeak(stop)
	n := hugeRows()
	start := time.Now()
	rows, err := conn.Query(context.Background(), "SELECT g, repeat('x', 100) FROM generate_series(1, $1::int8) g", n)
	if err != nil {
		t.Fatal(err)
	}
	got, bytes := 0, 0
	for rows.Next() {
		got++
		bytes += len(rows.RawValues()[1])
	}
	rows.Close()
	close(stop)
	p := <-peak
	if err := rows.Err(); err != nil || got != n || bytes != 100*n {
		t.Fatalf("read %d rows, %d bytes: %v", got, bytes, err)
	}
	t.Logf("%d rows (%d MB of values) in %v; peak live heap growth %d KB", n, bytes>>20, time.Since(start).Round(time.Millisecond), p>>10)
	if p > 64<<20 {
		t.Errorf("live heap grew by %d MB while streaming %d MB", p>>20, bytes>>20)
	}
}

// TestHugeResultStoppedReader: a client that asks for 10 million rows and
// stops reading holds only its own session: the server's writes block
// with the heap bounded while other clients are served, and when the
// client disconnects its session ends and its connection slot is free.
func TestHugeResultStoppedReader(t *testing.T) {
	ts := testkit.StartServer(t, nil, func(c *wire.Config) { c.MaxConnections = 3 })
	other := ts.Connect(t, pgx.QueryExecModeCacheStatement)
	runtime.GC()
	c := dial(t, ts)
	fe := startup(t, c)
	fe.Send(&pgproto3.Query{String: fmt.Sprintf("SELECT g, repeat('x', 100) FROM generate_series(1, %d) g", hugeRows())})
	if err := fe.Flush(); err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	peak := heapPeak(stop)
	time.Sleep(300 * time.Millisecond) // the server fills the socket buffers and blocks
	for i := 0; i < 5; i++ {
		var v int64
		if err := other.QueryRow(context.Background(), "SELECT count(*) FROM generate_series(1, 100000)").Scan(&v); err != nil || v != 100000 {
			t.Fatalf("another session while a reader is stopped: %d, %v", v, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
	close(stop)
	if p := <-peak; p > 64<<20 {
		t.Errorf("live heap grew by %d MB with a stopped reader", p>>20)
	}
	_ = c.Close()

	// The slot is released: with other, MaxConnections clients are
	// connected at once.
	deadline := time.Now().Add(5 * time.Second)
	for {
		var conns []*pgx.Conn
		var err error
		for i := 0; i < 2 && err == nil; i++ {
			var pc *pgx.Conn
			if pc, err = pgx.Connect(context.Background(), ts.URL()); err == nil {
				conns = append(conns, pc)
			}
		}
		for _, pc := range conns {
			_ = pc.Close(context.Background())
		}
		if err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the stopped reader's session still holds its slot 5s after it disconnected: %v", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// spillFiles counts the spill files under dir that the process still has
// open (they are unlinked when created, so only /proc/self/fd shows them)
// plus any left in dir by name.
func spillFiles(t *testing.T, dir string) int {
	t.Helper()
	n := 0
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skipf("no /proc/self/fd on this platform: %v", err)
	}
	for _, fd := range fds {
		target, err := os.Readlink(filepath.Join("/proc/self/fd", fd.Name()))
		if err == nil && strings.HasPrefix(target, filepath.Join(dir, "kvsql-spill-")) {
			n++
		}
	}
	left, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	return n + len(left)
}

// waitSpill waits until a statement has spill files open in dir.
func waitSpill(t *testing.T, dir string) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for spillFiles(t, dir) == 0 {
		if time.Now().After(deadline) {
			t.Fatal("the query never spilled")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// waitNoSpill asserts that every spill file in dir is closed and gone
// within a few seconds.
func waitNoSpill(t *testing.T, dir, after string) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		n := spillFiles(t, dir)
		if n == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d spill files still open or present 5s after %s", n, after)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestSpillFilesRemoved: the temporary files of a spilling sort and hash
// aggregation are closed and gone after the query is cancelled (57014),
// fails (22012), or its client disconnects mid-query.
func TestSpillFilesRemoved(t *testing.T) {
	dir := t.TempDir()
	db, err := session.Open(session.Options{Memory: true, TempDir: dir, WorkMem: 256 << 10})
	if err != nil {
		t.Fatal(err)
	}
	ts := testkit.StartServer(t, db, nil)
	ctx := context.Background()
	// A sort of 3 million rows with 256 kB of work_mem: many runs, and
	// seconds of work, so the query is still running when it is stopped.
	const sortQ = "SELECT g, md5(g::text) FROM generate_series(1, 3000000) g ORDER BY 2"
	const aggQ = "SELECT md5(g::text), count(*) FROM generate_series(1, 3000000) g GROUP BY 1"
	if n := spillFiles(t, dir); n != 0 {
		t.Fatalf("%d spill files before any query", n)
	}

	for _, q := range []string{sortQ, aggQ} {
		t.Run("cancel", func(t *testing.T) {
			conn := ts.Connect(t, pgx.QueryExecModeSimpleProtocol)
			qctx, cancel := context.WithCancel(ctx)
			done := make(chan error, 1)
			go func() {
				rows, err := conn.Query(qctx, q)
				if err == nil {
					for rows.Next() {
					}
					rows.Close()
					err = rows.Err()
				}
				done <- err
			}()
			waitSpill(t, dir)
			cancel()
			if err := <-done; pgErrCode(err) != "57014" {
				t.Fatalf("cancelled query: %v, want 57014", err)
			}
			waitNoSpill(t, dir, "the cancel")
		})
		t.Run("statement_timeout", func(t *testing.T) {
			conn := ts.Connect(t, pgx.QueryExecModeSimpleProtocol)
			mustExec(t, conn, "SET statement_timeout = 300")
			rows, err := conn.Query(ctx, q)
			if err == nil {
				for rows.Next() {
				}
				rows.Close()
				err = rows.Err()
			}
			if pgErrCode(err) != "57014" {
				t.Fatalf("query past statement_timeout: %v, want 57014", err)
			}
			waitNoSpill(t, dir, "the timeout")
		})
		t.Run("disconnect", func(t *testing.T) {
			c := dial(t, ts)
			fe := startup(t, c)
			fe.Send(&pgproto3.Query{String: q})
			if err := fe.Flush(); err != nil {
				t.Fatal(err)
			}
			waitSpill(t, dir)
			_ = c.Close()
			waitNoSpill(t, dir, "the client disconnected")
		})
	}
	t.Run("error", func(t *testing.T) {
		conn := ts.Connect(t, pgx.QueryExecModeSimpleProtocol)
		// The division by zero comes after 2 million rows went to runs.
		_, err := conn.Exec(ctx, "SELECT g, 1 / (g - 2000000) FROM generate_series(1, 3000000) g ORDER BY md5(g::text)")
		if pgErrCode(err) != "22012" {
			t.Fatalf("failing query: %v, want 22012", err)
		}
		waitNoSpill(t, dir, "the error")
	})
	checkAlive(t, ts)
}

// TestStatementTimeoutAndConnectionLimit: on the real engine, a statement
// past statement_timeout fails with 57014 and PostgreSQL's message while
// the other session answers, and a client past max_connections gets
// 53300 "sorry, too many clients already" while the connected ones go on.
func TestStatementTimeoutAndConnectionLimit(t *testing.T) {
	ts := testkit.StartServer(t, nil, func(c *wire.Config) { c.MaxConnections = 2 })
	ctx := context.Background()
	conn := ts.Connect(t, pgx.QueryExecModeCacheStatement)
	other := ts.Connect(t, pgx.QueryExecModeSimpleProtocol)

	mustExec(t, conn, "SET statement_timeout = '200ms'")
	done := make(chan *pgconn.PgError, 1)
	go func() {
		var n int64
		err := conn.QueryRow(ctx, "SELECT count(*) FROM generate_series(1, 100000) a, generate_series(1, 100000) b").Scan(&n)
		var pe *pgconn.PgError
		errors.As(err, &pe)
		done <- pe
	}()
	var v int64
	if err := other.QueryRow(ctx, "SELECT 6 * 7").Scan(&v); err != nil || v != 42 {
		t.Errorf("the other session during the long statement: %d, %v", v, err)
	}
	pe := <-done
	if pe == nil || pe.Code != "57014" || pe.Message != "canceling statement due to statement timeout" {
		t.Fatalf("statement past statement_timeout: %+v", pe)
	}
	if err := conn.QueryRow(ctx, "SELECT 1").Scan(&v); err != nil || v != 1 {
		t.Errorf("the session after its timeout: %d, %v", v, err)
	}

	_, err := pgx.Connect(ctx, ts.URL())
	var ce *pgconn.PgError
	if !errors.As(err, &ce) || ce.Code != "53300" || ce.Message != "sorry, too many clients already" {
		t.Fatalf("a third client with max_connections 2: %v", err)
	}
	for _, c := range []*pgx.Conn{conn, other} {
		if err := c.QueryRow(ctx, "SELECT 2").Scan(&v); err != nil || v != 2 {
			t.Errorf("a connected session after the refusal: %d, %v", v, err)
		}
	}
}

// TestHugeQueryTexts: an IN list of 100,000 values and a query text just
// under the message cap are answered; a message over the cap is refused
// with 54000 and ends only that connection.
func TestHugeQueryTexts(t *testing.T) {
	const maxMsg = 4 << 20
	ts := testkit.StartServer(t, nil, func(c *wire.Config) { c.MaxMessageSize = maxMsg })
	ctx := context.Background()
	conn := ts.Connect(t, pgx.QueryExecModeSimpleProtocol)
	var b strings.Builder
	b.WriteString("SELECT count(*) FROM generate_series(1, 200000) g WHERE g IN (")
	for i := 0; i < 100000; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "%d", 2*i+1)
	}
	b.WriteString(")")
	var n int64
	start := time.Now()
	if err := conn.QueryRow(ctx, b.String()).Scan(&n); err != nil || n != 100000 {
		t.Fatalf("IN list of 100,000 values: %d, %v", n, err)
	}
	t.Logf("IN list of 100,000 values (%d bytes) in %v", b.Len(), time.Since(start).Round(time.Millisecond))

	pad := maxMsg - 200
	if err := conn.QueryRow(ctx, "SELECT length('"+strings.Repeat("y", pad)+"')").Scan(&n); err != nil || n != int64(pad) {
		t.Fatalf("a query text just under the message cap: %d, %v", n, err)
	}
	_, err := conn.Exec(ctx, "SELECT length('"+strings.Repeat("y", maxMsg)+"')")
	if pgErrCode(err) != "54000" {
		t.Errorf("a query text over the message cap: %v, want 54000", err)
	}
	checkAlive(t, ts)
}

// TestCopyValueLimit: a COPY field past the value cap fails the COPY
// with 54000 and stores nothing.
func TestCopyValueLimit(t *testing.T) {
	ts := limitServer(t, session.Options{MaxValueSize: 1 << 20})
	ctx := context.Background()
	conn := ts.Connect(t, pgx.QueryExecModeCacheStatement)
	mustExec(t, conn, "CREATE TABLE c (id int PRIMARY KEY, v text)")
	rows := [][]any{{int32(1), "small"}, {int32(2), strings.Repeat("v", 1<<20+1)}}
	_, err := conn.CopyFrom(ctx, pgx.Identifier{"c"}, []string{"id", "v"}, pgx.CopyFromRows(rows))
	if pgErrCode(err) != "54000" {
		t.Fatalf("COPY of a field over the cap: %v, want 54000", err)
	}
	var n int64
	if err := conn.QueryRow(ctx, "SELECT count(*) FROM c").Scan(&n); err != nil || n != 0 {
		t.Errorf("rows after the failed COPY: %d, %v", n, err)
	}
	checkAlive(t, ts)
}

// TestHeldResultsLimit: rows the session itself keeps (an INSERT's
// RETURNING rows, a cursor's rows) count against the per-query limit:
// past it 53200, and the session goes on.
func TestHeldResultsLimit(t *testing.T) {
	ts := limitServer(t, session.Options{MaxQueryMem: 4 << 20})
	ctx := context.Background()
	conn := ts.Connect(t, pgx.QueryExecModeSimpleProtocol)
	mustExec(t, conn, "CREATE TABLE r (id int PRIMARY KEY, v text)")
	wantCode(t, conn, "53200", "INSERT INTO r SELECT g, repeat('r', 200) FROM generate_series(1, 100000) g RETURNING *")
	var n int64
	if err := conn.QueryRow(ctx, "SELECT count(*) FROM r").Scan(&n); err != nil || n != 0 {
		t.Errorf("rows after the failed INSERT: %d, %v", n, err)
	}
	mustExec(t, conn, "BEGIN", "DECLARE cur CURSOR FOR SELECT g, repeat('c', 200) FROM generate_series(1, 100000) g")
	if err := conn.QueryRow(ctx, "FETCH 1 FROM cur").Scan(&n, new(string)); err != nil || n != 1 {
		t.Fatalf("FETCH 1: %d, %v", n, err)
	}
	wantCode(t, conn, "53200", "FETCH ALL FROM cur")
	mustExec(t, conn, "ROLLBACK")

	// Fetched in pieces (psql's FETCH_COUNT), a cursor without SCROLL
	// holds one piece at a time, so the whole result passes; a SCROLL
	// cursor keeps every row and hits the limit.
	fetchAll := func(scroll string) (int, error) {
		mustExec(t, conn, "BEGIN", "DECLARE cur "+scroll+" CURSOR FOR SELECT g, repeat('c', 200) FROM generate_series(1, 100000) g")
		defer mustExec(t, conn, "ROLLBACK")
		got := 0
		for {
			rows, err := conn.Query(ctx, "FETCH FORWARD 1000 FROM cur")
			if err != nil {
				return got, err
			}
			k := 0
			for rows.Next() {
				k++
			}
			rows.Close()
			if err := rows.Err(); err != nil {
				return got, err
			}
			if k == 0 {
				return got, nil
			}
			got += k
		}
	}
	if got, err := fetchAll(""); err != nil || got != 100000 {
		t.Errorf("FETCH FORWARD 1000 through a NO SCROLL cursor: %d rows, %v", got, err)
	}
	if _, err := fetchAll("SCROLL"); pgErrCode(err) != "53200" {
		t.Errorf("FETCH FORWARD 1000 through a SCROLL cursor: %v, want 53200", err)
	}
	mustExec(t, conn, "BEGIN", "DECLARE cur CURSOR FOR SELECT g, repeat('c', 200) FROM generate_series(1, 100000) g")
	for i := 0; i < 30; i++ {
		mustExec(t, conn, "FETCH FORWARD 1000 FROM cur")
	}
	if pe := wantCode(t, conn, "55000", "FETCH FIRST FROM cur"); pe.Message != "cursor can only scan forward" {
		t.Errorf("FETCH FIRST after the cursor forgot rows: %q", pe.Message)
	}
	mustExec(t, conn, "ROLLBACK")
	if err := conn.QueryRow(ctx, "SELECT count(*) FROM (SELECT g FROM generate_series(1, 100000) g) s").Scan(&n); err != nil || n != 100000 {
		t.Errorf("a streamed query after: %d, %v", n, err)
	}
	checkAlive(t, ts)
}

// TestLiteralValueLimit: a literal longer than the value cap is refused
// with 54000 before it runs.
func TestLiteralValueLimit(t *testing.T) {
	ts := limitServer(t, session.Options{MaxValueSize: 1 << 20})
	conn := ts.Connect(t, pgx.QueryExecModeSimpleProtocol)
	wantCode(t, conn, "54000", "SELECT length('"+strings.Repeat("l", 1<<20+1)+"')")
	var n int64
	if err := conn.QueryRow(context.Background(), "SELECT length('"+strings.Repeat("l", 1<<20)+"') + 0 * length('"+strings.Repeat("m", 1000)+"')").Scan(&n); err != nil || n != 1<<20 {
		t.Errorf("a literal of exactly the cap in a longer text: %d, %v", n, err)
	}
	checkAlive(t, ts)
}

// TestRowSizeLimit: a row whose values each fit the cap but together do
// not is refused with PostgreSQL's "row is too big" (54000), as a result
// row and as a stored row.
func TestRowSizeLimit(t *testing.T) {
	ts := limitServer(t, session.Options{MaxValueSize: 1 << 20})
	ctx := context.Background()
	conn := ts.Connect(t, pgx.QueryExecModeCacheStatement)
	pe := wantCode(t, conn, "54000", "SELECT repeat('a', 600000), repeat('b', 600000)")
	if !strings.HasPrefix(pe.Message, "row is too big: size 1200000, maximum size 1048576") {
		t.Errorf("message %q", pe.Message)
	}
	mustExec(t, conn, "CREATE TABLE w (id int PRIMARY KEY, a text, b text)")
	wantCode(t, conn, "54000", "INSERT INTO w VALUES (1, repeat('a', 600000), repeat('b', 600000))")
	mustExec(t, conn, "INSERT INTO w VALUES (1, repeat('a', 600000), 'b')")
	wantCode(t, conn, "54000", "UPDATE w SET b = repeat('b', 600000)")
	var n int64
	if err := conn.QueryRow(ctx, "SELECT length(a) + length(b) FROM w").Scan(&n); err != nil || n != 600001 {
		t.Errorf("the stored row: %d, %v", n, err)
	}
	checkAlive(t, ts)
}
