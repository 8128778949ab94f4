package session_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/kvsql/kvsql/internal/testkit"
)

// TestDDLRaceCachedStatements (issue 22, item 1): clients loop over
// cached extended-protocol statements while another creates, fills,
// widens and drops their table. Every answer must be right or a clean
// error PostgreSQL would give (42P01 while the table is gone, 0A000 when
// a cached statement's result columns changed); never a wrong value, an
// XX000, a protocol error or a panic. 60 s (5 s with -short).
func TestDDLRaceCachedStatements(t *testing.T) {
	dur := 60 * time.Second
	if testing.Short() {
		dur = 5 * time.Second
	}
	ts := testkit.StartServer(t, nil, nil)
	ctx := context.Background()
	ddl := ts.Connect(t, pgx.QueryExecModeSimpleProtocol)
	deadline := time.Now().Add(dur)

	type tally struct {
		ok    int
		codes map[string]int
		bad   []string
	}
	reader := func(sql string, args []any, check func(rows [][]any) error) *tally {
		r := &tally{codes: map[string]int{}}
		conn := ts.Connect(t, pgx.QueryExecModeCacheStatement)
		for time.Now().Before(deadline) {
			rows, err := conn.Query(ctx, sql, args...)
			var got [][]any
			if err == nil {
				for rows.Next() {
					vals, verr := rows.Values()
					if verr != nil {
						err = verr
						break
					}
					got = append(got, vals)
				}
				rows.Close()
				if err == nil {
					err = rows.Err()
				}
			}
			var pe *pgconn.PgError
			switch {
			case err == nil:
				if cerr := check(got); cerr != nil {
					r.bad = append(r.bad, cerr.Error())
				} else {
					r.ok++
				}
			case errors.As(err, &pe):
				r.codes[pe.Code]++
				if pe.Code != "42P01" && pe.Code != "0A000" && pe.Code != "42703" {
					r.bad = append(r.bad, fmt.Sprintf("%s: %s", pe.Code, pe.Message))
				}
			default:
				r.bad = append(r.bad, "client error: "+err.Error())
				if conn.IsClosed() {
					return r
				}
			}
			if len(r.bad) > 20 {
				return r
			}
		}
		return r
	}
	queries := []struct {
		sql   string
		args  []any
		check func([][]any) error
	}{
		{"SELECT v FROM churn3", nil, func(rows [][]any) error {
			for _, r := range rows {
				if v, ok := r[0].(int32); !ok || v != 1234 {
					return fmt.Errorf("SELECT v: got %#v, want 1234", r[0])
				}
			}
			return nil
		}},
		{"SELECT * FROM churn3 WHERE id = $1", []any{1}, func(rows [][]any) error {
			for _, r := range rows {
				if len(r) < 2 || r[0] != int32(1) || r[1] != int32(1234) || (len(r) == 3 && r[2] != nil) || len(r) > 3 {
					return fmt.Errorf("SELECT *: got %#v, want [1 1234] or [1 1234 <nil>]", r)
				}
			}
			return nil
		}},
	}
	var wg sync.WaitGroup
	results := make([]*tally, len(queries))
	for i, q := range queries {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i] = reader(q.sql, q.args, q.check)
		}()
	}
	cycles := 0
	for time.Now().Before(deadline) {
		for _, sql := range []string{
			"BEGIN; CREATE TABLE churn3 (id INT PRIMARY KEY, v INT); INSERT INTO churn3 VALUES (1, 1234); COMMIT",
			"ALTER TABLE churn3 ADD COLUMN w INT",
			"DROP TABLE churn3",
		} {
			if _, err := ddl.Exec(ctx, sql); err != nil {
				t.Fatalf("%s: %v", sql, err)
			}
		}
		cycles++
	}
	wg.Wait()
	for i, r := range results {
		t.Logf("%s: %d right answers, errors %v", queries[i].sql, r.ok, r.codes)
		for _, b := range r.bad {
			t.Errorf("%s: %s", queries[i].sql, b)
		}
		if r.ok == 0 {
			t.Errorf("%s: no right answer in %v", queries[i].sql, dur)
		}
	}
	t.Logf("%d DDL cycles", cycles)
	checkAlive(t, ts)
}

// TestPrepareReportsMissingObjects: Parse of a statement over a missing
// table or column fails at once with PostgreSQL's code, instead of
// preparing with guessed (text) parameter types.
func TestPrepareReportsMissingObjects(t *testing.T) {
	ts := testkit.StartServer(t, nil, nil)
	conn := ts.Connect(t, pgx.QueryExecModeCacheStatement)
	ctx := context.Background()
	mustExec(t, conn, "CREATE TABLE present (id INT PRIMARY KEY)")
	for sql, code := range map[string]string{
		"INSERT INTO missing VALUES ($1)":           "42P01",
		"SELECT nope FROM present WHERE id = $1":    "42703",
		"UPDATE present SET id = $1 WHERE nope = 1": "42703",
	} {
		_, err := conn.Prepare(ctx, "", sql)
		if sqlstate(err) != code {
			t.Errorf("Prepare %q: got %v, want %s", sql, err, code)
		}
	}
	if _, err := conn.Prepare(ctx, "", "INSERT INTO present VALUES ($1)"); err != nil {
		t.Fatalf("Prepare over a present table: %v", err)
	}
}
