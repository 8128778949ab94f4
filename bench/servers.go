package bench

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// PGBinDir holds PostgreSQL 15's server binaries (Debian's layout).
const PGBinDir = "/usr/lib/postgresql/15/bin"

// Server is a throwaway database server on a loopback port.
type Server struct {
	name string // "kvsql" or "postgres"
	Host string
	Port int
	stop func() error
	// pids lists the server's processes, for the memory watch.
	pids func() []int
}

// Name is "kvsql" or "postgres".
func (s *Server) Name() string { return s.name }

// ConnString is the pgx connection string for the server's default
// database.
func (s *Server) ConnString() string {
	return fmt.Sprintf("postgres://postgres@%s:%d/postgres?sslmode=disable", s.Host, s.Port)
}

// Stop stops the server and removes its data. It is safe to call twice.
func (s *Server) Stop() error {
	if s == nil || s.stop == nil {
		return nil
	}
	f := s.stop
	s.stop = nil
	return f()
}

// FreePort returns a loopback TCP port that was free a moment ago.
func FreePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// PostgresAvailable reports whether PostgreSQL 15's initdb and pg_ctl are
// installed, and if not, why.
func PostgresAvailable() (bool, string) {
	for _, b := range []string{"initdb", "pg_ctl", "postgres"} {
		if _, err := os.Stat(filepath.Join(PGBinDir, b)); err != nil {
			return false, "PostgreSQL 15 binaries not found in " + PGBinDir
		}
	}
	if _, err := exec.LookPath("pgbench"); err != nil {
		if _, err := os.Stat(filepath.Join(PGBinDir, "pgbench")); err != nil {
			return false, "pgbench not found"
		}
	}
	return true, ""
}

