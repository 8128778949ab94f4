package session_test

import (
	"context"
	"errors"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/kvsql/kvsql/internal/testkit"
)

// Issue 13, item 1: every error inside a transaction block fails it,
// whichever layer raised it, in the simple and the extended protocol and
// in a pipelined batch; item 2: READ ONLY refuses every write with 25006.

var protocols = []struct {
	name string
	mode pgx.QueryExecMode
}{
	{"simple", pgx.QueryExecModeSimpleProtocol},
	{"extended", pgx.QueryExecModeCacheStatement},
}

// sqlstate is err's SQLSTATE, or "" when it carries none.
func sqlstate(err error) string {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Code
	}
	return ""
}

// execCode runs sql and returns the SQLSTATE of its error ("" on success)
// and the command tag.
func execCode(conn *pgx.Conn, sql string) (string, string) {
	tag, err := conn.Exec(context.Background(), sql)
	if err != nil {
		return sqlstate(err), ""
	}
	return "", tag.String()
}

func TestTxnAnyErrorAborts(t *testing.T) {
	errorsByLayer := []struct{ sql, code string }{
		{"SELECT 1/0", "22012"},                      // evaluation, while streaming rows
		{"SELECT 2147483647 + 1", "22003"},           // integer overflow
		{"SELECT * FROM missing", "42P01"},           // planning
		{"SELEC 1", "42601"},                         // parsing
		{"SELECT 'x'::int", "22P02"},                 // casting a constant
		{"INSERT INTO kv VALUES ('h0', 0)", "23505"}, // a constraint, in the kv layer
	}
	for _, p := range protocols {
		for _, e := range errorsByLayer {
			t.Run(p.name+"/"+e.code, func(t *testing.T) {
				ts := testkit.StartServer(t, nil, nil)
				conn := ts.Connect(t, p.mode)
				mustExec(t, conn, "CREATE TABLE kv (k TEXT PRIMARY KEY, v INT)", "INSERT INTO kv VALUES ('h0', 0)")
				mustExec(t, conn, "BEGIN", "INSERT INTO kv VALUES ('h1', 1)")
				if code, _ := execCode(conn, e.sql); code != e.code {
					t.Fatalf("%s: got SQLSTATE %q, want %s", e.sql, code, e.code)
				}
				if code, _ := execCode(conn, "INSERT INTO kv VALUES ('h2', 2)"); code != "25P02" {
					t.Fatalf("INSERT after the error: got %q, want 25P02", code)
				}
				if code, _ := execCode(conn, "SELECT 1"); code != "25P02" {
					t.Fatalf("SELECT after the error: got %q, want 25P02", code)
				}
				if _, tag := execCode(conn, "COMMIT"); tag != "ROLLBACK" {
					t.Fatalf("COMMIT of a failed transaction answered %q, want ROLLBACK", tag)
				}
				var n int
				if err := conn.QueryRow(context.Background(), "SELECT count(*) FROM kv").Scan(&n); err != nil || n != 1 {
					t.Fatalf("rows after the rolled-back transaction: %d, %v (want 1: only the setup row)", n, err)
				}
			})
		}
	}
}

// TestTxnPipelineErrorAborts sends BEGIN, an INSERT, a failing SELECT, a
// second INSERT and COMMIT as one pipelined batch (one Sync): the server
// skips what follows the error, the block is failed, and ROLLBACK leaves
// the table as it was.
func TestTxnPipelineErrorAborts(t *testing.T) {
	ts := testkit.StartServer(t, nil, nil)
	conn := ts.Connect(t, pgx.QueryExecModeCacheStatement)
	ctx := context.Background()
	mustExec(t, conn, "CREATE TABLE kv (k TEXT PRIMARY KEY, v INT)")
	b := &pgx.Batch{}
	b.Queue("BEGIN")
	b.Queue("INSERT INTO kv VALUES ('h1', 1)")
	b.Queue("SELECT 1/0")
	b.Queue("INSERT INTO kv VALUES ('h2', 2)")
	b.Queue("COMMIT")
	err := conn.SendBatch(ctx, b).Close()
	if sqlstate(err) != "22012" {
		t.Fatalf("batch: got %v, want 22012", err)
	}
	if code, _ := execCode(conn, "SELECT count(*) FROM kv"); code != "25P02" {
		t.Fatalf("after the batch: got %q, want 25P02 (the block must be failed)", code)
	}
	mustExec(t, conn, "ROLLBACK")
	var n int
	if err := conn.QueryRow(ctx, "SELECT count(*) FROM kv").Scan(&n); err != nil || n != 0 {
		t.Fatalf("rows: %d, %v; want 0", n, err)
	}
}

