package wire

import (
	"context"
	"encoding/binary"
	"flag"
	"io"
	"math/rand"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgproto3"
)

var seed = flag.Int64("seed", 0, "seed for randomized tests (0 = time-based)")

func testSeed(t *testing.T) int64 {
	s := *seed
	if s == 0 {
		s = time.Now().UnixNano()
	}
	t.Logf("seed %d (rerun with -seed %d)", s, s)
	return s
}

// rawStartup dials and completes a trust startup with pgproto3's frontend.
func rawStartup(t *testing.T, addr string) (net.Conn, *pgproto3.Frontend) {
	t.Helper()
	nc, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	fe := pgproto3.NewFrontend(nc, nc)
	fe.Send(&pgproto3.StartupMessage{ProtocolVersion: pgproto3.ProtocolVersionNumber, Parameters: map[string]string{"user": "raw"}})
	if err := fe.Flush(); err != nil {
		t.Fatal(err)
	}
	untilReady(t, fe)
	return nc, fe
}

// untilReady collects message names (typeString) up to ReadyForQuery.
func untilReady(t *testing.T, fe *pgproto3.Frontend) []string {
	t.Helper()
	var got []string
	for {
		m, err := fe.Receive()
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, typeString(m))
		if _, ok := m.(*pgproto3.ReadyForQuery); ok {
			return got
		}
	}
}

func typeString(m any) string {
	switch m := m.(type) {
	case *pgproto3.PortalSuspended:
		return "PortalSuspended"
	case *pgproto3.DataRow:
		return "DataRow"
	case *pgproto3.CommandComplete:
		return "CommandComplete"
	case *pgproto3.ReadyForQuery:
		return "ReadyForQuery"
	case *pgproto3.ErrorResponse:
		return "ErrorResponse:" + m.Code
	case *pgproto3.ParseComplete:
		return "ParseComplete"
	case *pgproto3.BindComplete:
		return "BindComplete"
	case *pgproto3.ParameterDescription:
		return "ParameterDescription"
	case *pgproto3.RowDescription:
		return "RowDescription"
	case *pgproto3.NoData:
		return "NoData"
	case *pgproto3.EmptyQueryResponse:
		return "EmptyQueryResponse"
	case *pgproto3.CloseComplete:
		return "CloseComplete"
	}
	return "other"
}

func TestExtendedProtocolFlow(t *testing.T) {
	_, _, addr := startServer(t, Config{})
	nc, fe := rawStartup(t, addr)
	defer nc.Close()
	// Row limit: suspension and resumption of the same Result.
	fe.SendParse(&pgproto3.Parse{Name: "s1", Query: "gen 5"})
	fe.SendDescribe(&pgproto3.Describe{ObjectType: 'S', Name: "s1"})
	fe.SendBind(&pgproto3.Bind{PreparedStatement: "s1", ResultFormatCodes: []int16{1}})
	fe.SendExecute(&pgproto3.Execute{MaxRows: 2})
	fe.SendExecute(&pgproto3.Execute{MaxRows: 2})
	fe.SendExecute(&pgproto3.Execute{MaxRows: 2})
	fe.SendSync(&pgproto3.Sync{})
	fe.Flush()
	got := strings.Join(untilReady(t, fe), " ")
	want := "ParseComplete ParameterDescription RowDescription BindComplete DataRow DataRow PortalSuspended DataRow DataRow PortalSuspended DataRow CommandComplete ReadyForQuery"
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	// Duplicate name → 42P05, then everything until Sync is skipped.
	fe.SendParse(&pgproto3.Parse{Name: "s1", Query: "gen 1"})
	fe.SendBind(&pgproto3.Bind{PreparedStatement: "s1"})
	fe.SendExecute(&pgproto3.Execute{})
	fe.SendSync(&pgproto3.Sync{})
	fe.Flush()
	if got := strings.Join(untilReady(t, fe), " "); got != "ErrorResponse:42P05 ReadyForQuery" {
		t.Errorf("duplicate: %s", got)
	}
	// Wrong parameter count, unknown statement, empty query, Close.
	fe.SendBind(&pgproto3.Bind{PreparedStatement: "nope"})
	fe.SendSync(&pgproto3.Sync{})
	fe.SendParse(&pgproto3.Parse{Query: ""})
	fe.SendBind(&pgproto3.Bind{})
	fe.SendDescribe(&pgproto3.Describe{ObjectType: 'P'})
	fe.SendExecute(&pgproto3.Execute{})
	fe.SendClose(&pgproto3.Close{ObjectType: 'S', Name: "s1"})
	fe.SendSync(&pgproto3.Sync{})
	fe.Flush()
	if got := strings.Join(untilReady(t, fe), " "); got != "ErrorResponse:26000 ReadyForQuery" {
		t.Errorf("unknown statement: %s", got)
	}
	if got := strings.Join(untilReady(t, fe), " "); got != "ParseComplete BindComplete NoData EmptyQueryResponse CloseComplete ReadyForQuery" {
		t.Errorf("empty query: %s", got)
	}
	fe.SendParse(&pgproto3.Parse{Name: "p", Query: "params int4"})
	fe.SendBind(&pgproto3.Bind{PreparedStatement: "p", Parameters: [][]byte{[]byte("1"), []byte("2")}})
	fe.SendSync(&pgproto3.Sync{})
	fe.SendBind(&pgproto3.Bind{PreparedStatement: "p", Parameters: [][]byte{[]byte("x")}})
	fe.SendSync(&pgproto3.Sync{})
	fe.Flush()
	if got := strings.Join(untilReady(t, fe), " "); got != "ParseComplete ErrorResponse:08P01 ReadyForQuery" {
		t.Errorf("param count: %s", got)
	}
	if got := strings.Join(untilReady(t, fe), " "); got != "ErrorResponse:22P02 ReadyForQuery" {
		t.Errorf("bad param: %s", got)
	}
}

