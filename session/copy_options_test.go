package session_test

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/kvsql/kvsql/internal/testkit"
)

// TestCopyOptions runs COPY's options over the wire as psql sends them:
// WHERE, FORCE_NULL / FORCE_NOT_NULL / FORCE_QUOTE, QUOTE and ESCAPE,
// HEADER MATCH, an empty NULL string, and the errors PostgreSQL gives.
func TestCopyOptions(t *testing.T) {
	ts := testkit.StartServer(t, nil, nil)
	conn := ts.Connect(t, pgx.QueryExecModeSimpleProtocol)
	pg := conn.PgConn()
	ctx := context.Background()
	mustExec(t, conn, `CREATE TABLE c (a int PRIMARY KEY, b text, d text)`, `CREATE VIEW cv AS SELECT 1 AS x`)
	copyIn := func(sql, data string) (int64, error) {
		tag, err := pg.CopyFrom(ctx, strings.NewReader(data), sql)
		return tag.RowsAffected(), err
	}
	copyOutErr := func(sql string) (string, error) {
		var b bytes.Buffer
		_, err := pg.CopyTo(ctx, &b, sql)
		return b.String(), err
	}
	copyOut := func(sql string) string {
		t.Helper()
		out, err := copyOutErr(sql)
		if err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
		return out
	}

	n, err := copyIn(`COPY c FROM STDIN WHERE a % 2 = 0 AND c.b <> 'skip'`, "1\tx\ty\n2\tx\ty\n3\tx\ty\n4\tskip\ty\n6\tw\t\\N\n8\t\\N\tz\n")
	if err != nil || n != 2 {
		t.Fatalf("COPY ... WHERE: %d rows, %v; want 2", n, err)
	}
	if got := copyOut(`COPY c TO STDOUT`); got != "2\tx\ty\n6\tw\t\\N\n" {
		t.Errorf("after COPY ... WHERE: %q", got)
	}
	mustExec(t, conn, `TRUNCATE c`)

	// An unquoted NULL string in a FORCE_NOT_NULL column is text; a
	// quoted one in a FORCE_NULL column is NULL.
	if _, err := copyIn(`COPY c FROM STDIN WITH (FORMAT csv, FORCE_NOT_NULL (b), FORCE_NULL (d))`, "1,,\"\"\n"); err != nil {
		t.Fatal(err)
	}
	var bNull, dNull bool
	if err := conn.QueryRow(ctx, `SELECT b IS NULL, d IS NULL FROM c WHERE a = 1`).Scan(&bNull, &dNull); err != nil || bNull || !dNull {
		t.Errorf("FORCE_NOT_NULL / FORCE_NULL: b null %v, d null %v, %v", bNull, dNull, err)
	}

	// QUOTE and ESCAPE, both ways.
	if _, err := copyIn(`COPY c FROM STDIN (FORMAT csv, QUOTE '''', ESCAPE '\')`, "2,'it\\'s, ok',plain\n"); err != nil {
		t.Fatal(err)
	}
	if got := copyOut(`COPY (SELECT b, d FROM c WHERE a = 2) TO STDOUT (FORMAT csv, QUOTE '''', ESCAPE '\', FORCE_QUOTE *)`); got != "'it\\'s, ok','plain'\n" {
		t.Errorf("CSV out with QUOTE, ESCAPE, FORCE_QUOTE *: %q", got)
	}
	if got := copyOut(`COPY c (a, b) TO STDOUT CSV HEADER FORCE QUOTE b`); !strings.HasPrefix(got, "a,b\n1,\"\"\n") {
		t.Errorf("CSV HEADER FORCE QUOTE b: %q", got)
	}

	// An empty NULL string in text format.
	if _, err := copyIn(`COPY c FROM STDIN WITH DELIMITER ';' NULL ''`, "3;;z\n"); err != nil {
		t.Fatal(err)
	}
	if err := conn.QueryRow(ctx, `SELECT b IS NULL FROM c WHERE a = 3`).Scan(&bNull); err != nil || !bNull {
		t.Errorf("NULL '': b null %v, %v", bNull, err)
	}

	for _, c := range []struct{ sql, data, code string }{
		{`COPY c FROM STDIN (FORMAT csv, HEADER match)`, "a,x,d\n9,y,z\n", "22P04"},
		{`COPY c FROM STDIN (delimiter ',', delimiter ',')`, "", "42601"},
		{`COPY c FROM STDIN (FORMAT csv, FORCE_NOT_NULL (nosuch))`, "", "42703"},
		{`COPY c (a, d) FROM STDIN (FORMAT csv, FORCE_NULL (b))`, "", "42P10"},
		{`COPY c FROM STDIN (FORCE_NULL (b))`, "", "0A000"},
		{`COPY c (a, b, a) FROM STDIN`, "", "42701"},
		{`COPY c FROM STDIN WHERE nosuch > 1`, "", "42703"},
		{`COPY c FROM STDIN WHERE max(a) > 1`, "", "42803"},
		{`COPY cv FROM STDIN`, "", "42809"},
		{`COPY c FROM STDIN (ENCODING 'latin1')`, "", "0A000"},
		// The first field is converted before the missing ones are seen.
		{`COPY c FROM STDIN`, "x\n", "22P02"},
	} {
		if _, err := copyIn(c.sql, c.data); pgErrCode(err) != c.code {
			t.Errorf("%s: %v, want %s", c.sql, err, c.code)
		}
	}
	for _, c := range []struct{ sql, code string }{
		{`COPY c TO STDOUT WHERE a = 1`, "42601"},
		{`COPY c (a) TO STDOUT WITH (FORMAT csv, HEADER match)`, "0A000"},
		{`COPY c TO STDOUT (FORCE_NOT_NULL (b))`, "0A000"},
		{`COPY cv TO STDOUT`, "42809"},
	} {
		if _, err := copyOutErr(c.sql); pgErrCode(err) != c.code {
			t.Errorf("%s: %v, want %s", c.sql, err, c.code)
		}
	}
}

