package crashtest

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/kvsql/kvsql/catalog"
	"github.com/kvsql/kvsql/internal/testkit"
)

// TestCorruption damages copies of a real store written by a real server
// (tables good and bad, bad with index bad_v; stopped with SIGTERM, so
// everything is in sstables) and restarts the server on each copy:
//
//   - a data block of bad's master file, or of bad_v: the server starts
//     and serves good; reads that meet the block get XX001 naming bad
//     (or bad_v), writes get 25006; after a restart it starts read-only
//     and says so;
//   - the sstable's index block (the whole file is unreadable, the
//     catalog with it) and the MANIFEST's first record: the server
//     refuses to start with a clear message naming the damage, and
//     `kvsql check` reports it.
//
// In no case does the process panic. (The write-ahead log's tail is
// TestWALDamage's.)
func TestCorruption(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and restarts the server several times")
	}
	srv := newServer(t)
	srv.start(t)
	ctx := context.Background()
	c, err := pgx.Connect(ctx, srv.url())
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range testkit.DamageSchema {
		if _, err := c.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	_ = c.Close(ctx)
	srv.stop(t)
	badID := catalog.FirstUserSpace + 1 // good is 100, bad 101, bad_v 102

	damage := func(t *testing.T, what string) string {
		dir := filepath.Join(t.TempDir(), "copy")
		if _, err := vfs.Clone(vfs.Default, vfs.Default, srv.data, dir); err != nil {
			t.Fatal(err)
		}
		ssts := testkit.SSTables(t, dir)
		switch what {
		case "master", "index":
			space := badID
			if what == "index" {
				space++
			}
			testkit.DamageKeyBlock(t, dir, space)
		case "index-block":
			for _, sst := range ssts {
				_, idx := testkit.SSTLayout(t, sst)
				testkit.FlipByte(t, sst, int64(idx[0].Offset+idx[0].Length/2))
			}
		case "manifest":
			m, _ := filepath.Glob(filepath.Join(dir, "MANIFEST-*"))
			for _, p := range m {
				// Inside the first record (the version snapshot): valid
				// records follow, so this is not a torn tail.
				testkit.FlipByte(t, p, 20)
			}
		}
		return dir
	}

	for _, target := range []string{"master", "index"} {
		t.Run(target, func(t *testing.T) {
			cp := &server{bin: srv.bin, data: damage(t, target), addr: testkit.FreeAddr(t)}
			t.Cleanup(cp.kill)
			q, names := "SELECT count(*) FROM bad", `table "bad"`
			if target == "index" {
				q, names = "SELECT count(*) FROM bad WHERE v BETWEEN 10000 AND 20000", `index "bad_v" of table "bad"`
			}
			for run := range 2 {
				cp.start(t)
				c, err := pgx.Connect(ctx, cp.url())
				if err != nil {
					t.Fatal(err)
				}
				wantCount(t, c, "SELECT count(*) FROM good", 100)
				wantCount(t, c, "SELECT count(*) FROM bad WHERE id < 10", 9)
				wantCode(t, c, q, "XX001", names)
				for _, w := range []string{"INSERT INTO good VALUES (1000, 'x')", "CREATE INDEX good_v ON good (v)", "ALTER TABLE good ADD COLUMN w INT"} {
					wantCode(t, c, w, "25006", "read-only")
				}
				wantCount(t, c, "SELECT count(*) FROM good", 100)
				_ = c.Close(ctx)
				log := cp.log.String()
				cp.stop(t)
				if strings.Contains(log, "panic") || strings.Contains(log, "goroutine ") {
					t.Fatalf("run %d: the server panicked:\n%s", run, log)
				}
				switch run {
				case 0:
					if !strings.Contains(log, "DATA CORRUPTION in ") || !strings.Contains(log, `table "bad"`) {
						t.Fatalf("run 0: no corruption line naming the file and table in the log:\n%s", log)
					}
				case 1:
					if !strings.Contains(log, "serving READ-ONLY") {
						t.Fatalf("run 1: the restart did not say it serves read-only:\n%s", log)
					}
				}
			}
		})
	}

	for _, target := range []string{"index-block", "manifest"} {
		t.Run(target, func(t *testing.T) {
			cp := &server{bin: srv.bin, data: damage(t, target), addr: testkit.FreeAddr(t)}
			out, err := cp.startOrExit(t)
			if err == nil {
				cp.stop(t)
				t.Fatalf("the server started on a store whose %s is damaged", target)
			}
			if strings.Contains(out, "panic") || strings.Contains(out, "goroutine ") {
				t.Fatalf("the server panicked:\n%s", out)
			}
			want := map[string]string{"index-block": "data corrupted in ", "manifest": "MANIFEST"}[target]
			if !strings.Contains(out, want) || !strings.Contains(out, "docs/operations.md") {
				t.Fatalf("refused without saying %q and what to do:\n%s", want, out)
			}
			t.Logf("refused: %s", strings.TrimSpace(out))
			chk, err := exec.Command(srv.bin, "check", "--data", cp.data).CombinedOutput()
			if err == nil || !strings.Contains(string(chk), "damaged: ") {
				t.Fatalf("kvsql check did not report the damage: %v\n%s", err, chk)
			}
		})
	}
}

func wantCount(t *testing.T, c *pgx.Conn, q string, want int) {
	t.Helper()
	var n int
	if err := c.QueryRow(context.Background(), q).Scan(&n); err != nil || n != want {
		t.Fatalf("%s: %d, %v; want %d", q, n, err, want)
	}
}

func wantCode(t *testing.T, c *pgx.Conn, q, code, msg string) {
	t.Helper()
	rows, err := c.Query(context.Background(), q)
	if err == nil {
		for rows.Next() {
		}
		err = rows.Err()
		rows.Close()
	}
	var pe *pgconn.PgError
	if !errors.As(err, &pe) || pe.Code != code || !strings.Contains(pe.Message, msg) {
		t.Fatalf("%s: got %v, want %s mentioning %q", q, err, code, msg)
	}
}

// stop sends SIGTERM and waits for a clean exit.
func (s *server) stop(t *testing.T) {
	t.Helper()
	if s.cmd == nil {
		return
	}
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	if err := s.cmd.Wait(); err != nil {
		t.Fatalf("server exit after SIGTERM: %v\n%s", err, s.log.String())
	}
	s.cmd = nil
}

// startOrExit starts the server and returns nil once it listens, or the
// process's error and output when it exits first.
func (s *server) startOrExit(t *testing.T) (string, error) {
	t.Helper()
	s.log.Reset()
	s.cmd = exec.Command(s.bin, "serve", "--listen", s.addr, "--data", s.data)
	s.cmd.Stdout, s.cmd.Stderr = &s.log, &s.log
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- s.cmd.Wait() }()
	deadline := time.Now().Add(15 * time.Second)
	for {
		select {
		case err := <-exited:
			s.cmd = nil
			if err == nil {
				err = fmt.Errorf("server exited")
			}
			return s.log.String(), err
		default:
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		c, err := pgx.Connect(ctx, s.url())
		cancel()
		if err == nil {
			_ = c.Close(context.Background())
			// Hand the process back to stop/kill: they Wait again, so
			// reap it through the channel.
			go func() { <-exited }()
			return "", nil
		}
		if time.Now().After(deadline) {
			t.Fatalf("server neither listened nor exited:\n%s", s.log.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
}
