package session

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/kvsql/kvsql/kv"
)

// newGatherSync is a groupSync over a memory engine (its syncs are free)
// whose count of running statements is *running and whose last sync took last.
func newGatherSync(t *testing.T, running *atomic.Int64, last time.Duration) *groupSync {
	eng := kv.NewMemory()
	t.Cleanup(func() { _ = eng.Close() })
	g := &groupSync{}
	g.init(eng, func(error) {}, nil)
	g.busy = running.Load
	g.lastSync.Store(int64(last))
	g.applied.Store(1)
	return g
}

// TestGroupCommitGather: a leader waits for the running statements of
// writing transactions to end, for at most half the last sync (bounded
// by maxGather), and stops waiting as soon as none runs.
func TestGroupCommitGather(t *testing.T) {
	t.Run("nobody running", func(t *testing.T) {
		var running atomic.Int64
		g := newGatherSync(t, &running, time.Hour)
		old := maxGather
		maxGather = time.Hour
		t.Cleanup(func() { maxGather = old })
		done := make(chan error, 1)
		go func() { done <- g.wait(1) }()
		select {
		case err := <-done:
			if err != nil {
				t.Fatal(err)
			}
		case <-time.After(time.Minute):
			t.Fatal("a leader with nobody running waited")
		}
		if g.durableSeq.Load() != 1 || g.count.Load() != 1 {
			t.Fatalf("durable %d after %d syncs, want 1 after 1", g.durableSeq.Load(), g.count.Load())
		}
	})
	t.Run("bounded", func(t *testing.T) {
		var running atomic.Int64
		running.Store(3) // never reach their commit
		g := newGatherSync(t, &running, 40*time.Millisecond)
		start := time.Now()
		if err := g.wait(1); err != nil {
			t.Fatal(err)
		}
		if el := time.Since(start); el < min(20*time.Millisecond, maxGather) {
			t.Fatalf("the leader synced after %v; it should wait min(last sync / 2, maxGather) for the running writers", el)
		}
		if g.durableSeq.Load() != 1 {
			t.Fatalf("durable %d, want 1", g.durableSeq.Load())
		}
	})
	t.Run("ends when nobody runs", func(t *testing.T) {
		var running atomic.Int64
		running.Store(1)
		g := newGatherSync(t, &running, time.Hour)
		old := maxGather
		maxGather = time.Hour
		t.Cleanup(func() { maxGather = old })
		done := make(chan error, 1)
		go func() { done <- g.wait(1) }()
		// The leader is gathering: it has not synced.
		for g.waiting.Load() == 0 {
			time.Sleep(time.Millisecond)
		}
		time.Sleep(20 * time.Millisecond)
		if g.count.Load() != 0 {
			t.Fatal("the leader synced while a writer was running")
		}
		// The writer reaches its commit: it waits for the same sync.
		running.Store(0)
		g.applied.Store(2)
		second := make(chan error, 1)
		go func() { second <- g.wait(2) }()
		for _, c := range []chan error{done, second} {
			select {
			case err := <-c:
				if err != nil {
					t.Fatal(err)
				}
			case <-time.After(time.Minute):
				t.Fatal("the leader still gathers after the last writer reached its commit")
			}
		}
		if g.durableSeq.Load() != 2 {
			t.Fatalf("durable %d, want 2", g.durableSeq.Load())
		}
	})
}