// TestCopyFreeze checks COPY FREEZE's rule: the table must have been
// created or truncated in the current subtransaction.
func TestCopyFreeze(t *testing.T) {
	ts := testkit.StartServer(t, nil, nil)
	conn := ts.Connect(t, pgx.QueryExecModeSimpleProtocol)
	pg := conn.PgConn()
	ctx := context.Background()
	mustExec(t, conn, `CREATE TABLE base (a text NOT NULL)`)
	freeze := func() error {
		_, err := pg.CopyFrom(ctx, strings.NewReader("x\ny\n"), `COPY f FROM STDIN CSV FREEZE`)
		return err
	}
	mustExec(t, conn, `CREATE TABLE f (LIKE base)`)
	for _, c := range []struct {
		setup string // run before the COPY FREEZE; ROLLBACK follows it
		code  string // the COPY's SQLSTATE; "" for success
	}{
		{`SELECT 1`, "55000"},
		{`BEGIN; CREATE TABLE g (LIKE base); DROP TABLE g`, "55000"},
		{`BEGIN; TRUNCATE f`, ""},
		{`BEGIN; TRUNCATE f; SAVEPOINT s1`, "55000"},
		{`BEGIN; SAVEPOINT s1; TRUNCATE f; RELEASE SAVEPOINT s1`, ""},
		{`BEGIN; SAVEPOINT s1; TRUNCATE f; ROLLBACK TO SAVEPOINT s1`, "55000"},
		{`BEGIN; INSERT INTO f VALUES ('z'); SAVEPOINT s1; TRUNCATE f`, ""},
	} {
		if _, err := pg.Exec(ctx, c.setup).ReadAll(); err != nil {
			t.Fatalf("%s: %v", c.setup, err)
		}
		if err := freeze(); pgErrCode(err) != c.code {
			t.Errorf("COPY FREEZE after %s: %v, want %q", c.setup, err, c.code)
		}
		if _, err := pg.Exec(ctx, `ROLLBACK`).ReadAll(); err != nil {
			t.Fatal(err)
		}
	}
	// A table created in the transaction takes COPY FREEZE too.
	mustExec(t, conn, `BEGIN`, `CREATE TABLE h (LIKE base)`)
	if _, err := pg.CopyFrom(ctx, strings.NewReader("x\n"), `COPY h FROM STDIN (FORMAT csv, FREEZE)`); err != nil {
		t.Errorf("COPY FREEZE into a new table: %v", err)
	}
	mustExec(t, conn, `COMMIT`)
}
