package session

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
)

// TestLoneCommitOwnSync: a lone committer on Pebble syncs its own commit
// (groupSync.alone, waitOwn): one sync per commit, and each commit is
// published as durable when COMMIT answers, so another session's next
// read, which takes only durable state, sees it at once; after a reopen
// every acknowledged value is there. With own syncs off (the group's
// leader path) the answers are the same.
func TestLoneCommitOwnSync(t *testing.T) {
	for _, own := range []bool{true, false} {
		t.Run(fmt.Sprintf("own=%v", own), func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "db")
			db, err := Open(Options{Dir: dir})
			if err != nil {
				t.Fatal(err)
			}
			db.sync.noOwnSync = !own
			ctx := context.Background()
			w, err := db.Session("")
			if err != nil {
				t.Fatal(err)
			}
			r, err := db.Session("")
			if err != nil {
				t.Fatal(err)
			}
			exec := func(s *Session, sql string) []Result {
				t.Helper()
				res, err := s.Exec(ctx, sql)
				if err != nil {
					t.Fatalf("%s: %v", sql, err)
				}
				return res
			}
			exec(w, "CREATE TABLE t (id INT PRIMARY KEY, n INT NOT NULL)")
			exec(w, "INSERT INTO t VALUES (1, 0)")
			const n = 20
			before := db.TxnStats()
			ownBefore, ownsBefore := db.sync.durableSeq.Load(), db.sync.owns.Load()
			for i := 1; i <= n; i++ {
				exec(w, fmt.Sprintf("UPDATE t SET n = %d WHERE id = 1", i))
				if d, a := db.sync.durableSeq.Load(), db.sync.applied.Load(); d != a {
					t.Fatalf("after UPDATE %d: durable seq %d, applied %d", i, d, a)
				}
				res := exec(r, "SELECT n FROM t WHERE id = 1")
				if got := fmt.Sprint(res[0].Rows); got != fmt.Sprintf("[[%d]]", i) {
					t.Fatalf("read after UPDATE %d: %s", i, got)
				}
			}
			after := db.TxnStats()
			if c, s := after.Commits-before.Commits, after.Syncs-before.Syncs; c != n || s != n {
				t.Fatalf("%d commits, %d syncs; want %d of each", c, s, n)
			}
			wantOwns := uint64(0)
			if own {
				wantOwns = n
			}
			if got := db.sync.owns.Load() - ownsBefore; got != wantOwns {
				t.Fatalf("%d own syncs, want %d", got, wantOwns)
			}
			if got := db.sync.durableSeq.Load() - ownBefore; got != n {
				t.Fatalf("durable seq moved %d, want %d", got, n)
			}
			_ = w.Close()
			_ = r.Close()
			if err := db.Close(); err != nil {
				t.Fatal(err)
			}
			db, err = Open(Options{Dir: dir})
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			s, err := db.Session("")
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			if got := fmt.Sprint(exec(s, "SELECT n FROM t")[0].Rows); got != fmt.Sprintf("[[%d]]", n) {
				t.Fatalf("after reopen: %s", got)
			}
		})
	}
}
