package session_test

// Hostile clients against a server over the real engine: random bytes, a
// length field of 2^31, truncated messages, a client that disconnects in
// the middle of a result, 200 concurrent connections and a client that
// never reads. After each, the server must still serve a new client
// correctly, and committed data must be intact.

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgproto3"
	"github.com/kvsql/kvsql/internal/testkit"
	"github.com/kvsql/kvsql/wire"
)

// hostileServer is a server with short timeouts and a table of 300 rows
// whose cross join with itself is a 90,000-row result.
func hostileServer(t *testing.T) *testkit.Server {
	t.Helper()
	ts := testkit.StartServer(t, nil, func(c *wire.Config) {
		c.StartupTimeout = time.Second
		c.WriteTimeout = time.Second
		c.MaxConnections = 250
		c.MaxMessageSize = 1 << 20
	})
	conn := ts.Connect(t, pgx.QueryExecModeCacheStatement)
	mustExec(t, conn, `CREATE TABLE h (id int PRIMARY KEY, pad text)`)
	rows := make([][]any, 300)
	for i := range rows {
		rows[i] = []any{int32(i), "padding padding padding padding padding padding"}
	}
	if _, err := conn.CopyFrom(context.Background(), pgx.Identifier{"h"}, []string{"id", "pad"}, pgx.CopyFromRows(rows)); err != nil {
		t.Fatal(err)
	}
	return ts
}

// checkData asserts h is intact and the server answers a new client.
func checkData(t *testing.T, ts *testkit.Server) {
	t.Helper()
	checkAlive(t, ts)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, ts.URL())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var n, sum int64
	if err := conn.QueryRow(ctx, `SELECT count(*), sum(id) FROM h`).Scan(&n, &sum); err != nil || n != 300 || sum != 299*300/2 {
		t.Fatalf("table h after hostile client: count %d sum %d, %v", n, sum, err)
	}
}

