package testkit

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// pgBinDirs are searched for PostgreSQL's programs after $PATH.
var pgBinDirs = []string{"/usr/lib/postgresql/15/bin", "/usr/lib/postgresql/16/bin", "/usr/lib/postgresql/14/bin"}

// PGProgram returns the path of one of PostgreSQL's programs (pgbench,
// psql), found as StartPostgres finds initdb and pg_ctl, or skips the
// test, naming what is missing.
func PGProgram(t testing.TB, name string) string {
	t.Helper()
	p := findPG(name)
	if p == "" {
		t.Skipf("PostgreSQL's %s is not installed (apt-get install postgresql-15)", name)
	}
	return p
}

func findPG(name string) string {
	if p, err := exec.LookPath(name); err == nil {
		return p
	}
	for _, d := range pgBinDirs {
		if p := filepath.Join(d, name); fileExists(p) {
			return p
		}
	}
	return ""
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// HavePostgres reports whether PostgreSQL's initdb and pg_ctl were found.
func HavePostgres() bool { return findPG("initdb") != "" && findPG("pg_ctl") != "" }

// StartPostgres starts a throwaway PostgreSQL cluster on a free loopback
// port and returns its URL; t.Cleanup stops it and removes its files. It
// skips the test when the binaries are missing. As root, the server runs
// as the postgres user (PostgreSQL refuses to run as root).
func StartPostgres(t testing.TB) string {
	t.Helper()
	initdb, pgctl := findPG("initdb"), findPG("pg_ctl")
	if initdb == "" || pgctl == "" {
		t.Skip("PostgreSQL binaries (initdb, pg_ctl) not found")
	}
	var prefix []string
	uid, gid := -1, -1
	if os.Geteuid() == 0 {
		u, err := user.Lookup("postgres")
		runuser, rerr := exec.LookPath("runuser")
		if err != nil || rerr != nil {
			t.Skip("running as root without a postgres user or runuser")
		}
		uid, _ = strconv.Atoi(u.Uid)
		gid, _ = strconv.Atoi(u.Gid)
		prefix = []string{runuser, "-u", "postgres", "--"}
	}
	run := func(args ...string) (string, error) {
		all := append(append([]string{}, prefix...), args...)
		out, err := exec.Command(all[0], all[1:]...).CombinedOutput()
		return string(out), err
	}

	dir, err := os.MkdirTemp("", "kvsql-slt-pg-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	data := filepath.Join(dir, "data")
	if err := os.Mkdir(data, 0o700); err != nil {
		t.Fatal(err)
	}
	if uid >= 0 {
		if err := os.Chown(data, uid, gid); err != nil {
			t.Fatal(err)
		}
	}
	if out, err := run(initdb, "-D", data, "-U", "postgres", "-A", "trust", "-E", "UTF8", "--locale=C", "--no-sync"); err != nil {
		t.Fatalf("initdb: %v\n%s", err, out)
	}
	_, port, _ := net.SplitHostPort(FreeAddr(t))
	opts := fmt.Sprintf("-p %s -c listen_addresses=127.0.0.1 -c unix_socket_directories=%s -c fsync=off -c full_page_writes=off -c synchronous_commit=off",
		port, data)
	if out, err := run(pgctl, "-D", data, "-l", filepath.Join(data, "server.log"), "-w", "-t", "60", "-o", opts, "start"); err != nil {
		log, _ := os.ReadFile(filepath.Join(data, "server.log"))
		t.Fatalf("pg_ctl start: %v\n%s\n%s", err, out, log)
	}
	t.Cleanup(func() {
		if out, err := run(pgctl, "-D", data, "-m", "immediate", "-w", "stop"); err != nil {
			t.Logf("pg_ctl stop: %v\n%s", err, strings.TrimSpace(out))
		}
	})
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%s/postgres?sslmode=disable", port)
}
