package session_test

// pg_stat_progress_copy and pg_stat_progress_create_index over the wire:
// a second connection sees a COPY FROM STDIN and a CREATE INDEX while
// each is paused half way (the client holds back the COPY's rows; a test
// hook holds the index build), and nothing once they are done.

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/kvsql/kvsql/internal/testkit"
	"github.com/kvsql/kvsql/session"
)

// progressColumns are PostgreSQL 15's columns of the two views.
var progressColumns = map[string]string{
	"pg_stat_progress_copy": "pid datid datname relid command type bytes_processed bytes_total tuples_processed tuples_excluded",
	"pg_stat_progress_create_index": "pid datid datname relid index_relid command phase lockers_total lockers_done current_locker_pid " +
		"blocks_total blocks_done tuples_total tuples_done partitions_total partitions_done",
	"pg_stat_progress_vacuum": "pid datid datname relid phase heap_blks_total heap_blks_scanned heap_blks_vacuumed " +
		"index_vacuum_count max_dead_tuples num_dead_tuples",
	"pg_stat_progress_cluster": "pid datid datname relid command phase cluster_index_relid heap_tuples_scanned " +
		"heap_tuples_written heap_blks_total heap_blks_scanned index_rebuild_count",
	"pg_stat_progress_analyze": "pid datid datname relid phase sample_blks_total sample_blks_scanned ext_stats_total " +
		"ext_stats_computed child_tables_total child_tables_done current_child_table_relid",
}

func TestProgressViewColumns(t *testing.T) {
	ts := testkit.StartServer(t, nil, nil)
	conn := ts.Connect(t, pgx.QueryExecModeCacheStatement)
	for view, want := range progressColumns {
		rows, err := conn.Query(context.Background(), "SELECT * FROM "+view)
		if err != nil {
			t.Fatalf("%s: %v", view, err)
		}
		var names []string
		for _, f := range rows.FieldDescriptions() {
			names = append(names, f.Name)
		}
		n := 0
		for rows.Next() {
			n++
		}
		rows.Close()
		if got := strings.Join(names, " "); got != want || n != 0 {
			t.Errorf("%s: %d rows of columns %s; want none of %s", view, n, got, want)
		}
	}
}

// pausedRows is a pgx.CopyFromSource of rows (i, 'row i') that stops
// after pause rows until release is closed.
type pausedRows struct {
	i, n, pause int
	reached     chan struct{}
	release     chan struct{}
}

func (r *pausedRows) Next() bool {
	if r.i == r.pause {
		close(r.reached)
		<-r.release
	}
	r.i++
	return r.i <= r.n
}

func (r *pausedRows) Values() ([]any, error) {
	return []any{int32(r.i), fmt.Sprintf("row %d, padded to be a little longer", r.i)}, nil
}

func (r *pausedRows) Err() error { return nil }