func TestCancellation(t *testing.T) {
	_, _, addr := startServer(t, Config{})
	c := connect(t, addr)
	// pgx sends a CancelRequest when the context ends.
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	start := time.Now()
	_, err := c.Exec(ctx, "sleep")
	cancel()
	if time.Since(start) > 3*time.Second {
		t.Errorf("cancel took %v", time.Since(start))
	}
	if err == nil {
		t.Fatal("sleep was not cancelled")
	}
	// The connection may be closed by pgx after a context cancel; use a new one.
	c2 := connect(t, addr)
	bg := context.Background()
	// A wrong key does nothing; the statement timeout then ends the sleep.
	if _, err := c2.Exec(bg, "set statement_timeout 300"); err != nil {
		t.Fatal(err)
	}
	pid := c2.PgConn().PID()
	go func() {
		time.Sleep(50 * time.Millisecond)
		nc, err := net.Dial("tcp", addr)
		if err != nil {
			return
		}
		defer nc.Close()
		var b [16]byte
		binary.BigEndian.PutUint32(b[0:], 16)
		binary.BigEndian.PutUint32(b[4:], 80877102)
		binary.BigEndian.PutUint32(b[8:], pid)
		binary.BigEndian.PutUint32(b[12:], 12345) // wrong secret
		nc.Write(b[:])
	}()
	start = time.Now()
	_, err = c2.Exec(bg, "sleep")
	if codeOf(err) != "57014" || !strings.Contains(err.Error(), "statement timeout") {
		t.Errorf("got %v, want 57014 statement timeout", err)
	} else if d := time.Since(start); d < 250*time.Millisecond {
		t.Errorf("wrong-key cancel seems to have cancelled (after %v)", d)
	}
	// A right key cancels with "user request".
	if _, err := c2.Exec(bg, "set statement_timeout 0"); err != nil {
		t.Fatal(err)
	}
	go func() {
		time.Sleep(50 * time.Millisecond)
		ctx, cancel := context.WithTimeout(bg, 2*time.Second)
		defer cancel()
		c2.PgConn().CancelRequest(ctx)
	}()
	_, err = c2.Exec(bg, "sleep")
	if codeOf(err) != "57014" || !strings.Contains(err.Error(), "user request") {
		t.Errorf("got %v, want 57014 user request", err)
	}
	checkAlive(t, addr)
}

