package wire

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgproto3"
)

// echoServerEnv, set in a child of the test binary, makes TestMain run
// echoServe instead of the tests: "conns/burn", e.g. "8/20µs".
const echoServerEnv = "KVSQL_WIRE_ECHO_SERVER"

func TestMain(m *testing.M) {
	if spec := os.Getenv(echoServerEnv); spec != "" {
		if err := echoMain(spec); err != nil {
			fmt.Fprintln(os.Stderr, "echo server:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// BenchmarkSchedLatency asks whether the median of kvsql's reads at 8
// clients is a property of Go's scheduler. A trivial pgproto3 server
// that burns a fixed CPU time per statement (about kvsql's server CPU per
// YCSB read) and answers one 1 KB DataRow, run in a separate process, is
// driven as the bench drives a server: 8 pgx connections, each a closed
// loop of a prepared statement (Bind, Describe, Execute, Sync; one write
// per answer), latency measured at the client. The same server code runs
// two ways:
//
//   - goroutines: one process serving the 8 connections, one goroutine
//     each (kvsql's model);
//   - processes: 8 processes of GOMAXPROCS=1, one connection each, still
//     reading through Go's netpoller;
//   - blocking: the same 8 processes reading and writing with blocking
//     system calls on the socket (PostgreSQL's model: a backend sleeps in
//     recv and the kernel wakes that process when its client writes).
//
// By Little's law the mean latency of a closed loop of 8 is 8 / ops/s
// whatever the scheduling: mean-µs and ops/s are reported with p50 and
// p99 so that the distributions compare at equal load. burn is the CPU
// time each statement uses in the server.
//
// What it showed on the 2-core machine (load 4-6, two alternated runs):
// goroutines had the highest throughput and the lowest p50 and p99 of the
// three (burn=0: 68,000 ops/s, p50 77-85 µs; processes 44,000-46,000,
// 108-114 µs; blocking 38,000-47,000, 63-93 µs with p99 twice
// goroutines'). So serving connections as goroutines does not by itself
// raise the median over a process per connection, and a trivial Go
// server's latency distribution at 8 clients has kvsql's shape (p50 about
// 0.7 of the mean).
func BenchmarkSchedLatency(b *testing.B) {
	for _, burn := range []time.Duration{0, 5 * time.Microsecond} {
		for _, mode := range []string{"goroutines", "processes", "blocking"} {
			b.Run(fmt.Sprintf("%s/burn=%s", mode, burn), func(b *testing.B) {
				addrs := startEchoServers(b, mode, 8, burn)
				driveEcho(b, addrs)
			})
		}
	}
}

// startEchoServers starts the echo server(s) as children of the test
// binary and returns the address each connection dials.
func startEchoServers(b *testing.B, mode string, clients int, burn time.Duration) []string {
	procs, conns := 1, clients
	if mode != "goroutines" {
		procs, conns = clients, 1
	}
	var addrs []string
	for range procs {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), fmt.Sprintf("%s=%d/%s/%s", echoServerEnv, conns, burn, mode))
		if mode != "goroutines" {
			cmd.Env = append(cmd.Env, "GOMAXPROCS=1")
		}
		out, err := cmd.StdoutPipe()
		if err != nil {
			b.Fatal(err)
		}
		cmd.Stderr = os.Stderr
		if err := cmd.Start(); err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
		line, err := bufio.NewReader(out).ReadString('\n')
		if err != nil {
			b.Fatalf("echo server did not start: %v", err)
		}
		for range conns {
			addrs = append(addrs, strings.TrimSpace(line))
		}
	}
	return addrs
}

// driveEcho runs b.N statements over one connection per address, each a
// closed loop, and reports the latency distribution.
func driveEcho(b *testing.B, addrs []string) {
	ctx := context.Background()
	conns := make([]*pgconn.PgConn, len(addrs))
	for i, a := range addrs {
		c, err := pgconn.Connect(ctx, "postgres://u@"+a+"/d?sslmode=disable")
		if err != nil {
			b.Fatal(err)
		}
		defer c.Close(ctx)
		if _, err := c.Prepare(ctx, "s", "SELECT $1::text", nil); err != nil {
			b.Fatal(err)
		}
		conns[i] = c
	}
	per := max(b.N/len(conns), 1)
	lats := make([][]time.Duration, len(conns))
	var wg sync.WaitGroup
	errs := make(chan error, len(conns))
	b.ResetTimer()
	start := time.Now()
	for i, c := range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			mine := make([]time.Duration, 0, per)
			key := [][]byte{[]byte("user0000000042")}
			for range per {
				t0 := time.Now()
				rr := c.ExecPrepared(ctx, "s", key, nil, nil)
				n := 0
				for rr.NextRow() {
					n += len(rr.Values()[0])
				}
				if _, err := rr.Close(); err != nil {
					errs <- err
					return
				}
				if n != echoRowBytes {
					errs <- fmt.Errorf("row of %d bytes, want %d", n, echoRowBytes)
					return
				}
				mine = append(mine, time.Since(t0))
			}
			lats[i] = mine
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	b.StopTimer()
	close(errs)
	if err := <-errs; err != nil {
		b.Fatal(err)
	}
	all := slices.Concat(lats...)
	slices.Sort(all)
	var sum time.Duration
	for _, d := range all {
		sum += d
	}
	us := func(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) }
	b.ReportMetric(us(all[len(all)/2]), "p50-µs")
	b.ReportMetric(us(all[len(all)*99/100]), "p99-µs")
	b.ReportMetric(us(sum/time.Duration(len(all))), "mean-µs")
	b.ReportMetric(float64(len(all))/elapsed.Seconds(), "ops/s")
}

// echoRowBytes is the size of the one value the echo server answers, a
// YCSB row's text.
const echoRowBytes = 1000

// echoMain runs the echo server of BenchmarkSchedLatency: it prints its
// address, serves conns connections, one goroutine each, and returns
// when they have all ended.
func echoMain(spec string) error {
	parts := strings.Split(spec, "/")
	if len(parts) != 3 {
		return fmt.Errorf("bad spec %q", spec)
	}
	n, burnText, mode := parts[0], parts[1], parts[2]
	conns, err := strconv.Atoi(n)
	if err != nil {
		return err
	}
	burn, err := time.ParseDuration(burnText)
	if err != nil {
		return err
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	fmt.Println(l.Addr().String())
	var wg sync.WaitGroup
	for range conns {
		nc, err := l.Accept()
		if err != nil {
			return err
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer nc.Close()
			var rw io.ReadWriter = nc
			if mode == "blocking" {
				f, err := nc.(*net.TCPConn).File()
				if err != nil {
					fmt.Fprintln(os.Stderr, "echo conn:", err)
					return
				}
				defer f.Close()
				fd := int(f.Fd())
				if err := syscall.SetNonblock(fd, false); err != nil {
					fmt.Fprintln(os.Stderr, "echo conn:", err)
					return
				}
				rw = blockingFD(fd)
			}
			if err := echoConn(rw, burn); err != nil && !errors.Is(err, net.ErrClosed) {
				fmt.Fprintln(os.Stderr, "echo conn:", err)
			}
		}()
	}
	wg.Wait()
	return nil
}

// echoConn answers one connection: trust authentication, then every
// extended-protocol message with its usual reply, the answer leaving in
// one write at Sync as kvsql's does.
func echoConn(rw io.ReadWriter, burn time.Duration) error {
	be := pgproto3.NewBackend(rw, rw)
	if _, err := be.ReceiveStartupMessage(); err != nil {
		return err
	}
	be.Send(&pgproto3.AuthenticationOk{})
	be.Send(&pgproto3.BackendKeyData{ProcessID: 1, SecretKey: []byte{0, 0, 0, 1}})
	be.Send(&pgproto3.ReadyForQuery{TxStatus: 'I'})
	if err := be.Flush(); err != nil {
		return err
	}
	row := &pgproto3.DataRow{Values: [][]byte{[]byte(strings.Repeat("x", echoRowBytes))}}
	desc := &pgproto3.RowDescription{Fields: []pgproto3.FieldDescription{{Name: []byte("text"), DataTypeOID: 25, DataTypeSize: -1, TypeModifier: -1}}}
	for {
		msg, err := be.Receive()
		if err != nil {
			return nil // the client went away
		}
		switch m := msg.(type) {
		case *pgproto3.Parse:
			be.Send(&pgproto3.ParseComplete{})
		case *pgproto3.Bind:
			be.Send(&pgproto3.BindComplete{})
		case *pgproto3.Describe:
			if m.ObjectType == 'S' {
				be.Send(&pgproto3.ParameterDescription{ParameterOIDs: []uint32{25}})
			}
			be.Send(desc)
		case *pgproto3.Execute:
			spin(burn)
			be.Send(row)
			be.Send(&pgproto3.CommandComplete{CommandTag: []byte("SELECT 1")})
		case *pgproto3.Sync:
			be.Send(&pgproto3.ReadyForQuery{TxStatus: 'I'})
			if err := be.Flush(); err != nil {
				return err
			}
		case *pgproto3.Terminate:
			return nil
		default:
			return fmt.Errorf("unexpected %T", msg)
		}
	}
}

// blockingFD reads and writes a socket with blocking system calls,
// bypassing Go's netpoller.
type blockingFD int

func (fd blockingFD) Read(p []byte) (int, error) {
	n, err := syscall.Read(int(fd), p)
	if n == 0 && err == nil {
		return 0, io.EOF
	}
	return max(n, 0), err
}

func (fd blockingFD) Write(p []byte) (int, error) {
	total := 0
	for total < len(p) {
		n, err := syscall.Write(int(fd), p[total:])
		if err != nil {
			return total, err
		}
		total += n
	}
	return total, nil
}

var spinSink int

// spin uses d of the calling thread's CPU time without blocking, as a
// statement's work does: time the thread spends preempted by the kernel
// does not count, so a busy machine stretches it as it stretches real
// work.
func spin(d time.Duration) {
	if d == 0 {
		return
	}
	end := threadCPU() + d
	for threadCPU() < end {
		for i := range 100 {
			spinSink += i
		}
	}
}

// threadCPU is the calling thread's CPU time (CLOCK_THREAD_CPUTIME_ID).
func threadCPU() time.Duration {
	var ts syscall.Timespec
	syscall.Syscall(syscall.SYS_CLOCK_GETTIME, 3, uintptr(unsafe.Pointer(&ts)), 0)
	return time.Duration(ts.Nano())
}