func TestProgressCopy(t *testing.T) {
	ts := testkit.StartServer(t, nil, nil)
	ctx := context.Background()
	loader := ts.Connect(t, pgx.QueryExecModeCacheStatement)
	watcher := ts.Connect(t, pgx.QueryExecModeCacheStatement)
	mustExec(t, loader, "CREATE TABLE target (id int PRIMARY KEY, note text)")
	var relid int64
	if err := watcher.QueryRow(ctx, "SELECT oid FROM pg_class WHERE relname = 'target'").Scan(&relid); err != nil {
		t.Fatal(err)
	}
	src := &pausedRows{n: 6000, pause: 5000, reached: make(chan struct{}), release: make(chan struct{})}
	var copied int64
	var copyErr error
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		copied, copyErr = loader.CopyFrom(ctx, pgx.Identifier{"target"}, []string{"id", "note"}, src)
	}()
	released := false
	defer func() {
		if !released {
			close(src.release)
		}
		wg.Wait()
	}()
	<-src.reached

	// pgx sends what it has encoded in 64 kB messages: most of the 5,000
	// rows reach the server, which stores them in batches of 1,000.
	const q = `SELECT pid, datname, relid, command, type, bytes_processed, bytes_total, tuples_processed, tuples_excluded
		FROM pg_stat_progress_copy`
	var (
		pid                                  int32
		datname, command, typ                string
		rel, bytes, bytesTotal, tuples, excl int64
	)
	deadline := time.Now().Add(10 * time.Second)
	for {
		rows, err := watcher.Query(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for rows.Next() {
			n++
			if err := rows.Scan(&pid, &datname, &rel, &command, &typ, &bytes, &bytesTotal, &tuples, &excl); err != nil {
				t.Fatal(err)
			}
		}
		rows.Close()
		if n > 1 {
			t.Fatalf("pg_stat_progress_copy has %d rows; one COPY runs", n)
		}
		if n == 1 && tuples > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("pg_stat_progress_copy showed no stored rows within 10s (%d rows listed)", n)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if pid != int32(loader.PgConn().PID()) || datname != "kvsql" || rel != relid || command != "COPY FROM" || typ != "PIPE" ||
		bytesTotal != 0 || excl != 0 || tuples%1000 != 0 || tuples > 5000 || bytes < tuples*30 {
		t.Errorf("pg_stat_progress_copy row: pid %d, %s, relid %d, %s, %s, %d bytes of %d, %d tuples, %d excluded; "+
			"want pid %d, kvsql, relid %d, COPY FROM, PIPE, at least 30 bytes a row of 0, up to 5000 tuples in thousands, 0 excluded",
			pid, datname, rel, command, typ, bytes, bytesTotal, tuples, excl, loader.PgConn().PID(), relid)
	}

	close(src.release)
	released = true
	wg.Wait()
	if copyErr != nil || copied != 6000 {
		t.Fatalf("COPY: %d rows, %v; want 6000", copied, copyErr)
	}
	var left int
	if err := watcher.QueryRow(ctx, "SELECT count(*) FROM pg_stat_progress_copy").Scan(&left); err != nil || left != 0 {
		t.Fatalf("after the COPY: %d rows in pg_stat_progress_copy, %v; want none", left, err)
	}
}

func TestProgressCreateIndex(t *testing.T) {
	ts := testkit.StartServer(t, nil, nil)
	ctx := context.Background()
	builder := ts.Connect(t, pgx.QueryExecModeCacheStatement)
	watcher := ts.Connect(t, pgx.QueryExecModeCacheStatement)
	mustExec(t, builder, "CREATE TABLE big (id int PRIMARY KEY, v text)",
		"INSERT INTO big SELECT g, 'v' || g FROM generate_series(1, 3000) g")
	var relid int64
	if err := watcher.QueryRow(ctx, "SELECT oid FROM pg_class WHERE relname = 'big'").Scan(&relid); err != nil {
		t.Fatal(err)
	}
	// The build stops after its first batch of rows until released.
	reached, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	session.SetProgressHook(t, func() {
		once.Do(func() {
			close(reached)
			<-release
		})
	})
	done := make(chan error, 1)
	go func() {
		_, err := builder.Exec(ctx, "CREATE INDEX big_v ON big (v)")
		done <- err
	}()
	released := false
	defer func() {
		if !released {
			close(release)
		}
		<-done
	}()
	select {
	case <-reached:
	case err := <-done:
		t.Fatalf("CREATE INDEX ended without reporting progress: %v", err)
	case <-time.After(10 * time.Second):
		t.Fatal("CREATE INDEX reported no progress within 10s")
	}

	rows, err := watcher.Query(ctx, `SELECT pid, datname, relid, index_relid, command, phase, lockers_total, blocks_total,
		tuples_total, tuples_done, partitions_total FROM pg_stat_progress_create_index`)
	if err != nil {
		t.Fatal(err)
	}
	var (
		pid                                             int32
		datname, command, phase                         string
		rel, idx, lockers, blocks, total, tuples, parts int64
	)
	n := 0
	for rows.Next() {
		n++
		if err := rows.Scan(&pid, &datname, &rel, &idx, &command, &phase, &lockers, &blocks, &total, &tuples, &parts); err != nil {
			t.Fatal(err)
		}
	}
	rows.Close()
	if n != 1 || pid != int32(builder.PgConn().PID()) || datname != "kvsql" || rel != relid || idx <= 0 || idx == relid ||
		command != "CREATE INDEX" || phase != "building index: loading tuples in tree" || lockers != 0 || blocks != 0 ||
		parts != 0 || tuples <= 0 || tuples >= 3000 || total < tuples {
		t.Errorf("pg_stat_progress_create_index: %d rows, the last pid %d, %s, relid %d, index %d, %s, %q, %d lockers, %d blocks, "+
			"%d of %d tuples, %d partitions; want one for pid %d on relid %d, part of the 3000 rows done",
			n, pid, datname, rel, idx, command, phase, lockers, blocks, tuples, total, parts, builder.PgConn().PID(), relid)
	}

	close(release)
	released = true
	if err := <-done; err != nil {
		t.Fatalf("CREATE INDEX: %v", err)
	}
	done <- nil // for the deferred receive
	var left int
	if err := watcher.QueryRow(ctx, "SELECT count(*) FROM pg_stat_progress_create_index").Scan(&left); err != nil || left != 0 {
		t.Fatalf("after CREATE INDEX: %d rows in pg_stat_progress_create_index, %v; want none", left, err)
	}
}

// TestProgressMaintenance pauses each long statement at its nth progress
// report and reads its row in the view PostgreSQL shows it in: VACUUM in
// pg_stat_progress_vacuum, VACUUM FULL and ALTER TABLE rewrites in
// pg_stat_progress_cluster, ANALYZE in pg_stat_progress_analyze.
func TestProgressMaintenance(t *testing.T) {
	ts := testkit.StartServer(t, nil, nil)
	ctx := context.Background()
	worker := ts.Connect(t, pgx.QueryExecModeSimpleProtocol)
	watcher := ts.Connect(t, pgx.QueryExecModeSimpleProtocol)
	mustExec(t, worker, "CREATE TABLE big (id int, v text, w int)", "CREATE INDEX big_v ON big (v)", "CREATE INDEX big_w ON big (w)",
		"INSERT INTO big SELECT g, 'v' || g, g % 7 FROM generate_series(1, 3000) g")
	var relid int64
	if err := watcher.QueryRow(ctx, "SELECT oid FROM pg_class WHERE relname = 'big'").Scan(&relid); err != nil {
		t.Fatal(err)
	}
	pid := worker.PgConn().PID()
	for _, c := range []struct {
		stmt  string
		pause int // the report to stop at, from 1
		query string
		want  string
	}{
		{"VACUUM big", 2, "SELECT phase, heap_blks_total, index_vacuum_count, num_dead_tuples FROM pg_stat_progress_vacuum",
			"vacuuming indexes|0|0|0"},
		{"VACUUM (FULL) big", 3, "SELECT command, phase, index_rebuild_count, cluster_index_relid FROM pg_stat_progress_cluster",
			"VACUUM FULL|rebuilding index|1|0"},
		{"ALTER TABLE big ALTER COLUMN w TYPE bigint", 3,
			"SELECT command, phase, heap_tuples_scanned, heap_tuples_written FROM pg_stat_progress_cluster",
			"ALTER TABLE|seq scanning heap|2000|0"},
		{"ALTER TABLE big ALTER COLUMN w TYPE int", 6,
			"SELECT command, phase, heap_tuples_scanned, heap_tuples_written FROM pg_stat_progress_cluster",
			"ALTER TABLE|writing new heap|3000|2000"},
		{"ANALYZE big", 1, "SELECT phase, sample_blks_total, child_tables_total FROM pg_stat_progress_analyze",
			"acquiring sample rows|0|0"},
	} {
		var calls int
		reached, release := make(chan struct{}), make(chan struct{})
		session.SetProgressHook(t, func() {
			if calls++; calls == c.pause {
				close(reached)
				<-release
			}
		})
		done := make(chan error, 1)
		go func() {
			_, err := worker.Exec(ctx, c.stmt)
			done <- err
		}()
		select {
		case <-reached:
		case err := <-done:
			t.Fatalf("%s ended after %d progress reports (%v); want a pause at report %d", c.stmt, calls, err, c.pause)
		case <-time.After(10 * time.Second):
			close(release)
			t.Fatalf("%s: no progress report %d within 10s", c.stmt, c.pause)
		}
		got, err := progressRows(watcher, strings.Replace(c.query, "SELECT ", "SELECT pid, relid, datname, ", 1))
		close(release)
		if err2 := <-done; err2 != nil {
			t.Fatalf("%s: %v", c.stmt, err2)
		}
		if err != nil {
			t.Fatalf("%s: %v", c.query, err)
		}
		if want := fmt.Sprintf("%d|%d|kvsql|%s", pid, relid, c.want); len(got) != 1 || got[0] != want {
			t.Errorf("during %s, %s: %q; want [%q]", c.stmt, c.query, got, want)
		}
		if left, err := progressRows(watcher, strings.Replace(c.query, "SELECT ", "SELECT pid, ", 1)); err != nil || len(left) != 0 {
			t.Errorf("after %s: %q, %v; want no rows", c.stmt, left, err)
		}
	}
}

// progressRows runs q and returns its rows with columns joined by "|".
func progressRows(conn *pgx.Conn, q string) ([]string, error) {
	rows, err := conn.Query(context.Background(), q)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		vals, err := rows.Values()
		if err != nil {
			return nil, err
		}
		var parts []string
		for _, v := range vals {
			parts = append(parts, fmt.Sprint(v))
		}
		out = append(out, strings.Join(parts, "|"))
	}
	return out, rows.Err()
}
