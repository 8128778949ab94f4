package session

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"
)

// TestSyncTimeCounted: TxnStats.SyncTime sums the time the WAL syncs
// took. With every sync slowed to 10 ms and one session committing
// alone (each commit then waits for a sync of its own), n commits add at
// least n syncs and n*10 ms of sync time, and no more sync time than the
// wall time they took, since one session's syncs never overlap.
func TestSyncTimeCounted(t *testing.T) {
	db, err := Open(Options{Dir: filepath.Join(t.TempDir(), "db")})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	const delay = 10 * time.Millisecond
	db.sync.eng = slowSyncEngine{Engine: db.sync.eng, delay: delay}
	db.sync.noOwnSync = true // a lone commit's own sync would bypass Flush
	s, err := db.Session("")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	if _, err := s.Exec(ctx, "CREATE TABLE t (id INT PRIMARY KEY)"); err != nil {
		t.Fatal(err)
	}
	const n = 5
	before, began := db.TxnStats(), time.Now()
	for i := range n {
		if _, err := s.Exec(ctx, fmt.Sprintf("INSERT INTO t VALUES (%d)", i)); err != nil {
			t.Fatal(err)
		}
	}
	wall := time.Since(began)
	after := db.TxnStats()
	syncs, took := after.Syncs-before.Syncs, after.SyncTime-before.SyncTime
	if syncs < n {
		t.Fatalf("%d syncs for %d commits", syncs, n)
	}
	if took < time.Duration(syncs)*delay || took > wall {
		t.Fatalf("sync time %v for %d syncs of at least %v each in %v", took, syncs, delay, wall)
	}
}
