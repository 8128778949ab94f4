package session_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/kvsql/kvsql/internal/testkit"
	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/session"
	"github.com/kvsql/kvsql/types"
	"github.com/kvsql/kvsql/wire/backend"
)

// TestPreparedFollowsSearchPath checks that a prepared statement (as the
// wire protocol's Parse makes it) and a cached simple query are replanned
// when search_path changes, RESET included: the session remembers the
// resolved path between settings changes, and a stale memo would keep
// reading the first schema's table.
func TestPreparedFollowsSearchPath(t *testing.T) {
	db, err := session.Open(session.Options{Memory: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	s, err := db.Session("")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	mustExec := func(sql string) {
		t.Helper()
		if _, err := s.Exec(ctx, sql); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	mustExec("CREATE SCHEMA a; CREATE SCHEMA b")
	mustExec("CREATE TABLE a.t (id INT PRIMARY KEY, v TEXT); INSERT INTO a.t VALUES (1, 'in a')")
	mustExec("CREATE TABLE b.t (id INT PRIMARY KEY, v TEXT); INSERT INTO b.t VALUES (1, 'in b')")
	mustExec("CREATE TABLE public.t (id INT PRIMARY KEY, v TEXT); INSERT INTO public.t VALUES (1, 'in public')")
	sts, err := s.Prepare(ctx, "SELECT v FROM t WHERE id = $1", []uint32{})
	if err != nil {
		t.Fatal(err)
	}
	prepared := sts[0]
	one := func(st backend.Statement, params []types.Datum) string {
		t.Helper()
		res, err := st.Execute(ctx, params)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Close()
		var got string
		for res.Next() {
			got += res.Row()[0].S
		}
		if err := res.Err(); err != nil {
			t.Fatal(err)
		}
		return got
	}
	for _, c := range []struct{ set, want string }{
		{"", "in public"},
		{"SET search_path = a", "in a"},
		{"SET search_path = b, a", "in b"},
		{"SET search_path = a", "in a"},
		{"RESET search_path", "in public"},
		{"SET search_path = '$user', b", "in b"},
	} {
		if c.set != "" {
			mustExec(c.set)
		}
		for round := 0; round < 2; round++ { // the second runs the cached plan
			if got := one(prepared, []types.Datum{types.NewInt(1)}); got != c.want {
				t.Errorf("after %q, prepared: %q, want %q", c.set, got, c.want)
			}
			simple, err := s.Prepare(ctx, "SELECT v FROM t WHERE id = 1", nil)
			if err != nil {
				t.Fatal(err)
			}
			if got := one(simple[0], nil); got != c.want {
				t.Errorf("after %q, simple: %q, want %q", c.set, got, c.want)
			}
		}
	}
}

// TestPreparedReuseMatchesFresh runs random parameterized SELECTs over
// random rows two ways: as one prepared statement per query text,
// executed again and again (its plan, and the read sets of its scans,
// exec.ScanShapes, reused), and as a fresh statement every time (parsed,
// planned and built from nothing). Both must give the same rows or the
// same error. Between rounds the rows change and a column is added (a
// new plan, so new shapes). Reproduce a failure with the printed -seed.
func TestPreparedReuseMatchesFresh(t *testing.T) {
	rng := seededRand(t)
	db, err := session.Open(session.Options{Memory: true, NoQueryCache: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	s, err := db.Session("")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	mustExec := func(sql string) {
		t.Helper()
		if _, err := s.Exec(ctx, sql); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	mustExec("CREATE TABLE r (id INT PRIMARY KEY, a INT, b TEXT, c INT, d FLOAT8); CREATE INDEX r_a ON r (a); CREATE UNIQUE INDEX r_c ON r (c)")
	fill := func() {
		mustExec("DELETE FROM r")
		for id := 0; id < 60; id++ {
			a, b, c := fmt.Sprint(rng.Intn(8)), fmt.Sprintf("'s%d'", rng.Intn(5)), fmt.Sprint(id*3+rng.Intn(3))
			if rng.Intn(6) == 0 {
				a = "NULL"
			}
			if rng.Intn(6) == 0 {
				b = "NULL"
			}
			mustExec(fmt.Sprintf("INSERT INTO r (id, a, b, c, d) VALUES (%d, %s, %s, %s, %d.5)", id, a, b, c, rng.Intn(10)))
		}
	}
	queries := []string{
		"SELECT id, b FROM r WHERE id = $1",
		"SELECT b, d FROM r WHERE id = $1 AND a > 2",
		"SELECT id, b, d FROM r WHERE a = $1 ORDER BY id",
		"SELECT id, d FROM r WHERE c = $1",
		"SELECT id, b FROM r WHERE a < $1 AND b <> 's1' ORDER BY id",
		"SELECT id FROM r WHERE id >= $1 AND d > 3 ORDER BY id LIMIT 7",
		"SELECT count(*), max(b) FROM r WHERE a = $1 OR c > $1 * 3",
		"SELECT id, a, b, c FROM r WHERE id BETWEEN $1 AND $1 + 5 AND a IS NOT NULL ORDER BY id",
		"SELECT r.id, s.b FROM r JOIN r s ON s.id = r.a WHERE r.id < $1 ORDER BY 1, 2",
		"SELECT id FROM r WHERE a = (SELECT max(a) FROM r WHERE id < $1) ORDER BY id",
	}
	prepared := make([]backend.Statement, len(queries))
	for i, q := range queries {
		sts, err := s.Prepare(ctx, q, []uint32{})
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		prepared[i] = sts[0]
		// PostgreSQL types every $1 here int4 (OID 23), also where only
		// a subquery reads it; text would fail the replan after ALTER.
		if oids := sts[0].ParamOIDs(); len(oids) != 1 || oids[0] != 23 {
			t.Errorf("%s: parameter OIDs %v, want [23]", q, oids)
		}
	}
	outcome := func(rows [][]types.Datum, tag string, err error) string {
		if err != nil {
			return fmt.Sprintf("error %s: %v", pgerror.CodeOf(err), err)
		}
		var b strings.Builder
		for _, r := range rows {
			b.WriteString(formatRow(r) + "\n")
		}
		return b.String() + tag
	}
	runPrepared := func(st backend.Statement, params []types.Datum) string {
		res, err := st.Execute(ctx, params)
		if err != nil {
			return outcome(nil, "", err)
		}
		defer res.Close()
		var rows [][]types.Datum
		for res.Next() {
			rows = append(rows, append([]types.Datum(nil), res.Row()...))
		}
		if err := res.Err(); err != nil {
			return outcome(nil, "", err)
		}
		return outcome(rows, res.Tag(), nil)
	}
	checked := 0
	for round := 0; round < 4; round++ {
		fill()
		if round == 2 {
			mustExec("ALTER TABLE r ADD COLUMN e INT DEFAULT 4")
		}
		for n := 0; n < 150; n++ {
			i := rng.Intn(len(queries))
			params := []types.Datum{types.NewInt(int64(rng.Intn(70) - 5))}
			got := runPrepared(prepared[i], params)
			res, err := s.Exec(ctx, queries[i], params...)
			var want string
			if err != nil {
				want = outcome(nil, "", err)
			} else {
				want = outcome(res[0].Rows, res[0].Tag, nil)
			}
			if got != want {
				t.Fatalf("round %d: %s with %v:\nprepared:\n%s\nfresh:\n%s", round, queries[i], params[0], got, want)
			}
			checked++
		}
	}
	t.Logf("%d executions compared", checked)
}

// TestDescribePortalFollowsFormatsAndPlan binds one prepared statement
// again and again with result formats that change, and renames a column
// between executions: the RowDescription of each portal (the wire server
// reuses the encoded one while nothing changed) must carry the portal's
// own formats and the current column name, and the rows must come in
// those formats.
func TestDescribePortalFollowsFormatsAndPlan(t *testing.T) {
	ts := testkit.StartServer(t, nil, nil)
	ctx := context.Background()
	c := ts.Connect(t, pgx.QueryExecModeSimpleProtocol).PgConn()
	for _, sql := range []string{"CREATE TABLE d (id INT PRIMARY KEY, v INT)", "INSERT INTO d VALUES (1, 258)"} {
		if err := c.Exec(ctx, sql).Close(); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := c.Prepare(ctx, "ps", "SELECT * FROM d WHERE id = $1", nil); err != nil {
		t.Fatal(err)
	}
	for i, formats := range [][]int16{nil, {1}, {0, 1}, {0, 1}, nil, {1, 0}} {
		name := "v"
		if i >= 3 {
			name = "w"
		}
		if i == 3 {
			if err := c.Exec(ctx, "ALTER TABLE d RENAME COLUMN v TO w").Close(); err != nil {
				t.Fatal(err)
			}
		}
		res := c.ExecPrepared(ctx, "ps", [][]byte{[]byte("1")}, nil, formats).Read()
		if res.Err != nil {
			t.Fatalf("formats %v: %v", formats, res.Err)
		}
		want := []int16{0, 0}
		switch len(formats) {
		case 1:
			want = []int16{formats[0], formats[0]}
		case 2:
			want = formats
		}
		fds := res.FieldDescriptions
		if len(fds) != 2 || fds[1].Name != name || fds[0].Format != want[0] || fds[1].Format != want[1] {
			t.Fatalf("execution %d, formats %v: field descriptions %+v", i, formats, fds)
		}
		if len(res.Rows) != 1 {
			t.Fatalf("execution %d: %d rows", i, len(res.Rows))
		}
		v := res.Rows[0][1]
		if want[1] == 1 && string(v) != "\x00\x00\x01\x02" || want[1] == 0 && string(v) != "258" {
			t.Fatalf("execution %d, formats %v: v = %q", i, formats, v)
		}
	}
}
