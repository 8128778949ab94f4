package wire

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	_ "github.com/jackc/pgx/v5/stdlib"
	_ "github.com/lib/pq"
)

// startServer runs a server with the fake backend on 127.0.0.1:0 and shuts
// it down at the end of the test.
func startServer(t testing.TB, cfg Config) (*Server, *fakeBackend, string) {
	t.Helper()
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	cfg.Addr = "127.0.0.1:0"
	fb := &fakeBackend{}
	srv, err := NewServer(cfg, fb)
	if err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(l) }()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := srv.Shutdown(ctx); err != nil {
			t.Errorf("shutdown: %v", err)
		}
		if err := <-done; !errors.Is(err, ErrServerClosed) {
			t.Errorf("Serve returned %v", err)
		}
	})
	return srv, fb, l.Addr().String()
}

func connString(addr, user, extra string) string {
	host, port, _ := net.SplitHostPort(addr)
	return fmt.Sprintf("postgres://%s:secret@%s:%s/db?sslmode=disable%s", user, host, port, extra)
}

func connect(t testing.TB, addr string) *pgx.Conn {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c, err := pgx.Connect(ctx, connString(addr, "alice", ""))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close(context.Background()) })
	return c
}

// checkAlive asserts that a fresh client gets a correct answer.
func checkAlive(t testing.TB, addr string) {
	t.Helper()
	c := connect(t, addr)
	var n int64
	if err := c.QueryRow(context.Background(), "gen 5").Scan(&n); err != nil || n != 0 {
		t.Fatalf("server not answering correctly: n=%d err=%v", n, err)
	}
	c.Close(context.Background())
}

func codeOf(err error) string {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Code
	}
	return ""
}

func TestSelectSimpleAndExtended(t *testing.T) {
	_, _, addr := startServer(t, Config{})
	c := connect(t, addr)
	ctx := context.Background()
	want := "1 one 1.5 true|2 two -0.25 false|3 <nil> 1e+20 <nil>"
	for _, mode := range []pgx.QueryExecMode{pgx.QueryExecModeSimpleProtocol, pgx.QueryExecModeCacheStatement, pgx.QueryExecModeExec, pgx.QueryExecModeDescribeExec} {
		rows, err := c.Query(ctx, "select * from t", mode)
		if err != nil {
			t.Fatal(mode, err)
		}
		var got []string
		for rows.Next() {
			var id int64
			var name *string
			var f float64
			var ok *bool
			if err := rows.Scan(&id, &name, &f, &ok); err != nil {
				t.Fatal(mode, err)
			}
			s := fmt.Sprint(id, " ")
			if name == nil {
				s += "<nil>"
			} else {
				s += *name
			}
			s += fmt.Sprint(" ", f, " ")
			if ok == nil {
				s += "<nil>"
			} else {
				s += fmt.Sprint(*ok)
			}
			got = append(got, s)
		}
		if err := rows.Err(); err != nil {
			t.Fatal(mode, err)
		}
		if g := strings.Join(got, "|"); g != want {
			t.Errorf("%v: got %q want %q", mode, g, want)
		}
		if tag := rows.CommandTag().String(); tag != "SELECT 3" {
			t.Errorf("%v: tag %q", mode, tag)
		}
		fds := rows.FieldDescriptions()
		if len(fds) != 4 || fds[0].DataTypeOID != 20 || fds[1].DataTypeOID != 1043 || fds[1].TypeModifier != 24 || fds[0].TableOID != 16384 {
			t.Errorf("%v: field descriptions %+v", mode, fds)
		}
	}
}

func TestParamsRoundTrip(t *testing.T) {
	_, _, addr := startServer(t, Config{})
	c := connect(t, addr)
	ctx := context.Background()
	ts := time.Date(2024, 2, 29, 13, 14, 15, 123456000, time.UTC)
	date := time.Date(1999, 12, 31, 0, 0, 0, 0, time.UTC)
	for _, mode := range []pgx.QueryExecMode{pgx.QueryExecModeCacheStatement, pgx.QueryExecModeExec} {
		var (
			b    bool
			i2   int16
			i4   int32
			i8   int64
			f4   float32
			f8   float64
			num  float64
			txt  string
			byt  []byte
			d    time.Time
			tsv  time.Time
			tstz time.Time
		)
		err := c.QueryRow(ctx, "params bool int2 int4 int8 float4 float8 numeric text bytea date timestamp timestamptz", mode,
			true, int16(-7), int32(1<<30), int64(-1<<60), float32(1.25), 3.141592653589793, 12345.678, "héllo\tworld", []byte{0, 1, 255}, date, ts, ts).
			Scan(&b, &i2, &i4, &i8, &f4, &f8, &num, &txt, &byt, &d, &tsv, &tstz)
		if err != nil {
			t.Fatalf("%v: %v", mode, err)
		}
		if !b || i2 != -7 || i4 != 1<<30 || i8 != -1<<60 || f4 != 1.25 || f8 != 3.141592653589793 || num != 12345.678 ||
			txt != "héllo\tworld" || string(byt) != "\x00\x01\xff" || !d.Equal(date) || !tsv.Equal(ts) || !tstz.Equal(ts) {
			t.Errorf("%v: got %v %v %v %v %v %v %v %q %x %v %v %v", mode, b, i2, i4, i8, f4, f8, num, txt, byt, d, tsv, tstz)
		}
	}
}

