package session

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kvsql/kvsql/kv"
)

// TestGroupSyncRetiresSnapshots: a published snapshot that a newer one
// replaces is not closed at the end of the sync that replaced it (that
// would delay its waiters' wake-up) but once the next sync is under way,
// by that sync's starter, on both paths (a lone committer's own sync and
// a group leader's); and, when no sync follows, by the idle timer. Close
// releases what is left.
func TestGroupSyncRetiresSnapshots(t *testing.T) {
	for _, c := range []struct {
		name string
		own  bool
		idle time.Duration
	}{{"own sync", true, time.Hour}, {"leader", false, time.Hour}, {"idle timer", true, 5 * time.Millisecond}} {
		t.Run(c.name, func(t *testing.T) {
			old := retireIdle
			retireIdle = c.idle
			t.Cleanup(func() { retireIdle = old })
			db, err := Open(Options{Dir: filepath.Join(t.TempDir(), "db")})
			if err != nil {
				t.Fatal(err)
			}
			db.sync.noOwnSync = !c.own
			s, err := db.Session("")
			if err != nil {
				t.Fatal(err)
			}
			exec := func(sql string) {
				t.Helper()
				if _, err := s.Exec(context.Background(), sql); err != nil {
					t.Fatalf("%s: %v", sql, err)
				}
			}
			exec("CREATE TABLE t (id INT PRIMARY KEY, n INT NOT NULL)")
			exec("INSERT INTO t VALUES (1, 0)")
			exec("UPDATE t SET n = 1 WHERE id = 1")
			first := db.sync.durableSnap.Load()
			exec("UPDATE t SET n = 2 WHERE id = 1")
			second := db.sync.durableSnap.Load()
			if first == nil || second == nil || first == second {
				t.Fatalf("published snapshots %p, %p: want two", first, second)
			}
			if c.idle > time.Second {
				db.sync.retired.Lock()
				held := slices.Contains(db.sync.retired.snaps, first)
				db.sync.retired.Unlock()
				if !held || first.refs.Load() <= 0 {
					t.Fatalf("the replaced snapshot was closed with the sync that replaced it (retired: %v, refs %d)", held, first.refs.Load())
				}
				exec("UPDATE t SET n = 3 WHERE id = 1")
				if n := first.refs.Load(); n != 0 {
					t.Fatalf("after the next sync the replaced snapshot has %d references, want 0", n)
				}
			} else {
				deadline := time.Now().Add(10 * time.Second)
				for first.refs.Load() != 0 || second.refs.Load() <= 0 {
					if time.Now().After(deadline) {
						t.Fatalf("idle: the replaced snapshot still has %d references (the current one %d)", first.refs.Load(), second.refs.Load())
					}
					time.Sleep(time.Millisecond)
				}
			}
			_ = s.Close()
			if err := db.Close(); err != nil {
				t.Fatal(err)
			}
			if n := second.refs.Load(); n != 0 {
				t.Fatalf("after Close a published snapshot has %d references, want 0", n)
			}
		})
	}
}

// gatedEngine is a memory engine whose Flush waits for a value on
// proceed and returns it, after sending on entered.
type gatedEngine struct {
	kv.Engine
	entered chan struct{}
	proceed chan error
}

func (e *gatedEngine) Flush() error {
	e.entered <- struct{}{}
	return <-e.proceed
}

// TestGroupSyncWakesWaiters: the waiters of a sync wake when it ends;
// those it covered return without leading, one of the others leads the
// next sync, which covers the rest; a failed sync fails its leader and
// every waiter, and every later wait (the error is sticky).
func TestGroupSyncWakesWaiters(t *testing.T) {
	eng := &gatedEngine{Engine: kv.NewMemory(), entered: make(chan struct{}), proceed: make(chan error)}
	t.Cleanup(func() { _ = eng.Close() })
	failErr := errors.New("sync failed")
	var failed atomic.Int64
	g := &groupSync{}
	g.init(eng, func(error) { failed.Add(1) }, nil)
	waitFor := func(seq uint64) chan error {
		c := make(chan error, 1)
		go func() { c <- g.wait(seq) }()
		return c
	}
	waiting := func(n int64) {
		t.Helper()
		deadline := time.Now().Add(10 * time.Second)
		for g.waiting.Load() != n {
			if time.Now().After(deadline) {
				t.Fatalf("%d waiters, want %d", g.waiting.Load(), n)
			}
			time.Sleep(time.Millisecond)
		}
	}
	result := func(c chan error, what string) error {
		t.Helper()
		select {
		case err := <-c:
			return err
		case <-time.After(10 * time.Second):
			t.Fatalf("%s: still waiting", what)
			return nil
		}
	}
	quiet := func(cs ...chan error) {
		t.Helper()
		time.Sleep(20 * time.Millisecond)
		for i, c := range cs {
			select {
			case err := <-c:
				t.Fatalf("waiter %d returned (%v) before its sync", i, err)
			default:
			}
		}
	}

	// Sync 1 covers seq 1, applied before it started; 2 and 3, applied
	// during it, wait for the next one.
	g.applied.Store(1)
	a := waitFor(1)
	<-eng.entered
	g.applied.Store(3)
	b, c := waitFor(2), waitFor(3)
	waiting(3)
	quiet(a, b, c)
	eng.proceed <- nil
	if err := result(a, "seq 1"); err != nil {
		t.Fatal(err)
	}
	<-eng.entered // the next leader's sync
	quiet(b, c)
	// A waiter covered by a sync that is done returns at once.
	if err := result(waitFor(1), "seq 1 again"); err != nil {
		t.Fatal(err)
	}
	eng.proceed <- nil
	for i, ch := range []chan error{b, c} {
		if err := result(ch, fmt.Sprintf("seq %d", i+2)); err != nil {
			t.Fatal(err)
		}
	}
	if d, n := g.durableSeq.Load(), g.count.Load(); d != 3 || n != 2 {
		t.Fatalf("durable %d after %d syncs, want 3 after 2", d, n)
	}

	// A failed sync: its leader and the waiter it would not have covered
	// both get the error.
	g.applied.Store(4)
	d := waitFor(4)
	<-eng.entered
	g.applied.Store(5)
	e := waitFor(5)
	waiting(2)
	eng.proceed <- failErr
	for _, ch := range []chan error{d, e} {
		if err := result(ch, "after a failed sync"); !errors.Is(err, failErr) {
			t.Fatalf("got %v, want the sync's error", err)
		}
	}
	if err := result(waitFor(6), "after the failure"); !errors.Is(err, failErr) {
		t.Fatalf("a later wait got %v, want the sticky error", err)
	}
	if failed.Load() != 1 {
		t.Fatalf("onFail called %d times, want 1", failed.Load())
	}
}
