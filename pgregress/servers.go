package pgregress

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kvsql/kvsql"
	"github.com/kvsql/kvsql/wire"
)

// Target is a server the suite runs on. Each test file gets a fresh,
// empty database.
type Target interface {
	// Name is "PostgreSQL", "kvsql", ...
	Name() string
	// Fresh makes an empty database and returns a connection string to
	// it and a function that drops it.
	Fresh(ctx context.Context) (connString string, drop func(), err error)
}

// PGBinDir holds PostgreSQL 15's server binaries (Debian's layout).
const PGBinDir = "/usr/lib/postgresql/15/bin"

// PostgresAvailable reports whether PostgreSQL 15's initdb, pg_ctl and
// postgres are installed, and if not, why.
func PostgresAvailable() (bool, string) {
	for _, b := range []string{"initdb", "pg_ctl", "postgres"} {
		if _, err := os.Stat(filepath.Join(PGBinDir, b)); err != nil {
			return false, "PostgreSQL 15 binaries not found in " + PGBinDir
		}
	}
	if os.Geteuid() == 0 {
		if _, err := user.Lookup("postgres"); err != nil {
			return false, "running as root without a postgres user to run PostgreSQL as"
		}
		if _, err := exec.LookPath("runuser"); err != nil {
			return false, "running as root without runuser"
		}
	}
	return true, ""
}

// Postgres is a throwaway PostgreSQL 15 cluster: C locale, UTF8,
// TimeZone UTC, on a free loopback port.
type Postgres struct {
	name string
	dir  string
	port int
	n    atomic.Int64

	mu struct {
		sync.Mutex
		admin *Conn // to the postgres database: CREATE/DROP DATABASE
	}
}

var _ Target = (*Postgres)(nil)

// StartPostgres initialises and starts a cluster under a new temporary
// directory. As root, initdb and the server run as the postgres user.
// Stop removes it.
func StartPostgres(ctx context.Context, name string) (*Postgres, error) {
	if ok, why := PostgresAvailable(); !ok {
		return nil, errors.New(why)
	}
	dir, err := os.MkdirTemp("", "kvsql-pgregress-pg-")
	if err != nil {
		return nil, err
	}
	p := &Postgres{name: name, dir: dir}
	data, sock := filepath.Join(dir, "data"), filepath.Join(dir, "sock")
	if err := os.Mkdir(sock, 0o700); err != nil {
		return nil, errors.Join(err, os.RemoveAll(dir))
	}
	if os.Geteuid() == 0 {
		u, _ := user.Lookup("postgres")
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		for _, d := range []string{dir, sock} {
			if err := os.Chown(d, uid, gid); err != nil {
				return nil, errors.Join(err, os.RemoveAll(dir))
			}
		}
	}
	if out, err := p.pg(ctx, "initdb", "-D", data, "-U", "postgres", "-A", "trust", "-E", "UTF8", "--locale=C", "--no-sync").CombinedOutput(); err != nil {
		return nil, errors.Join(fmt.Errorf("initdb: %w: %s", err, tail(out)), os.RemoveAll(dir))
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, errors.Join(err, os.RemoveAll(dir))
	}
	p.port = l.Addr().(*net.TCPAddr).Port
	l.Close()
	opts := fmt.Sprintf("-p %d -k %s -c listen_addresses=127.0.0.1 -c timezone=UTC -c fsync=off -c full_page_writes=off -c synchronous_commit=off -c max_connections=40 -c lc_messages=C", p.port, sock)
	logf := filepath.Join(dir, "postgres.log")
	if out, err := p.pg(ctx, "pg_ctl", "-D", data, "-o", opts, "-l", logf, "-w", "-t", "60", "start").CombinedOutput(); err != nil {
		log, _ := os.ReadFile(logf)
		return nil, errors.Join(fmt.Errorf("pg_ctl start: %w: %s %s", err, out, tail(log)), os.RemoveAll(dir))
	}
	if p.mu.admin, err = Dial(ctx, p.url("postgres")); err != nil {
		return nil, errors.Join(err, p.Stop())
	}
	return p, nil
}

func (p *Postgres) pg(ctx context.Context, name string, args ...string) *exec.Cmd {
	bin := filepath.Join(PGBinDir, name)
	if os.Geteuid() == 0 {
		return exec.CommandContext(ctx, "runuser", append([]string{"-u", "postgres", "--", bin}, args...)...)
	}
	return exec.CommandContext(ctx, bin, args...)
}

func (p *Postgres) url(db string) string {
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/%s?sslmode=disable", p.port, db)
}

// Name implements Target.
func (p *Postgres) Name() string { return p.name }

// Fresh implements Target: CREATE DATABASE from template0.
func (p *Postgres) Fresh(ctx context.Context) (string, func(), error) {
	db := fmt.Sprintf("regression_%d", p.n.Add(1))
	p.mu.Lock()
	defer p.mu.Unlock()
	o := p.mu.admin.Run("CREATE DATABASE "+db+" TEMPLATE template0 ENCODING 'UTF8' LC_COLLATE 'C' LC_CTYPE 'C'", time.Minute, nil)
	if o.Err != nil || o.Broken() {
		return "", nil, fmt.Errorf("create database: %s", o.String())
	}
	drop := func() {
		p.mu.Lock()
		defer p.mu.Unlock()
		p.mu.admin.Run("DROP DATABASE IF EXISTS "+db+" WITH (FORCE)", time.Minute, nil)
	}
	return p.url(db), drop, nil
}

// Stop stops the cluster and deletes its files.
func (p *Postgres) Stop() error {
	p.mu.Lock()
	if p.mu.admin != nil {
		p.mu.admin.Close()
		p.mu.admin = nil
	}
	p.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	out, err := p.pg(ctx, "pg_ctl", "-D", filepath.Join(p.dir, "data"), "-m", "immediate", "-w", "stop").CombinedOutput()
	if err != nil {
		err = fmt.Errorf("pg_ctl stop: %w: %s", err, out)
	}
	return errors.Join(err, os.RemoveAll(p.dir))
}

func tail(b []byte) string {
	s := strings.TrimSpace(string(b))
	if len(s) > 600 {
		s = "..." + s[len(s)-600:]
	}
	return s
}

// Kvsql is kvsql in this process: each Fresh opens a new store in memory
// and serves it on a loopback port until dropped.
type Kvsql struct{}

var _ Target = Kvsql{}

// Name implements Target.
func (Kvsql) Name() string { return "kvsql" }

// Fresh implements Target.
func (Kvsql) Fresh(ctx context.Context) (string, func(), error) {
	db, err := kvsql.Open(kvsql.Options{Memory: true})
	if err != nil {
		return "", nil, err
	}
	srv, err := wire.NewServer(wire.Config{Addr: "127.0.0.1:0", Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}, db)
	if err != nil {
		return "", nil, errors.Join(err, db.Close())
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, errors.Join(err, db.Close())
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = srv.Serve(l)
	}()
	drop := func() {
		sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = srv.Shutdown(sctx)
		_ = l.Close()
		<-done
		_ = db.Close()
	}
	return fmt.Sprintf("postgres://postgres@%s/kvsql?sslmode=disable", l.Addr()), drop, nil
}
