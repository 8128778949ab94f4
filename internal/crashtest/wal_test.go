package crashtest

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/jackc/pgx/v5"
	"github.com/kvsql/kvsql/internal/testkit"
)

// TestWALDamage writes 1,000 acknowledged rows through a real server,
// stops it (SIGTERM, a clean shutdown, or SIGKILL), then damages a copy
// of the data directory's largest write-ahead log (the one the rows were
// written to) at several offsets (a
// flipped byte, a truncation) and restarts on the copy. Every restart
// either has all 1,000 rows or refuses to start naming the damaged log,
// and `kvsql check` agrees: acknowledged commits are never lost silently.
//
// After SIGKILL a truncation is not tested: it cannot be told from a torn
// write (docs/operations.md).
func TestWALDamage(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and restarts the server many times")
	}
	const rows = 1000
	for _, stop := range []string{"SIGTERM", "SIGKILL"} {
		t.Run(stop, func(t *testing.T) {
			srv := newServer(t)
			srv.start(t)
			ctx := context.Background()
			c, err := pgx.Connect(ctx, srv.url())
			if err != nil {
				t.Fatal(err)
			}
			if _, err := c.Exec(ctx, "CREATE TABLE t (id INT PRIMARY KEY, v TEXT)"); err != nil {
				t.Fatal(err)
			}
			for i := range rows {
				if _, err := c.Exec(ctx, "INSERT INTO t VALUES ($1, $2)", i, strings.Repeat("x", 40)); err != nil {
					t.Fatal(err)
				}
			}
			_ = c.Close(ctx)
			if stop == "SIGTERM" {
				_ = srv.cmd.Process.Signal(syscall.SIGTERM)
				if err := srv.cmd.Wait(); err != nil {
					t.Fatalf("server exit after SIGTERM: %v\n%s", err, srv.log.String())
				}
				srv.cmd = nil
			} else {
				srv.kill()
			}
			wal, size := largestWAL(t, srv.data)
			type damage struct {
				name  string
				apply func([]byte) []byte
			}
			var cases []damage
			for _, off := range []int{20, 100, size / 4, size / 2, size - 200} {
				if off > 0 && off < size {
					cases = append(cases, damage{fmt.Sprintf("flip@%d", off), func(b []byte) []byte { b[off] ^= 0x5a; return b }})
				}
			}
			if stop == "SIGTERM" {
				for _, n := range []int{0, size / 3, size - 5} {
					cases = append(cases, damage{fmt.Sprintf("truncate@%d", n), func(b []byte) []byte { return b[:max(n, 0)] }})
				}
			}
			refused := 0
			for _, d := range cases {
				dir := filepath.Join(t.TempDir(), "copy")
				if _, err := vfs.Clone(vfs.Default, vfs.Default, srv.data, dir); err != nil {
					t.Fatal(err)
				}
				p := filepath.Join(dir, filepath.Base(wal))
				b, err := os.ReadFile(p)
				if err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, d.apply(b), 0o644); err != nil {
					t.Fatal(err)
				}
				checkOut, checkErr := exec.Command(srv.bin, "check", "--data", dir).CombinedOutput()
				cp := &server{bin: srv.bin, data: dir, addr: testkit.FreeAddr(t)}
				n, out, err := cp.tryStartCount(t)
				switch {
				case err != nil:
					refused++
					if !strings.Contains(out, "write-ahead log "+p) || !strings.Contains(out, "damaged at offset") {
						t.Errorf("%s %s: refused without naming the log and offset:\n%s", stop, d.name, out)
					}
					if checkErr == nil || !bytes.Contains(checkOut, []byte("damaged at offset")) {
						t.Errorf("%s %s: kvsql check did not report the damage: %v\n%s", stop, d.name, checkErr, checkOut)
					}
				case n != rows:
					t.Errorf("%s %s: %d of %d acknowledged rows after restart, no error\n%s", stop, d.name, n, rows, out)
				case checkErr != nil:
					t.Errorf("%s %s: all rows present but kvsql check failed: %v\n%s", stop, d.name, checkErr, checkOut)
				}
			}
			t.Logf("%s: %d damaged copies of %s (%d bytes), %d refused, the rest recovered all %d rows", stop, len(cases), filepath.Base(wal), size, refused, rows)
			if stop == "SIGKILL" && refused == 0 {
				t.Errorf("no flip in the live log after a crash was refused")
			}
		})
	}
}

// largestWAL returns the path and size of the data directory's largest
// write-ahead log.
func largestWAL(t *testing.T, dir string) (string, int) {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	best, size := "", -1
	for _, e := range ents {
		if !strings.HasSuffix(e.Name(), ".log") {
			continue
		}
		fi, err := e.Info()
		if err != nil {
			t.Fatal(err)
		}
		if int(fi.Size()) > size {
			best, size = filepath.Join(dir, e.Name()), int(fi.Size())
		}
	}
	if best == "" {
		t.Fatalf("no write-ahead log in %s", dir)
	}
	return best, size
}

// tryStartCount starts the server and counts t's rows; when the process
// exits before it listens, it returns the error and the process's output.
func (s *server) tryStartCount(t *testing.T) (int, string, error) {
	t.Helper()
	s.cmd = exec.Command(s.bin, "serve", "--listen", s.addr, "--data", s.data)
	s.cmd.Stdout, s.cmd.Stderr = &s.log, &s.log
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- s.cmd.Wait() }()
	defer func() {
		if s.cmd != nil {
			_ = s.cmd.Process.Signal(syscall.SIGKILL)
			<-exited
		}
	}()
	deadline := time.Now().Add(15 * time.Second)
	for {
		select {
		case err := <-exited:
			s.cmd = nil
			if err == nil {
				err = fmt.Errorf("server exited")
			}
			return 0, s.log.String(), err
		default:
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		c, err := pgx.Connect(ctx, s.url())
		if err == nil {
			var n int
			err = c.QueryRow(ctx, "SELECT count(*) FROM t").Scan(&n)
			_ = c.Close(ctx)
			cancel()
			if err != nil {
				t.Fatalf("count: %v", err)
			}
			return n, "", nil
		}
		cancel()
		if time.Now().After(deadline) {
			t.Fatalf("server neither listened nor exited:\n%s", s.log.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
}