// StartPostgres initializes a PostgreSQL 15 cluster under dir (which must
// exist) and starts it on a free loopback port with fsync on. Running as
// root, initdb and the server run as the "postgres" user through runuser,
// and dir is handed to that user. Stop shuts the server down (fast mode)
// and deletes dir's contents.
func StartPostgres(ctx context.Context, dir string) (*Server, error) {
	data, sock := filepath.Join(dir, "data"), filepath.Join(dir, "sock")
	if err := os.MkdirAll(sock, 0o700); err != nil {
		return nil, err
	}
	asPG := func(name string, args ...string) *exec.Cmd {
		bin := filepath.Join(PGBinDir, name)
		if os.Geteuid() == 0 {
			return exec.CommandContext(ctx, "runuser", append([]string{"-u", "postgres", "--", bin}, args...)...)
		}
		return exec.CommandContext(ctx, bin, args...)
	}
	if os.Geteuid() == 0 {
		u, err := user.Lookup("postgres")
		if err != nil {
			return nil, fmt.Errorf("running as root needs a postgres user: %w", err)
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		for _, p := range []string{dir, sock} {
			if err := os.Chown(p, uid, gid); err != nil {
				return nil, err
			}
		}
	}
	if out, err := asPG("initdb", "-D", data, "-A", "trust", "-U", "postgres", "--no-sync").CombinedOutput(); err != nil {
		return nil, fmt.Errorf("initdb: %w: %s", err, tail(string(out), 600))
	}
	port, err := FreePort()
	if err != nil {
		return nil, err
	}
	opts := fmt.Sprintf("-p %d -k %s -c fsync=on -c synchronous_commit=on -c listen_addresses=127.0.0.1 -c max_connections=50 -c shared_buffers=512MB", port, sock)
	logf := filepath.Join(dir, "postgres.log")
	if out, err := asPG("pg_ctl", "-D", data, "-o", opts, "-l", logf, "-w", "-t", "60", "start").CombinedOutput(); err != nil {
		logText, _ := os.ReadFile(logf)
		return nil, fmt.Errorf("pg_ctl start: %w: %s %s", err, out, tail(string(logText), 600))
	}
	s := &Server{name: "postgres", Host: "127.0.0.1", Port: port,
		pids: func() []int { return processTree(postmasterPID(data)) }}
	s.stop = func() error {
		// A fresh context: the run's may be cancelled already (Ctrl-C).
		stopCtx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		bin := filepath.Join(PGBinDir, "pg_ctl")
		args := []string{"-D", data, "-m", "fast", "-w", "stop"}
		var cmd *exec.Cmd
		if os.Geteuid() == 0 {
			cmd = exec.CommandContext(stopCtx, "runuser", append([]string{"-u", "postgres", "--", bin}, args...)...)
		} else {
			cmd = exec.CommandContext(stopCtx, bin, args...)
		}
		out, err := cmd.CombinedOutput()
		if err != nil {
			err = fmt.Errorf("pg_ctl stop: %w: %s", err, out)
		}
		return errors.Join(err, os.RemoveAll(dir))
	}
	if err := waitReady(ctx, s); err != nil {
		return nil, errors.Join(err, s.Stop())
	}
	return s, nil
}

// StartKvsql starts "kvsql serve" (command is its argv up to and including
// "serve", e.g. [os.Executable(), "serve"]) with data under dir, sync on,
// on a free loopback port. Stop sends SIGTERM, waits for a clean shutdown
// and deletes dir's contents. The server's log goes to dir/kvsql.log.
func StartKvsql(ctx context.Context, command []string, dir string) (*Server, error) {
	port, err := FreePort()
	if err != nil {
		return nil, err
	}
	logf, err := os.Create(filepath.Join(dir, "kvsql.log"))
	if err != nil {
		return nil, err
	}
	args := append(append([]string{}, command[1:]...),
		"--listen", fmt.Sprintf("127.0.0.1:%d", port), "--data", filepath.Join(dir, "data"), "--sync", "on")
	// Not CommandContext: the server must get SIGTERM and time to stop,
	// not SIGKILL, when the run is cancelled.
	cmd := exec.Command(command[0], args...)
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		logf.Close()
		return nil, err
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	pid := cmd.Process.Pid
	s := &Server{name: "kvsql", Host: "127.0.0.1", Port: port,
		pids: func() []int { return []int{pid} }}
	s.stop = func() error {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		var err error
		select {
		case err = <-done:
		case <-time.After(30 * time.Second):
			_ = cmd.Process.Kill()
			err = errors.Join(errors.New("kvsql serve did not stop within 30s; killed"), <-done)
		}
		logf.Close()
		return errors.Join(err, os.RemoveAll(dir))
	}
	if err := waitReady(ctx, s); err != nil {
		logText, _ := os.ReadFile(logf.Name())
		return nil, errors.Join(err, errors.New(tail(string(logText), 600)), s.Stop())
	}
	return s, nil
}

// waitReady polls the server until a connection succeeds (20 s at most).
func waitReady(ctx context.Context, s *Server) error {
	deadline := time.Now().Add(20 * time.Second)
	var last error
	for time.Now().Before(deadline) {
		cctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		c, err := pgx.Connect(cctx, s.ConnString())
		cancel()
		if err == nil {
			return c.Close(ctx)
		}
		last = err
		if ctx.Err() != nil {
			return ctx.Err()
		}
		time.Sleep(100 * time.Millisecond)
	}
	return fmt.Errorf("%s did not accept connections: %w", s.name, last)
}

// sqlstate returns the SQLSTATE of a server error received by pgx, or "".
func sqlstate(err error) string {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Code
	}
	return ""
}

// pgVersion asks the server for its version string's first words.
func pgVersion(ctx context.Context, s *Server) string {
	c, err := pgx.Connect(ctx, s.ConnString())
	if err != nil {
		return "unknown"
	}
	defer c.Close(ctx)
	var v string
	if err := c.QueryRow(ctx, "SELECT version()").Scan(&v); err != nil {
		return "unknown"
	}
	if i := strings.Index(v, " on "); i > 0 {
		v = v[:i]
	}
	return v
}
