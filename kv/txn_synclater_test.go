package kv

import (
	"fmt"
	"testing"
)

// TestTxnCommitSyncLater: on Pebble the writes are applied when
// CommitSyncLater returns and wait reports the sync; after a reopen they
// are there. On an engine without split syncs (memory) wait is nil and
// the writes are applied as by Commit(false). A committed Txn refuses a
// second commit.
func TestTxnCommitSyncLater(t *testing.T) {
	dir := t.TempDir()
	pe, err := OpenPebble(dir, PebbleOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name     string
		e        Engine
		wantWait bool
	}{{"pebble", pe, true}, {"memory", NewMemory(), false}} {
		t.Run(c.name, func(t *testing.T) {
			tx := NewTxn(c.e)
			for i := 0; i < 10; i++ {
				if err := tx.Set([]byte(fmt.Sprintf("k%d", i)), []byte(fmt.Sprintf("v%d", i))); err != nil {
					t.Fatal(err)
				}
			}
			wait, err := tx.CommitSyncLater()
			if err != nil {
				t.Fatal(err)
			}
			if (wait != nil) != c.wantWait {
				t.Fatalf("wait returned: %v, want %v", wait != nil, c.wantWait)
			}
			if v, err := c.e.Get([]byte("k7")); err != nil || string(v) != "v7" {
				t.Fatalf("Get k7 after apply = %q, %v", v, err)
			}
			if wait != nil {
				if err := wait(); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := tx.CommitSyncLater(); err != ErrClosed {
				t.Fatalf("second commit: %v, want ErrClosed", err)
			}
		})
	}
	if err := pe.Close(); err != nil {
		t.Fatal(err)
	}
	pe, err = OpenPebble(dir, PebbleOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer pe.Close()
	if v, err := pe.Get([]byte("k9")); err != nil || string(v) != "v9" {
		t.Fatalf("after reopen Get k9 = %q, %v", v, err)
	}
}