func dial(t *testing.T, ts *testkit.Server) net.Conn {
	t.Helper()
	c, err := net.DialTimeout("tcp", ts.Addr.String(), 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// drain reads from c until it is closed or quiet for d, returning what it
// read (bounded to 1 MiB).
func drain(c net.Conn, d time.Duration) []byte {
	var out []byte
	buf := make([]byte, 4096)
	for len(out) < 1<<20 {
		_ = c.SetReadDeadline(time.Now().Add(d))
		n, err := c.Read(buf)
		out = append(out, buf[:n]...)
		if err != nil {
			break
		}
	}
	return out
}

// startup performs a startup handshake on a raw connection and returns a
// frontend positioned after the first ReadyForQuery.
func startup(t *testing.T, c net.Conn) *pgproto3.Frontend {
	t.Helper()
	fe := pgproto3.NewFrontend(c, c)
	fe.Send(&pgproto3.StartupMessage{ProtocolVersion: pgproto3.ProtocolVersion30,
		Parameters: map[string]string{"user": "tester", "database": "kvsql"}})
	if err := fe.Flush(); err != nil {
		t.Fatal(err)
	}
	_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
	for {
		msg, err := fe.Receive()
		if err != nil {
			t.Fatalf("startup: %v", err)
		}
		if _, ok := msg.(*pgproto3.ReadyForQuery); ok {
			_ = c.SetReadDeadline(time.Time{})
			return fe
		}
	}
}

func TestHostileRandomBytes(t *testing.T) {
	ts := hostileServer(t)
	seed := *seedFlag
	if seed == 0 {
		seed = time.Now().UnixNano()
	}
	t.Logf("seed %d (rerun with -seed %d)", seed, seed)
	rng := rand.New(rand.NewPCG(uint64(seed), 0))
	for i := 0; i < 20; i++ {
		junk := make([]byte, 1+rng.IntN(4096))
		for k := range junk {
			junk[k] = byte(rng.UintN(256))
		}
		c := dial(t, ts)
		if i%2 == 1 {
			// After a valid startup: junk where a message should be.
			startup(t, c)
		}
		_, _ = c.Write(junk)
		drain(c, 300*time.Millisecond)
		_ = c.Close()
	}
	checkData(t, ts)
}

func TestHostileHugeLength(t *testing.T) {
	ts := hostileServer(t)
	// A startup packet claiming 2^31 bytes.
	c := dial(t, ts)
	var hdr [8]byte
	binary.BigEndian.PutUint32(hdr[0:], 1<<31)
	binary.BigEndian.PutUint32(hdr[4:], 196608)
	_, _ = c.Write(hdr[:])
	start := time.Now()
	drain(c, 3*time.Second)
	if d := time.Since(start); d > 2500*time.Millisecond {
		t.Errorf("server kept a startup claiming 2^31 bytes open for %v", d)
	}
	_ = c.Close()
	// A Query message claiming 2^31-1 bytes after startup: refused with an
	// error, connection closed.
	c = dial(t, ts)
	fe := startup(t, c)
	msg := []byte{'Q', 0x7f, 0xff, 0xff, 0xff}
	_, _ = c.Write(msg)
	_ = c.SetReadDeadline(time.Now().Add(3 * time.Second))
	gotError := false
	for {
		m, err := fe.Receive()
		if err != nil {
			break
		}
		if e, ok := m.(*pgproto3.ErrorResponse); ok {
			gotError = true
			if e.Code != "54000" && e.Code != "08P01" {
				t.Errorf("oversized message: SQLSTATE %s (%s), want 54000 or 08P01", e.Code, e.Message)
			}
		}
	}
	if !gotError {
		t.Error("oversized message: no ErrorResponse before the connection closed")
	}
	_ = c.Close()
	checkData(t, ts)
}

func TestHostileTruncated(t *testing.T) {
	ts := hostileServer(t)
	// Startup packet cut short, then silence: the startup timeout (1s)
	// must close it.
	c := dial(t, ts)
	var hdr [8]byte
	binary.BigEndian.PutUint32(hdr[0:], 100)
	binary.BigEndian.PutUint32(hdr[4:], 196608)
	_, _ = c.Write(hdr[:])
	start := time.Now()
	drain(c, 4*time.Second)
	if d := time.Since(start); d > 3500*time.Millisecond {
		t.Errorf("truncated startup held open for %v despite a 1s startup timeout", d)
	}
	_ = c.Close()
	// Truncated messages after startup, the client then hanging up.
	for _, msg := range [][]byte{
		{'Q', 0, 0, 0, 50, 'S', 'E', 'L'},    // Query cut short
		{'P', 0, 0, 0, 20, 0},                // Parse cut short
		{'B', 0, 0},                          // length itself cut short
		{'Q', 0, 0, 0, 3},                    // length below 4
		{'Q', 0, 0, 0, 9, 'S', 'E', 'L', 0},  // body shorter than its string claims
		{'X', 0, 0, 0, 4, 'Q', 0, 0, 0, 200}, // Terminate followed by garbage
	} {
		c := dial(t, ts)
		startup(t, c)
		_, _ = c.Write(msg)
		drain(c, 200*time.Millisecond)
		_ = c.Close()
	}
	checkData(t, ts)
}

func TestHostileDisconnectMidResult(t *testing.T) {
	ts := hostileServer(t)
	for _, m := range modes[:2] {
		conn := ts.Connect(t, m.mode)
		rows, err := conn.Query(context.Background(), `SELECT a.id, b.id, a.pad FROM h a, h b`)
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < 10 && rows.Next(); i++ {
		}
		// Hang up without reading the rest (~6 MB) or closing politely.
		_ = conn.PgConn().Conn().Close()
		rows.Close()
	}
	// And a raw client that sends the query and hangs up at once.
	c := dial(t, ts)
	fe := startup(t, c)
	fe.Send(&pgproto3.Query{String: `SELECT a.id, b.id, a.pad FROM h a, h b`})
	_ = fe.Flush()
	_ = c.Close()
	checkData(t, ts)
}

func TestHostileManyConnections(t *testing.T) {
	ts := hostileServer(t)
	const n = 200
	var wg sync.WaitGroup
	errs := make(chan error, n)
	ready := make(chan struct{})
	var connected sync.WaitGroup
	connected.Add(n)
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			conn, err := pgx.Connect(ctx, ts.URL())
			connected.Done()
			if err != nil {
				errs <- err
				return
			}
			defer conn.Close(context.Background())
			<-ready // all 200 are open at once
			var got int64
			if err := conn.QueryRow(ctx, `SELECT sum(id) + $1::int8 FROM h WHERE id < 10`, i).Scan(&got); err != nil {
				errs <- err
			} else if got != int64(45+i) {
				errs <- fmt.Errorf("client %d: got %d, want %d", i, got, 45+i)
			}
		}(i)
	}
	connected.Wait()
	close(ready)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	checkData(t, ts)
}

func TestHostileSlowReader(t *testing.T) {
	ts := hostileServer(t)
	c := dial(t, ts)
	defer c.Close()
	fe := startup(t, c)
	// Ask for a ~6 MB result and never read it: the server's writes block
	// once the socket buffers fill, and its 1s write timeout must drop us.
	fe.Send(&pgproto3.Query{String: `SELECT a.id, b.id, a.pad, b.pad FROM h a, h b`})
	if err := fe.Flush(); err != nil {
		t.Fatal(err)
	}
	// Meanwhile other clients are served.
	time.Sleep(300 * time.Millisecond)
	checkData(t, ts)
	// After the write timeout the server has closed the connection:
	// reading now drains what the socket buffers held and ends (EOF or
	// reset) without the result's final ReadyForQuery.
	time.Sleep(1500 * time.Millisecond)
	_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
	var tail bytes.Buffer
	n, err := io.Copy(&tail, c)
	if ne, ok := err.(net.Error); ok && ne.Timeout() {
		t.Errorf("connection still open 5s after the write timeout (read %d bytes)", n)
	}
	if b := tail.Bytes(); bytes.HasSuffix(b, []byte{'Z', 0, 0, 0, 5, 'I'}) {
		t.Errorf("the whole result (%d bytes) was delivered: the slow client was not dropped", n)
	}
	t.Logf("slow client dropped after %d buffered bytes", n)
	checkData(t, ts)
}
