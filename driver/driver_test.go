package driver_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kvsql/kvsql"
	kvdriver "github.com/kvsql/kvsql/driver"
	"github.com/kvsql/kvsql/pgerror"
)

// open opens a handle on dsn, closed when the test ends.
func open(t *testing.T, dsn string) *sql.DB {
	t.Helper()
	db, err := sql.Open("kvsql", dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := db.Close(); err != nil {
			t.Errorf("close %s: %v", dsn, err)
		}
	})
	return db
}

func mustExec(t *testing.T, db interface {
	Exec(string, ...any) (sql.Result, error)
}, query string, args ...any) sql.Result {
	t.Helper()
	res, err := db.Exec(query, args...)
	if err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return res
}

// code returns err's SQLSTATE, "" when it carries none.
func code(err error) string {
	var pe *kvdriver.Error
	if errors.As(err, &pe) {
		return string(pe.Code)
	}
	return ""
}

func count(t *testing.T, db *sql.DB, query string, args ...any) int64 {
	t.Helper()
	var n int64
	if err := db.QueryRow(query, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return n
}

func TestCRUD(t *testing.T) {
	db := open(t, ":memory:")
	mustExec(t, db, "CREATE TABLE people (id INT PRIMARY KEY, name TEXT NOT NULL, age INT)")
	res := mustExec(t, db, "INSERT INTO people VALUES ($1, $2, $3), ($4, $5, $6)", 1, "ada", 36, 2, "alan", nil)
	if n, err := res.RowsAffected(); err != nil || n != 2 {
		t.Fatalf("INSERT RowsAffected = %d, %v; want 2", n, err)
	}
	if _, err := res.LastInsertId(); err == nil {
		t.Error("LastInsertId: no error; PostgreSQL has no last insert id")
	}

	rows, err := db.Query("SELECT id, name, age FROM people ORDER BY id")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for rows.Next() {
		var id int
		var name string
		var age sql.NullInt64
		if err := rows.Scan(&id, &name, &age); err != nil {
			t.Fatal(err)
		}
		got = append(got, fmt.Sprintf("%d %s %v", id, name, age))
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	rows.Close()
	if want := []string{"1 ada {36 true}", "2 alan {0 false}"}; !reflect.DeepEqual(got, want) {
		t.Errorf("rows = %q, want %q", got, want)
	}

	res = mustExec(t, db, "UPDATE people SET age = age + 1 WHERE age IS NOT NULL")
	if n, _ := res.RowsAffected(); n != 1 {
		t.Errorf("UPDATE RowsAffected = %d, want 1", n)
	}
	var age int
	if err := db.QueryRow("SELECT age FROM people WHERE name = $1", "ada").Scan(&age); err != nil || age != 37 {
		t.Errorf("age = %d, %v; want 37", age, err)
	}
	res = mustExec(t, db, "DELETE FROM people WHERE id = $1", 2)
	if n, _ := res.RowsAffected(); n != 1 {
		t.Errorf("DELETE RowsAffected = %d, want 1", n)
	}
	if n := count(t, db, "SELECT count(*) FROM people"); n != 1 {
		t.Errorf("%d rows left, want 1", n)
	}
	if err := db.QueryRow("SELECT name FROM people WHERE id = 2").Scan(new(string)); !errors.Is(err, sql.ErrNoRows) {
		t.Errorf("deleted row: %v, want sql.ErrNoRows", err)
	}
}

// TestValues checks the Go type of each SQL type's values, read into
// `any` as database/sql hands them over.
func TestValues(t *testing.T) {
	db := open(t, ":memory:")
	mustExec(t, db, `CREATE TABLE v (i2 SMALLINT, i4 INT, i8 BIGINT, f4 REAL, f8 DOUBLE PRECISION,
		n NUMERIC, t TEXT, vc VARCHAR(5), c CHAR(3), b BYTEA, ok BOOLEAN, d DATE, ts TIMESTAMP, tz TIMESTAMPTZ)`)
	mustExec(t, db, `INSERT INTO v VALUES (1, 2, 3, 1.1, 2.25, 101.5, 'text', 'vc', 'abc', '\x00ff', true,
		'2024-02-29', '2024-02-29 13:14:15.123456', '2024-02-29 13:14:15+00')`)
	mustExec(t, db, "INSERT INTO v (i4) VALUES (NULL)")

	rows, err := db.Query("SELECT * FROM v ORDER BY i4 NULLS LAST")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	cols, _ := rows.ColumnTypes()
	vals := make([]any, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	if !rows.Next() {
		t.Fatal("no row")
	}
	if err := rows.Scan(ptrs...); err != nil {
		t.Fatal(err)
	}
	ts := time.Date(2024, 2, 29, 13, 14, 15, 123456000, time.UTC)
	want := []struct {
		typ string
		v   any
	}{
		{"INT2", int64(1)}, {"INT4", int64(2)}, {"INT8", int64(3)}, {"FLOAT4", 1.1}, {"FLOAT8", 2.25},
		{"NUMERIC", "101.5"}, {"TEXT", "text"}, {"VARCHAR", "vc"}, {"BPCHAR", "abc"}, {"BYTEA", []byte{0, 0xff}},
		{"BOOL", true}, {"DATE", time.Date(2024, 2, 29, 0, 0, 0, 0, time.UTC)}, {"TIMESTAMP", ts},
		{"TIMESTAMPTZ", time.Date(2024, 2, 29, 13, 14, 15, 0, time.UTC)},
	}
	for i, w := range want {
		if got := cols[i].DatabaseTypeName(); got != w.typ {
			t.Errorf("column %s: type %s, want %s", cols[i].Name(), got, w.typ)
		}
		if !reflect.DeepEqual(vals[i], w.v) {
			t.Errorf("column %s: %#v (%T), want %#v (%T)", cols[i].Name(), vals[i], vals[i], w.v, w.v)
		}
		if st := cols[i].ScanType(); st != reflect.TypeOf(w.v) {
			t.Errorf("column %s: scan type %v, want %T", cols[i].Name(), st, w.v)
		}
	}
	if n, ok := cols[7].Length(); !ok || n != 5 {
		t.Errorf("VARCHAR(5) length = %d, %v", n, ok)
	}
	if !rows.Next() {
		t.Fatal("no second row")
	}
	if err := rows.Scan(ptrs...); err != nil {
		t.Fatal(err)
	}
	for i, v := range vals {
		if v != nil {
			t.Errorf("column %s of the NULL row: %#v, want nil", cols[i].Name(), v)
		}
	}
	if rows.Next() {
		t.Error("a third row")
	}
}

// TestArguments checks that arguments take their parameter's inferred
// type, as a PostgreSQL server converts a Bind message's values.
func TestArguments(t *testing.T) {
	db := open(t, ":memory:")
	mustExec(t, db, "CREATE TABLE a (id INT PRIMARY KEY, s TEXT, f DOUBLE PRECISION, b BYTEA, d DATE, ts TIMESTAMP, tz TIMESTAMPTZ, ok BOOLEAN)")
	east := time.FixedZone("east", 3*3600)
	at := time.Date(2024, 5, 6, 7, 8, 9, 0, east)
	mustExec(t, db, "INSERT INTO a VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
		"42", []byte("bytes as text"), 7, "raw", at, at, at, "yes")
	var (
		s     string
		f     float64
		b     []byte
		d     time.Time
		ts    time.Time
		tz    time.Time
		ok    bool
		idTxt string
	)
	err := db.QueryRow("SELECT s, f, b, d, ts, tz, ok, id::text FROM a WHERE id = $1", int16(42)).Scan(&s, &f, &b, &d, &ts, &tz, &ok, &idTxt)
	if err != nil {
		t.Fatal(err)
	}
	if s != "bytes as text" || f != 7 || string(b) != "raw" || !ok || idTxt != "42" {
		t.Errorf("got s=%q f=%v b=%q ok=%v id=%q", s, f, b, ok, idTxt)
	}
	if want := time.Date(2024, 5, 6, 0, 0, 0, 0, time.UTC); !d.Equal(want) {
		t.Errorf("date %v, want %v (the argument's wall-clock date)", d, want)
	}
	if want := time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC); !ts.Equal(want) {
		t.Errorf("timestamp %v, want %v (the argument's wall clock)", ts, want)
	}
	if !tz.Equal(at) || tz.Location() != time.UTC {
		t.Errorf("timestamptz %v, want the instant %v in UTC", tz, at)
	}

	for _, c := range []struct {
		arg  any
		code string
	}{
		{"forty-two", "22P02"},
		{int64(1) << 40, "22003"},
		{"\xff", "22021"},
	} {
		_, err := db.Exec("INSERT INTO a (id) VALUES ($1)", c.arg)
		if code(err) != c.code {
			t.Errorf("argument %q for an integer: %v (SQLSTATE %q), want %s", c.arg, err, code(err), c.code)
		}
	}
	if _, err := db.Exec("INSERT INTO a (id) VALUES ($1)", sql.Named("id", 1)); err == nil || !strings.Contains(err.Error(), "named") {
		t.Errorf("named argument: %v, want an error", err)
	}
	if _, err := db.Exec("INSERT INTO a (id, s) VALUES ($1, $2)", 1); code(err) != "08P01" {
		t.Errorf("too few arguments: %v, want 08P01", err)
	}
}

func TestPrepared(t *testing.T) {
	db := open(t, ":memory:")
	mustExec(t, db, "CREATE TABLE kv (k INT PRIMARY KEY, v TEXT)")
	ins, err := db.Prepare("INSERT INTO kv VALUES ($1, $2)")
	if err != nil {
		t.Fatal(err)
	}
	defer ins.Close()
	for i := range 10 {
		if _, err := ins.Exec(i, fmt.Sprint("v", i)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := ins.Exec(1); err == nil || !strings.Contains(err.Error(), "expected 2 arguments") {
		t.Errorf("one argument of two: %v", err)
	}
	get, err := db.Prepare("SELECT v FROM kv WHERE k = $1")
	if err != nil {
		t.Fatal(err)
	}
	defer get.Close()
	for _, k := range []int{3, 7} {
		var v string
		if err := get.QueryRow(k).Scan(&v); err != nil || v != fmt.Sprint("v", k) {
			t.Errorf("k=%d: %q, %v", k, v, err)
		}
	}
	// The plan is remade when the catalog changes under the statement.
	mustExec(t, db, "CREATE INDEX kv_v ON kv (v)")
	var v string
	if err := get.QueryRow(9).Scan(&v); err != nil || v != "v9" {
		t.Errorf("after CREATE INDEX: %q, %v", v, err)
	}

	if _, err := db.Prepare("SELECT * FROM missing"); code(err) != "42P01" {
		t.Errorf("prepare on a missing table: %v, want 42P01 at Prepare", err)
	}
	if _, err := db.Prepare("SELECT 1; SELECT 2"); code(err) != "42601" {
		t.Errorf("prepare of two statements: %v, want 42601", err)
	}
	if _, err := db.Query("SELECT 1; SELECT 2"); code(err) != "42601" {
		t.Errorf("query of two statements: %v, want 42601", err)
	}
}

// TestExecScript runs several statements in one Exec without arguments,
// each seeing what the one before it created.
func TestExecScript(t *testing.T) {
	db := open(t, ":memory:")
	res := mustExec(t, db, `CREATE TABLE s (x INT PRIMARY KEY);
		INSERT INTO s VALUES (1), (2);
		UPDATE s SET x = x * 10`)
	if n, _ := res.RowsAffected(); n != 2 {
		t.Errorf("RowsAffected = %d, want the last statement's 2", n)
	}
	if n := count(t, db, "SELECT sum(x) FROM s"); n != 30 {
		t.Errorf("sum = %d, want 30", n)
	}
	mustExec(t, db, "")
	rows, err := db.Query(" ; ")
	if err != nil {
		t.Fatalf("empty query: %v", err)
	}
	if cols, _ := rows.Columns(); len(cols) != 0 || rows.Next() {
		t.Errorf("empty query: columns %q, a row: %v", cols, rows.Err())
	}
	rows.Close()
	if _, err := db.Exec("SELECT $1"); code(err) != "08P01" {
		t.Errorf("a placeholder without an argument: %v, want 08P01", err)
	}
}

func TestTransactions(t *testing.T) {
	db := open(t, ":memory:")
	mustExec(t, db, "CREATE TABLE acct (id INT PRIMARY KEY, bal INT NOT NULL)")
	mustExec(t, db, "INSERT INTO acct VALUES (1, 100), (2, 0)")

	tx, err := db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	mustExec(t, tx, "UPDATE acct SET bal = bal - 30 WHERE id = 1")
	mustExec(t, tx, "UPDATE acct SET bal = bal + 30 WHERE id = 2")
	// Not visible outside the transaction before COMMIT.
	if n := count(t, db, "SELECT bal FROM acct WHERE id = 2"); n != 0 {
		t.Errorf("uncommitted write visible: %d", n)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	if n := count(t, db, "SELECT bal FROM acct WHERE id = 2"); n != 30 {
		t.Errorf("after commit: %d, want 30", n)
	}

	tx, err = db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	mustExec(t, tx, "UPDATE acct SET bal = 0")
	if err := tx.Rollback(); err != nil {
		t.Fatal(err)
	}
	if n := count(t, db, "SELECT sum(bal) FROM acct"); n != 100 {
		t.Errorf("after rollback: sum %d, want 100", n)
	}
	if err := tx.Commit(); !errors.Is(err, sql.ErrTxDone) {
		t.Errorf("commit after rollback: %v", err)
	}
}

// TestErrorAbortsTransaction: as in PostgreSQL, an error fails the
// transaction; later statements get 25P02 and COMMIT rolls back.
func TestErrorAbortsTransaction(t *testing.T) {
	db := open(t, ":memory:")
	mustExec(t, db, "CREATE TABLE e (id INT PRIMARY KEY)")
	tx, err := db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	mustExec(t, tx, "INSERT INTO e VALUES (1)")
	if _, err := tx.Exec("SELECT 1 / 0"); code(err) != "22012" {
		t.Fatalf("division by zero: %v", err)
	}
	if _, err := tx.Exec("INSERT INTO e VALUES (2)"); code(err) != "25P02" {
		t.Errorf("statement after the error: %v, want 25P02", err)
	}
	if err := tx.QueryRow("SELECT 1").Scan(new(int)); code(err) != "25P02" {
		t.Errorf("query after the error: %v, want 25P02", err)
	}
	// An error at Prepare fails the transaction too.
	tx2, err := db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx2.Prepare("SELECT nope FROM e"); code(err) != "42703" {
		t.Errorf("prepare: %v, want 42703", err)
	}
	if _, err := tx2.Exec("INSERT INTO e VALUES (3)"); code(err) != "25P02" {
		t.Errorf("after a failed prepare: %v, want 25P02", err)
	}
	if err := tx2.Rollback(); err != nil {
		t.Error(err)
	}

	if err := tx.Commit(); code(err) != "25P02" {
		t.Errorf("commit of the failed transaction: %v, want 25P02", err)
	}
	if n := count(t, db, "SELECT count(*) FROM e"); n != 0 {
		t.Errorf("%d rows committed, want 0", n)
	}
}

func TestUniqueViolation(t *testing.T) {
	db := open(t, ":memory:")
	mustExec(t, db, "CREATE TABLE u (id INT PRIMARY KEY, email TEXT)")
	mustExec(t, db, "CREATE UNIQUE INDEX u_email ON u (email)")
	mustExec(t, db, "INSERT INTO u VALUES (1, 'a@example.com')")
	_, err := db.Exec("INSERT INTO u VALUES ($1, $2)", 2, "a@example.com")
	var pe *pgerror.Error
	if !errors.As(err, &pe) {
		t.Fatalf("duplicate: %v (%T), want a *pgerror.Error", err, err)
	}
	if pe.Code != pgerror.UniqueViolation || pe.Constraint != "u_email" {
		t.Errorf("duplicate: code %s constraint %q (%v), want 23505 on u_email", pe.Code, pe.Constraint, err)
	}
	if _, err := db.Exec("INSERT INTO u VALUES (1, 'b@example.com')"); code(err) != "23505" {
		t.Errorf("duplicate primary key: %v, want 23505", err)
	}
}

func TestIsolationAndReadOnly(t *testing.T) {
	db := open(t, ":memory:")
	mustExec(t, db, "CREATE TABLE r (id INT PRIMARY KEY)")
	ctx := context.Background()
	for level, want := range map[sql.IsolationLevel]string{
		sql.LevelDefault:         "read committed",
		sql.LevelReadUncommitted: "read uncommitted",
		sql.LevelReadCommitted:   "read committed",
		sql.LevelRepeatableRead:  "repeatable read",
		sql.LevelSerializable:    "serializable",
	} {
		tx, err := db.BeginTx(ctx, &sql.TxOptions{Isolation: level})
		if err != nil {
			t.Fatalf("%v: %v", level, err)
		}
		var got string
		if err := tx.QueryRow("SHOW transaction_isolation").Scan(&got); err != nil || got != want {
			t.Errorf("%v: transaction_isolation %q, %v; want %q", level, got, err, want)
		}
		if err := tx.Commit(); err != nil {
			t.Error(err)
		}
	}
	for _, level := range []sql.IsolationLevel{sql.LevelSnapshot, sql.LevelLinearizable, sql.LevelWriteCommitted} {
		if _, err := db.BeginTx(ctx, &sql.TxOptions{Isolation: level}); err == nil {
			t.Errorf("%v: no error; PostgreSQL has no such level", level)
		}
	}
	tx, err := db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec("INSERT INTO r VALUES (1)"); code(err) != "25006" {
		t.Errorf("write in a read-only transaction: %v, want 25006", err)
	}
	_ = tx.Rollback()
}

// TestRowsWhileWriting reads a query's rows in a transaction while the
// same transaction writes, as portals allow over the wire.
func TestRowsWhileWriting(t *testing.T) {
	db := open(t, ":memory:")
	mustExec(t, db, "CREATE TABLE src (id INT PRIMARY KEY); CREATE TABLE dst (id INT PRIMARY KEY)")
	mustExec(t, db, "INSERT INTO src SELECT g FROM generate_series(1, 3000) g")
	tx, err := db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	rows, err := tx.Query("SELECT id FROM src ORDER BY id")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for rows.Next() {
		var id int
		if err := rows.Scan(&id); err != nil {
			t.Fatal(err)
		}
		mustExec(t, tx, "INSERT INTO dst VALUES ($1)", id*2)
		n++
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	if n != 3000 || count(t, db, "SELECT count(*) FROM dst") != 3000 || count(t, db, "SELECT max(id) FROM dst") != 6000 {
		t.Errorf("read %d rows; dst has %d", n, count(t, db, "SELECT count(*) FROM dst"))
	}
}

// TestBeginByExecNotPooled: a connection left in a transaction block that
// database/sql did not begin is not handed to the next user.
func TestBeginByExecNotPooled(t *testing.T) {
	db := open(t, ":memory:")
	db.SetMaxOpenConns(1)
	mustExec(t, db, "CREATE TABLE p (id INT PRIMARY KEY)")
	mustExec(t, db, "BEGIN")
	mustExec(t, db, "INSERT INTO p VALUES (1)")
	mustExec(t, db, "ROLLBACK") // no transaction here: the INSERT committed
	if n := count(t, db, "SELECT count(*) FROM p"); n != 1 {
		t.Errorf("%d rows, want 1: the INSERT ran inside the abandoned BEGIN", n)
	}
	// A *sql.Conn keeps its session for a whole block.
	ctx := context.Background()
	c, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"BEGIN", "INSERT INTO p VALUES (2)", "ROLLBACK"} {
		if _, err := c.ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	c.Close()
	if n := count(t, db, "SELECT count(*) FROM p"); n != 1 {
		t.Errorf("%d rows, want 1 after ROLLBACK on a *sql.Conn", n)
	}
}

func TestDataSourceNames(t *testing.T) {
	for _, dsn := range []string{"", "memory", "file:", "./data", ":memory:?bogus=1", ":memory:?sync=maybe"} {
		if db, err := sql.Open("kvsql", dsn); err == nil {
			db.Close()
			t.Errorf("sql.Open(%q): no error", dsn)
		}
	}
	db := open(t, ":memory:?sync=off")
	if err := db.Ping(); err != nil {
		t.Fatal(err)
	}
	if _, err := sql.Open("kvsql", ":memory:?database=nope"); err != nil {
		t.Fatal(err) // the database is checked on connect
	}
	bad := open(t, ":memory:?database=nope")
	if err := bad.Ping(); code(err) != "3D000" {
		t.Errorf("unknown database: %v, want 3D000", err)
	}
}

// TestMemoryIsolation: every ":memory:" handle is a store of its own.
func TestMemoryIsolation(t *testing.T) {
	a := open(t, ":memory:")
	b := open(t, ":memory:")
	mustExec(t, a, "CREATE TABLE only_a (x INT PRIMARY KEY)")
	mustExec(t, a, "INSERT INTO only_a VALUES (1)")
	if _, err := b.Exec("SELECT * FROM only_a"); code(err) != "42P01" {
		t.Errorf("b sees a's table: %v, want 42P01", err)
	}
	mustExec(t, b, "CREATE TABLE only_a (x INT PRIMARY KEY)")
	if n := count(t, b, "SELECT count(*) FROM only_a"); n != 0 {
		t.Errorf("b's table has %d rows, want 0", n)
	}
}

// TestFileReopen: a file store keeps its data across handles, and the
// last handle's Close releases the directory.
func TestFileReopen(t *testing.T) {
	dir := t.TempDir()
	db, err := sql.Open("kvsql", "file:"+dir)
	if err != nil {
		t.Fatal(err)
	}
	mustExec(t, db, "CREATE TABLE keep (id INT PRIMARY KEY, s TEXT)")
	mustExec(t, db, "INSERT INTO keep VALUES (1, 'one'), (2, 'two')")
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	db, err = sql.Open("kvsql", "file:"+dir)
	if err != nil {
		t.Fatal(err)
	}
	var s string
	if err := db.QueryRow("SELECT s FROM keep WHERE id = 2").Scan(&s); err != nil || s != "two" {
		t.Errorf("after reopen: %q, %v", s, err)
	}
	// A transaction open when its handle closes keeps the store open
	// until it ends.
	tx, err := db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	mustExec(t, tx, "INSERT INTO keep VALUES (3, 'three')")
	if err := tx.Commit(); err != nil {
		t.Fatalf("commit after the handle closed: %v", err)
	}
	db = open(t, "file:"+dir)
	if n := count(t, db, "SELECT count(*) FROM keep"); n != 3 {
		t.Errorf("%d rows after the second reopen, want 3", n)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	// Closed for good: the engine can open the directory itself.
	kdb, err := kvsql.Open(kvsql.Options{Dir: dir})
	if err != nil {
		t.Fatalf("directory still held after the last Close: %v", err)
	}
	kdb.Close()
}

// TestFileShared: handles on one directory share one store, however the
// directory is spelled, and it stays open until the last one closes.
func TestFileShared(t *testing.T) {
	dir := t.TempDir()
	a, err := sql.Open("kvsql", "file:"+dir)
	if err != nil {
		t.Fatal(err)
	}
	b, err := sql.Open("kvsql", "file:"+filepath.Join(dir, ".", "sub", ".."))
	if err != nil {
		t.Fatal(err)
	}
	mustExec(t, a, "CREATE TABLE shared (id INT PRIMARY KEY)")
	mustExec(t, b, "INSERT INTO shared VALUES (1)")
	if n := count(t, a, "SELECT count(*) FROM shared"); n != 1 {
		t.Errorf("a sees %d rows written through b, want 1", n)
	}
	// A row stream open on b outlives a's Close and b's own Close call
	// order: the store closes with the last reference.
	rows, err := b.Query("SELECT id FROM shared")
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	mustExec(t, b, "INSERT INTO shared VALUES (2)")
	if !rows.Next() {
		t.Fatalf("no row: %v", rows.Err())
	}
	rows.Close()
	if _, err := sql.Open("kvsql", "file:"+dir+"?sync=off"); err == nil || !strings.Contains(err.Error(), "sync") {
		t.Errorf("open with other options while open: %v, want an error", err)
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	c := open(t, "file:"+dir+"?sync=off") // no handle left: options are free again
	if n := count(t, c, "SELECT count(*) FROM shared"); n != 2 {
		t.Errorf("%d rows after reopening, want 2", n)
	}
}

// TestConcurrent drives one handle from several goroutines: inserts of
// distinct keys, reads, and increments of one counter row, whose final
// value shows that no increment was lost.
func TestConcurrent(t *testing.T) {
	db := open(t, "file:"+t.TempDir()+"?sync=off")
	db.SetMaxOpenConns(8)
	mustExec(t, db, "CREATE TABLE items (id INT PRIMARY KEY, worker INT NOT NULL)")
	mustExec(t, db, "CREATE TABLE counter (id INT PRIMARY KEY, n INT NOT NULL)")
	mustExec(t, db, "INSERT INTO counter VALUES (1, 0)")
	const workers, each = 8, 40
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ins, err := db.Prepare("INSERT INTO items VALUES ($1, $2)")
			if err != nil {
				errs <- err
				return
			}
			defer ins.Close()
			for i := range each {
				if _, err := ins.Exec(w*each+i, w); err != nil {
					errs <- fmt.Errorf("worker %d insert: %w", w, err)
					return
				}
				if _, err := db.Exec("UPDATE counter SET n = n + 1 WHERE id = 1"); err != nil {
					errs <- fmt.Errorf("worker %d increment: %w", w, err)
					return
				}
				var mine int
				if err := db.QueryRow("SELECT count(*) FROM items WHERE worker = $1", w).Scan(&mine); err != nil {
					errs <- err
					return
				}
				if mine != i+1 {
					errs <- fmt.Errorf("worker %d sees %d of its rows after %d inserts", w, mine, i+1)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if n := count(t, db, "SELECT count(*) FROM items"); n != workers*each {
		t.Errorf("%d items, want %d", n, workers*each)
	}
	if n := count(t, db, "SELECT n FROM counter"); n != workers*each {
		t.Errorf("counter %d, want %d", n, workers*each)
	}
}

// TestDatabaseOption: "?database=NAME" opens sessions on another
// database of the same store.
func TestDatabaseOption(t *testing.T) {
	dir := t.TempDir()
	main := open(t, "file:"+dir)
	mustExec(t, main, "CREATE DATABASE other")
	other := open(t, "file:"+dir+"?database=other")
	mustExec(t, other, "CREATE TABLE only_other (x INT PRIMARY KEY)")
	var name string
	if err := other.QueryRow("SELECT current_database()").Scan(&name); err != nil || name != "other" {
		t.Errorf("current_database() = %q, %v; want other", name, err)
	}
	if _, err := main.Exec("SELECT * FROM only_other"); code(err) != "42P01" {
		t.Errorf("the default database sees other's table: %v, want 42P01", err)
	}
}
