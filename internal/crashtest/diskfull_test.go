package crashtest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/kvsql/kvsql/internal/testkit"
)

// TestDiskFull fills a small file system (a 64 MiB tmpfs, 40 MiB of it
// taken by other files) through a real server until a write fails, then stops the server and restarts it on
// the still-full disk (issue 22 item 6), once after SIGTERM and once
// after SIGKILL. It checks what PostgreSQL does on a full disk:
//
//   - the write that finds the disk full, and every later one, gets
//     53100 disk_full ("could not extend file ...: No space left on
//     device"), and the server keeps answering reads; once space is
//     freed, writes work again without a restart;
//   - a restart on the full disk listens (it used to retry the flush of
//     the replayed write-ahead log forever), answers reads with every
//     acknowledged row, and refuses writes with 53100;
//   - `kvsql check` and `kvsql catalog export` on the full disk finish
//     promptly;
//   - once space is freed, a restart accepts writes again;
//   - the server never panics.
//
// Mounting needs root (CAP_SYS_ADMIN); elsewhere the test is skipped.
func TestDiskFull(t *testing.T) {
	if testing.Short() {
		t.Skip("fills a 64 MiB file system through a server and restarts it")
	}
	mnt := mountTmpfs(t, "64m")
	// Other programs' files: other1 (8 MiB) is removed while the server
	// runs on the full disk, other2 (32 MiB) at the end, giving the store
	// room to flush its write-ahead logs.
	for f, size := range map[string]int{"other1": 8 << 20, "other2": 32 << 20} {
		if err := os.WriteFile(filepath.Join(mnt, f), make([]byte, size), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	srv := &server{bin: buildKvsql(t), data: filepath.Join(mnt, "data"), addr: testkit.FreeAddr(t)}
	if err := os.MkdirAll(srv.data, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.kill) // before the unmount (cleanups run last first)
	srv.start(t)
	ctx := context.Background()
	c := connect(t, srv)
	mustExec(t, c, "CREATE TABLE t (id INT PRIMARY KEY, v TEXT)")

	acked, fullErr := fillTable(ctx, c)
	if fullErr == nil {
		t.Fatal("1,000 statements filled no disk")
	}
	t.Logf("%d rows acknowledged before the disk was full; then: %v", acked, fullErr)
	wantDiskFull(t, fullErr, "the write that filled the disk")
	// The running server still answers reads, and refuses the write
	// again.
	wantCount(t, c, "SELECT count(*) FROM t", acked)
	wantCode(t, c, insertBatch(acked), "53100", "No space left on device")
	wantCount(t, c, "SELECT count(*) FROM t", acked)
	// Space freed while it runs: writes work again, without a restart.
	if err := os.Remove(filepath.Join(mnt, "other1")); err != nil {
		t.Fatal(err)
	}
	mustExec(t, c, insertBatch(acked))
	acked += 2000
	mustExec(t, c, "CREATE TABLE u (a INT)")
	_ = c.Close(ctx)
	noPanic(t, srv, "the server that filled the disk")

	for _, stop := range []string{"SIGTERM", "SIGKILL"} {
		if stop == "SIGTERM" {
			srv.stop(t)
		} else {
			srv.kill()
		}
		fillUp(t, mnt)
		srv.start(t) // fails the test unless it listens within 15 s
		if !strings.Contains(srv.log.String(), "the disk is full: serving READ-ONLY") {
			t.Errorf("after %s: no read-only warning in the log:\n%s", stop, srv.log.String())
		}
		c := connect(t, srv)
		wantCount(t, c, "SELECT count(*) FROM t", acked)
		wantCount(t, c, "SELECT count(DISTINCT id) FROM t WHERE id >= 0 AND id < "+fmt.Sprint(acked), acked)
		wantCode(t, c, "INSERT INTO t VALUES (-1, 'x')", "53100", "No space left on device")
		wantCode(t, c, "CREATE TABLE v (a INT)", "53100", "No space left on device")
		wantCode(t, c, "DELETE FROM t WHERE id < 10", "53100", "No space left on device")
		mustExec(t, c, "BEGIN")
		wantCode(t, c, "UPDATE t SET v = 'y' WHERE id = 1", "53100", "No space left on device")
		mustExec(t, c, "ROLLBACK")
		wantCount(t, c, "SELECT count(*) FROM t", acked)
		_ = c.Close(ctx)
		noPanic(t, srv, "the restart after "+stop)
	}
	srv.stop(t)

	// kvsql check on the full disk: it must finish, not spin.
	fillUp(t, mnt)
	checkCtx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	began := time.Now()
	out, err := exec.CommandContext(checkCtx, srv.bin, "check", "--data", srv.data).CombinedOutput()
	took := time.Since(began)
	if checkCtx.Err() != nil {
		t.Fatalf("kvsql check on a full disk still running after %v:\n%s", took, out)
	}
	if err != nil || !strings.Contains(string(out), "ok") {
		t.Errorf("kvsql check on a full disk: %v\n%s", err, out)
	}
	t.Logf("kvsql check on the full disk took %v", took.Round(time.Millisecond))
	// So does `kvsql catalog export`, which opens the store for writing.
	out, err = exec.CommandContext(checkCtx, srv.bin, "catalog", "export", "--data", srv.data).CombinedOutput()
	if checkCtx.Err() != nil || err != nil || !strings.Contains(string(out), `tableName="t"`) {
		t.Errorf("kvsql catalog export on a full disk: %v %v\n%s", checkCtx.Err(), err, out)
	}

	// Space is back: a restart takes writes again.
	for _, f := range []string{"filler", "other2"} {
		if err := os.Remove(filepath.Join(mnt, f)); err != nil {
			t.Fatal(err)
		}
	}
	srv.start(t)
	c = connect(t, srv)
	mustExec(t, c, "INSERT INTO t VALUES (-1, 'x')")
	wantCount(t, c, "SELECT count(*) FROM t", acked+1)
	_ = c.Close(ctx)
	noPanic(t, srv, "the restart with free space")
}

// TestDiskFullBallast is TestDiskFull's restart with an emergency
// ballast (serve --disk-ballast 32MB): the restart on the still-full
// disk deletes the ballast, so the store flushes its write-ahead logs
// and opens writable instead of read-only; every acknowledged row is
// there, writes work at once, and the ballast is made again once space
// is freed, all without another restart.
func TestDiskFullBallast(t *testing.T) {
	if testing.Short() {
		t.Skip("fills a 64 MiB file system through a server and restarts it")
	}
	mnt := mountTmpfs(t, "64m")
	if err := os.WriteFile(filepath.Join(mnt, "other"), make([]byte, 8<<20), 0o644); err != nil {
		t.Fatal(err)
	}
	srv := &server{bin: buildKvsql(t), data: filepath.Join(mnt, "data"), addr: testkit.FreeAddr(t), extra: []string{"--disk-ballast", "32MB"}}
	if err := os.MkdirAll(srv.data, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.kill)
	srv.start(t)
	ballast := filepath.Join(srv.data, "KVSQL-BALLAST")
	wantBallast := func(what string) {
		t.Helper()
		if st, err := os.Stat(ballast); err != nil || st.Size() != 32<<20 {
			t.Fatalf("%s: ballast %v %v, want 32 MiB", what, st, err)
		}
	}
	wantBallast("a new store")
	ctx := context.Background()
	c := connect(t, srv)
	mustExec(t, c, "CREATE TABLE t (id INT PRIMARY KEY, v TEXT)")
	acked, fullErr := fillTable(ctx, c)
	t.Logf("%d rows acknowledged before the disk was full; then: %v", acked, fullErr)
	wantDiskFull(t, fullErr, "the write that filled the disk")
	_ = c.Close(ctx)

	srv.kill()
	fillUp(t, mnt)
	srv.start(t)
	if log := srv.log.String(); !strings.Contains(log, "removed the emergency ballast") || strings.Contains(log, "READ-ONLY") {
		t.Fatalf("restart on a full disk with a ballast: want it removed and the store writable; log:\n%s", log)
	}
	c = connect(t, srv)
	wantCount(t, c, "SELECT count(*) FROM t", acked)
	mustExec(t, c, insertBatch(acked))
	acked += 2000
	wantCount(t, c, "SELECT count(*) FROM t", acked)

	// Space freed: the next writes make the ballast again.
	for _, f := range []string{"filler", "other"} {
		if err := os.Remove(filepath.Join(mnt, f)); err != nil {
			t.Fatal(err)
		}
	}
	deadline := time.Now().Add(20 * time.Second)
	for id := -1; ; id-- {
		mustExec(t, c, fmt.Sprintf("INSERT INTO t VALUES (%d, 'x')", id))
		acked++
		if st, err := os.Stat(ballast); err == nil && st.Size() == 32<<20 {
			break
		}
		if time.Now().After(deadline) {
			wantBallast("20 s after space was freed")
		}
		time.Sleep(200 * time.Millisecond)
	}
	wantCount(t, c, "SELECT count(*) FROM t", acked)
	_ = c.Close(ctx)
	noPanic(t, srv, "the server with a ballast")
}

// insertBatch inserts 2,000 rows from id from on, 256 hex characters
// each: about 0.5 MiB that does not compress away.
func insertBatch(from int) string {
	return fmt.Sprintf(`INSERT INTO t SELECT g, md5(g::text)||md5((g+1)::text)||md5((g+2)::text)||md5((g+3)::text)||md5((g+4)::text)||md5((g+5)::text)||md5((g+6)::text)||md5((g+7)::text)
		FROM generate_series(%d, %d) g`, from, from+1999)
}

// fillTable inserts batches into t until one fails; it returns the rows
// acknowledged and the error (nil if 1,000 batches fit).
func fillTable(ctx context.Context, c *pgx.Conn) (int, error) {
	acked := 0
	for range 1000 {
		if _, err := c.Exec(ctx, insertBatch(acked)); err != nil {
			return acked, err
		}
		acked += 2000
	}
	return acked, nil
}

// mountTmpfs mounts a tmpfs of size (mount's syntax: "64m") on a
// temporary directory and unmounts it when the test ends, or skips the
// test when it cannot mount (not root, no mount(8), a container without
// CAP_SYS_ADMIN).
func mountTmpfs(t *testing.T, size string) string {
	t.Helper()
	dir := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size="+size, "tmpfs", dir).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a small file system to fill (needs root): %v %s", err, strings.TrimSpace(string(out)))
	}
	t.Cleanup(func() {
		if out, err := exec.Command("umount", dir).CombinedOutput(); err != nil {
			t.Errorf("umount %s: %v %s", dir, err, out)
		}
	})
	return dir
}