func TestHostileClients(t *testing.T) {
	_, _, addr := startServer(t, Config{MaxMessageSize: 1 << 20, StartupTimeout: time.Second, WriteTimeout: 500 * time.Millisecond})
	rng := rand.New(rand.NewSource(testSeed(t)))
	send := func(name string, data []byte) {
		nc, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		nc.Write(data)
		nc.SetReadDeadline(time.Now().Add(2 * time.Second))
		io.Copy(io.Discard, nc) // until the server closes (or the deadline)
		nc.Close()
		checkAlive(t, addr)
	}
	for i := 0; i < 20; i++ {
		junk := make([]byte, rng.Intn(200))
		rng.Read(junk)
		send("random", junk)
	}
	send("huge startup length", []byte{0x80, 0, 0, 0, 0, 3, 0, 0})
	send("truncated startup", []byte{0, 0, 0, 40, 0, 3, 0, 0, 'u'})

	// After startup: a 2^31 length, a too-big message, a truncated one.
	for _, tc := range []struct {
		name string
		data []byte
		code string
	}{
		{"length 2^31", []byte{'Q', 0x80, 0, 0, 0}, "08P01"},
		{"too large", []byte{'Q', 0x10, 0, 0, 0}, "54000"},
		{"length 2", []byte{'Q', 0, 0, 0, 2}, "08P01"},
		{"unknown type", []byte{'z', 0, 0, 0, 4}, "08P01"},
		{"truncated", []byte{'Q', 0, 0, 0, 100, 's'}, ""},
	} {
		nc, fe := rawStartup(t, addr)
		nc.Write(tc.data)
		if tc.code == "" {
			nc.Close()
		} else {
			nc.SetReadDeadline(time.Now().Add(2 * time.Second))
			m, err := fe.Receive()
			er, ok := m.(*pgproto3.ErrorResponse)
			if err != nil || !ok || er.Code != tc.code || er.Severity != "FATAL" {
				t.Errorf("%s: got %#v %v, want FATAL %s", tc.name, m, err, tc.code)
			}
			nc.Close()
		}
		checkAlive(t, addr)
	}

	// A client that disconnects in the middle of a large result.
	nc, fe := rawStartup(t, addr)
	fe.Send(&pgproto3.Query{String: "gen 200000"})
	fe.Flush()
	fe.Receive()
	nc.Close()
	checkAlive(t, addr)

	// A client that never reads a large result must not block others; the
	// write timeout then disconnects it.
	slow, fe2 := rawStartup(t, addr)
	fe2.Send(&pgproto3.Query{String: "gen 2000000"})
	fe2.Flush()
	start := time.Now()
	checkAlive(t, addr)
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("other clients blocked for %v by a slow one", d)
	}
	slow.Close()
}

func TestManyConnections(t *testing.T) {
	_, _, addr := startServer(t, Config{MaxConnections: 250})
	var wg sync.WaitGroup
	errs := make(chan error, 200)
	for i := 0; i < 200; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			c, err := pgx.Connect(ctx, connString(addr, "u", ""))
			if err != nil {
				errs <- err
				return
			}
			defer c.Close(ctx)
			var n int64
			rows, err := c.Query(ctx, "gen 100")
			if err != nil {
				errs <- err
				return
			}
			for rows.Next() {
				rows.Scan(&n)
			}
			if rows.Err() != nil || n != 99 {
				errs <- rows.Err()
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	checkAlive(t, addr)
}

func TestConnectionLimit(t *testing.T) {
	_, _, addr := startServer(t, Config{MaxConnections: 2})
	connect(t, addr)
	connect(t, addr)
	_, err := pgx.Connect(context.Background(), connString(addr, "alice", ""))
	if codeOf(err) != "53300" {
		t.Errorf("got %v, want 53300", err)
	}
}

func TestShutdownEndsIdleConnections(t *testing.T) {
	srv, _, addr := startServer(t, Config{})
	c := connect(t, addr)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	if err := srv.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Exec(context.Background(), "gen 1"); err == nil {
		t.Error("connection still usable after Shutdown")
	}
	if _, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
		t.Error("still accepting after Shutdown")
	}
}