func TestTxnReadOnly(t *testing.T) {
	for _, p := range protocols {
		t.Run(p.name, func(t *testing.T) {
			ts := testkit.StartServer(t, nil, nil)
			conn := ts.Connect(t, p.mode)
			ctx := context.Background()
			mustExec(t, conn, "CREATE TABLE kv (k TEXT PRIMARY KEY, v INT)", "INSERT INTO kv VALUES ('a', 1)")
			writes := []string{
				"INSERT INTO kv VALUES ('b', 2)",
				"UPDATE kv SET v = 3",
				"DELETE FROM kv",
				"CREATE TABLE other (id INT PRIMARY KEY)",
				"CREATE INDEX kv_v ON kv (v)",
				"DROP TABLE kv",
			}
			starts := []string{
				"START TRANSACTION READ ONLY",
				"BEGIN READ ONLY",
				"BEGIN; SET TRANSACTION READ ONLY",
				"BEGIN; SET transaction_read_only = on",
			}
			for _, start := range starts {
				for _, w := range writes {
					mustExec(t, conn, start)
					if code, _ := execCode(conn, "SELECT count(*) FROM kv"); code != "" {
						t.Fatalf("%s: a read failed with %s", start, code)
					}
					if code, _ := execCode(conn, w); code != "25006" {
						t.Fatalf("%s; %s: got %q, want 25006", start, w, code)
					}
					if _, tag := execCode(conn, "COMMIT"); tag != "ROLLBACK" {
						t.Fatalf("%s; %s; COMMIT answered %q, want ROLLBACK", start, w, tag)
					}
				}
			}
			// The session default, set both ways; autocommit statements obey it.
			for _, set := range []string{"SET default_transaction_read_only = on", "SET SESSION CHARACTERISTICS AS TRANSACTION READ ONLY"} {
				mustExec(t, conn, set)
				var ro string
				if err := conn.QueryRow(ctx, "SHOW transaction_read_only").Scan(&ro); err != nil || ro != "on" {
					t.Fatalf("%s: SHOW transaction_read_only = %q, %v", set, ro, err)
				}
				if code, _ := execCode(conn, "INSERT INTO kv VALUES ('c', 3)"); code != "25006" {
					t.Fatalf("%s: autocommit INSERT got %q, want 25006", set, code)
				}
				mustExec(t, conn, "BEGIN")
				if code, _ := execCode(conn, "UPDATE kv SET v = 9"); code != "25006" {
					t.Fatalf("%s: UPDATE in BEGIN got %q, want 25006", set, code)
				}
				mustExec(t, conn, "ROLLBACK")
				mustExec(t, conn, "BEGIN READ WRITE", "INSERT INTO kv VALUES ('rw', 0)", "ROLLBACK")
				mustExec(t, conn, "SET default_transaction_read_only = off")
			}
			var n, sum int
			if err := conn.QueryRow(ctx, "SELECT count(*), sum(v) FROM kv").Scan(&n, &sum); err != nil || n != 1 || sum != 1 {
				t.Fatalf("after every refused write: count %d sum %d, %v; want 1, 1", n, sum, err)
			}
		})
	}
}
