package session

import (
	"context"
	"fmt"
	"path/filepath"
	"sync"
	"testing"

	"github.com/kvsql/kvsql/kv"
)

// countKeys counts every key s holds.
func countKeys(t *testing.T, s kv.Reader) int {
	t.Helper()
	it, err := s.NewIter(kv.IterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer it.Close()
	n := 0
	for ok := it.SeekGE(nil); ok; ok = it.Next() {
		n++
	}
	if err := it.Error(); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestUnlockedSnapshotExact: the snapshot a group-commit leader takes
// without db.mu (unlockedSnapshot) holds exactly the commits up to its
// seq, while commits are applied concurrently. Each commit inserts one
// row, one key, so a snapshot at seq s must hold as many keys as the
// store had at the start plus s minus the start's seq; one that saw a
// commit being applied but not yet counted would hold one more.
func TestUnlockedSnapshotExact(t *testing.T) {
	const writers, perWriter = 4, 150
	db, err := Open(Options{Dir: filepath.Join(t.TempDir(), "db")})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	s, err := db.Session("")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Exec(ctx, "CREATE TABLE t (id INT PRIMARY KEY)"); err != nil {
		t.Fatal(err)
	}
	_ = s.Close()
	base := db.unlockedSnapshot()
	if base == nil {
		t.Fatal("no snapshot without db.mu on an idle store")
	}
	seq0, keys0 := base.seq, countKeys(t, base.snap)
	base.release()

	var wg sync.WaitGroup
	errc := make(chan error, writers)
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ws, err := db.Session("")
			if err != nil {
				errc <- err
				return
			}
			defer ws.Close()
			for i := 0; i < perWriter; i++ {
				if _, err := ws.Exec(ctx, fmt.Sprintf("INSERT INTO t VALUES (%d)", w*perWriter+i)); err != nil {
					errc <- err
					return
				}
			}
		}()
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	hits, misses := 0, 0
	check := func() {
		c := db.unlockedSnapshot()
		if c == nil {
			misses++
			return
		}
		hits++
		if got, want := countKeys(t, c.snap), keys0+int(c.seq-seq0); got != want {
			t.Errorf("snapshot at seq %d holds %d keys, want %d", c.seq, got, want)
		}
		c.release()
	}
	for running := true; running; {
		select {
		case <-done:
			running = false
		default:
			check()
		}
	}
	close(errc)
	for err := range errc {
		t.Fatal(err)
	}
	check() // idle again: must succeed
	if c := db.unlockedSnapshot(); c == nil || c.seq != seq0+writers*perWriter {
		t.Fatalf("after the writers: snapshot %v, want one at seq %d", c, seq0+writers*perWriter)
	} else {
		c.release()
	}
	t.Logf("%d snapshots without db.mu checked, %d refused", hits, misses)
}