func TestErrorsAndTxnStatus(t *testing.T) {
	_, _, addr := startServer(t, Config{})
	c := connect(t, addr)
	ctx := context.Background()
	_, err := c.Exec(ctx, "nonsense")
	if codeOf(err) != "42601" {
		t.Fatalf("got %v, want 42601", err)
	}
	// A failing statement in a multi-statement query skips the rest.
	_, err = c.Exec(ctx, "begin; fail; set a b")
	if codeOf(err) != "22012" {
		t.Fatalf("got %v, want 22012", err)
	}
	if s := c.PgConn().TxStatus(); s != 'E' {
		t.Errorf("txn status %c, want E", s)
	}
	if _, err := c.Exec(ctx, "commit"); err != nil {
		t.Fatal(err)
	}
	if s := c.PgConn().TxStatus(); s != 'I' {
		t.Errorf("txn status %c, want I", s)
	}
	if _, err := c.Exec(ctx, "set application_name myapp"); err != nil {
		t.Fatal(err)
	}
	if v := c.PgConn().ParameterStatus("application_name"); v != "myapp" {
		t.Errorf("application_name = %q", v)
	}
	if v := c.PgConn().ParameterStatus("server_version"); v != DefaultServerVersion {
		t.Errorf("server_version = %q", v)
	}
	// Empty query.
	res := c.PgConn().Exec(ctx, " ; ")
	if _, err := res.ReadAll(); err != nil {
		t.Fatal(err)
	}
	// Unknown database is FATAL at startup.
	_, err = pgx.Connect(ctx, strings.Replace(connString(addr, "alice", ""), "/db?", "/nodb?", 1))
	if codeOf(err) != "3D000" {
		t.Errorf("got %v, want 3D000", err)
	}
}

func TestPanicIsContained(t *testing.T) {
	_, _, addr := startServer(t, Config{})
	c := connect(t, addr)
	ctx := context.Background()
	for _, q := range []string{"panic", "panicrows"} {
		_, err := c.Exec(ctx, q)
		if codeOf(err) != "XX000" {
			t.Fatalf("%s: got %v, want XX000", q, err)
		}
		var n int64
		if err := c.QueryRow(ctx, "gen 3").Scan(&n); err != nil {
			t.Fatalf("after %s: %v", q, err)
		}
	}
	checkAlive(t, addr)
}

func TestDatabaseSQL(t *testing.T) {
	_, _, addr := startServer(t, Config{})
	for _, driver := range []string{"pgx", "postgres"} {
		db, err := sql.Open(driver, connString(addr, "bob", ""))
		if err != nil {
			t.Fatal(err)
		}
		var sum, count int64
		rows, err := db.Query("select * from t")
		if err != nil {
			t.Fatal(driver, err)
		}
		for rows.Next() {
			var id int64
			var name sql.NullString
			var f float64
			var ok sql.NullBool
			if err := rows.Scan(&id, &name, &f, &ok); err != nil {
				t.Fatal(driver, err)
			}
			sum += id
			count++
		}
		if rows.Err() != nil || sum != 6 || count != 3 {
			t.Errorf("%s: sum %d count %d err %v", driver, sum, count, rows.Err())
		}
		var s string
		var i int64
		if err := db.QueryRow("params text int8", "x", 42).Scan(&s, &i); err != nil || s != "x" || i != 42 {
			t.Errorf("%s: params: %q %d %v", driver, s, i, err)
		}
		stmt, err := db.Prepare("params int4")
		if err != nil {
			t.Fatal(driver, err)
		}
		for k := int64(0); k < 5; k++ {
			if err := stmt.QueryRow(k).Scan(&i); err != nil || i != k {
				t.Errorf("%s: prepared: %d %v", driver, i, err)
			}
		}
		stmt.Close()
		db.Close()
	}
}