// fillUp takes every free byte of the file system at dir with a file
// named filler (growing it if it is there), so the disk is still full
// whatever the stopped server freed.
func fillUp(t *testing.T, dir string) {
	t.Helper()
	f, err := os.OpenFile(filepath.Join(dir, "filler"), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	buf := make([]byte, 64<<10)
	for {
		if _, err := f.Write(buf); err != nil {
			if !errors.Is(err, syscall.ENOSPC) {
				t.Fatal(err)
			}
			break
		}
	}
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		t.Fatal(err)
	}
	if st.Bavail != 0 {
		t.Fatalf("%d blocks still free after filling %s", st.Bavail, dir)
	}
}

// wantDiskFull checks that err is PostgreSQL's disk_full error.
func wantDiskFull(t *testing.T, err error, what string) {
	t.Helper()
	var pe *pgconn.PgError
	if !errors.As(err, &pe) || pe.Code != "53100" || !strings.Contains(pe.Message, "could not extend file") || !strings.Contains(pe.Message, "No space left on device") {
		t.Fatalf("%s: got %v, want 53100 could not extend file ...: No space left on device", what, err)
	}
}

// noPanic fails the test if the server's log shows a panic or a
// goroutine dump.
func noPanic(t *testing.T, s *server, what string) {
	t.Helper()
	if log := s.log.String(); strings.Contains(log, "panic") || strings.Contains(log, "goroutine ") {
		t.Errorf("%s panicked:\n%s", what, log)
	}
}
