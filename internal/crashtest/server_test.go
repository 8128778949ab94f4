package crashtest

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/kvsql/kvsql/internal/testkit"
)

// server is one kvsql serve process over a data directory that outlives
// it.
type server struct {
	bin, data, addr string
	extra           []string // more `kvsql serve` flags
	cmd             *exec.Cmd
	log             bytes.Buffer
}

// buildKvsql builds cmd/kvsql into a temporary directory.
func buildKvsql(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "kvsql")
	out, err := exec.Command("go", "build", "-o", bin, "github.com/kvsql/kvsql/cmd/kvsql").CombinedOutput()
	if err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// start launches the server and waits until it accepts a connection.
func (s *server) start(t *testing.T) {
	t.Helper()
	s.log.Reset()
	s.cmd = exec.Command(s.bin, append([]string{"serve", "--listen", s.addr, "--data", s.data}, s.extra...)...)
	s.cmd.Stdout, s.cmd.Stderr = &s.log, &s.log
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(15 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		c, err := pgx.Connect(ctx, s.url())
		cancel()
		if err == nil {
			_ = c.Close(context.Background())
			return
		}
		if time.Now().After(deadline) {
			s.kill()
			t.Fatalf("server did not come up: %v\n%s", err, s.log.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func (s *server) url() string {
	return "postgres://crash@" + s.addr + "/kvsql?sslmode=disable"
}

// kill sends SIGKILL and reaps the process.
func (s *server) kill() {
	if s.cmd == nil || s.cmd.Process == nil {
		return
	}
	_ = s.cmd.Process.Signal(syscall.SIGKILL)
	_ = s.cmd.Wait()
	s.cmd = nil
}

// check runs `kvsql check` on the (stopped) server's data directory.
func (s *server) check(t *testing.T) {
	t.Helper()
	out, err := exec.Command(s.bin, "check", "--data", s.data).CombinedOutput()
	if err != nil {
		t.Fatalf("kvsql check: %v\n%s", err, out)
	}
	if !bytes.Contains(out, []byte("ok")) {
		t.Fatalf("kvsql check printed %q", out)
	}
}

func newServer(t *testing.T) *server {
	s := &server{bin: buildKvsql(t), data: filepath.Join(t.TempDir(), "data"), addr: testkit.FreeAddr(t)}
	if err := os.MkdirAll(s.data, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.kill)
	return s
}
