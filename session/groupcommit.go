package session

import (
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kvsql/kvsql/kv"
)

// groupSync makes applied commits durable, many per WAL sync (group
// commit).
//
// Commits are applied to the engine unsynced, in seq order, under DB.mu;
// each then calls wait(seq) outside the mutex. The first waiter finding
// no sync under way becomes the leader: it notes the highest applied seq,
// syncs the WAL once (kv.Engine.Flush) and publishes that seq as durable.
// Since the engine's WAL is written in apply order, a sync issued after
// commit s was applied covers s and every commit before it. Commits
// applied while a sync runs wait for it, then the next leader syncs them
// all at once: under load, one sync serves everyone who committed during
// the previous one.
//
// A leader first gathers (gather): while statements of writing
// transactions are being executed (not waiting for a row lock; a
// transaction idle between statements does not count), it waits for them
// to end, for at most half the last sync's duration. Without it a client released by sync k runs its
// next transaction during sync k+1, which its leader began the moment k
// ended, and commits in sync k+2: each client committed at most every
// other sync. PostgreSQL's commit_delay is the same idea with a fixed
// delay; here the wait ends as soon as nobody else is running, so a lone
// client (or one whose partners all wait) never waits.
type groupSync struct {
	eng kv.Engine
	// applied is the highest seq applied to the engine (written under
	// DB.mu after the apply).
	applied atomic.Uint64
	// count is the number of syncs done; owns, those of lone committers
	// (waitOwn).
	count, owns atomic.Uint64
	// syncNanos is the time spent in those syncs, summed (nanoseconds):
	// with the wall time it gives the idle time between syncs per sync,
	// the hand-over from one sync to the next (TxnStats.SyncTime).
	syncNanos atomic.Int64
	// durableSeq mirrors durable for readers that take no lock (written
	// under mu, only ever increased).
	durableSeq atomic.Uint64
	onFail     func(error)
	// snapshot, if set, is called by each leader before its sync: it
	// returns the applied seq and a shared snapshot of exactly the commits
	// up to it, with a reference for groupSync. Once the sync succeeds the
	// snapshot is published as durableSnap.
	snapshot func() (uint64, *sharedSnap)
	// durableSnap is a snapshot of exactly the commits up to the durable
	// seq of the sync that published it (nil before the first sync): the
	// newest state that may be shown to readers without waiting for a sync.
	durableSnap atomic.Pointer[sharedSnap]

	mu sync.Mutex
	// round, when not nil, is closed when the sync under way ends: its
	// waiters wake without taking mu, and only those whose seq it did not
	// cover take mu again, one of them to lead the next sync. The first
	// waiter of a sync makes it (a lone committer's sync has none).
	// REQUIRES: mu.
	round chan struct{}
	// durable: every commit with seq <= durable is synced. REQUIRES: mu.
	durable uint64
	// syncing is set while a leader runs a sync. REQUIRES: mu.
	syncing bool
	// err is the first sync error; it is sticky, since after a failed
	// sync the WAL's state on disk is unknown. REQUIRES: mu.
	err error

	// busy, if set, returns the number of statements of writing
	// transactions being executed and not waiting for a row lock (see
	// gather, DB.writersRunning).
	busy func() int64
	// waiting counts the goroutines in wait's slow path (leader
	// included); tests read it to see a leader arrive.
	waiting atomic.Int64
	// arrive wakes a gathering leader when a goroutine enters wait, a
	// statement ends or a lock wait begins (nudge); it holds at most one
	// wake-up.
	arrive chan struct{}
	// lastSync is the duration of the last sync, in nanoseconds.
	lastSync atomic.Int64
	// noOwnSync turns lone committers' own syncs off (alone is false):
	// set by tests that slow eng's Flush, which those syncs bypass.
	noOwnSync bool

	// retired holds the published snapshots that a newer one replaced,
	// each with the reference durableSnap held (see retire).
	retired struct {
		sync.Mutex
		// spare is an emptied snaps kept for its array.
		snaps, spare []*sharedSnap
		// timer releases them when no sync started since it was armed
		// retireIdle ago (armed: it is pending). It is not moved at each
		// retire: a timer's Reset per commit cost more than the release.
		timer *time.Timer
		armed bool
		// releasing is held while snapshots are released, so that close
		// waits for a release the timer or a sync starter has begun: the
		// engine must not close under a snapshot's open iterators.
		releasing sync.Mutex
	}
}

// retireIdle is how long retired snapshots wait for the next sync to
// start before the timer releases them (a variable for tests).
var retireIdle = 20 * time.Millisecond

// maxGather bounds a leader's gathering wait whatever the syncs cost (a
// variable for tests).
var maxGather = 2 * time.Millisecond

func (g *groupSync) init(eng kv.Engine, onFail func(error), snapshot func() (uint64, *sharedSnap)) {
	g.eng = eng
	g.onFail = onFail
	g.snapshot = snapshot
	g.arrive = make(chan struct{}, 1)
}

// nudge wakes a gathering leader, if any, to count the running
// statements again.
func (g *groupSync) nudge() {
	select {
	case g.arrive <- struct{}{}:
	default:
	}
}

// gather waits, before a leader reads its target, until no statement of
// a writing transaction is running or half the last sync's duration (at
// most maxGather) has passed. It runs without g.mu.
func (g *groupSync) gather() {
	if g.busy == nil || g.busy() <= 0 {
		return
	}
	limit := min(time.Duration(g.lastSync.Load())/2, maxGather)
	if limit <= 0 {
		return
	}
	timer := time.NewTimer(limit)
	defer timer.Stop()
	for g.busy() > 0 {
		select {
		case <-g.arrive:
		case <-timer.C:
			return
		}
	}
}

// close releases the published snapshot and the retired ones, once a
// release under way on another goroutine (the timer's) has finished.
func (g *groupSync) close() {
	g.durableSnap.Swap(nil).release()
	g.retired.Lock()
	if g.retired.timer != nil {
		g.retired.timer.Stop()
	}
	g.retired.Unlock()
	g.releaseRetired()
}

// retire takes over the reference to s, a published snapshot a newer one
// replaced (nil does nothing), and releases it later: the last reference
// to a snapshot closes it (Pebble's snapshot and the iterators it keeps,
// tens of microseconds), which would otherwise happen between the end of
// a sync and the wake-up of its waiters. The next sync's starter releases
// it once the disk is syncing (releaseRetired), when the CPU has nothing
// better to do; a timer does if no sync starts for retireIdle.
func (g *groupSync) retire(s *sharedSnap) {
	if s == nil {
		return
	}
	g.retired.Lock()
	g.retired.snaps = append(g.retired.snaps, s)
	if !g.retired.armed {
		g.retired.armed = true
		if g.retired.timer == nil {
			g.retired.timer = time.AfterFunc(retireIdle, g.idleRelease)
		} else {
			g.retired.timer.Reset(retireIdle)
		}
	}
	g.retired.Unlock()
}

// idleRelease is the timer's releaseRetired.
func (g *groupSync) idleRelease() {
	g.retired.Lock()
	g.retired.armed = false
	g.retired.Unlock()
	g.releaseRetired()
}

// releaseRetired releases the retired snapshots.
func (g *groupSync) releaseRetired() {
	g.retired.releasing.Lock()
	defer g.retired.releasing.Unlock()
	g.retired.Lock()
	snaps := g.retired.snaps
	if len(snaps) == 0 {
		g.retired.Unlock()
		return
	}
	g.retired.snaps, g.retired.spare = g.retired.spare[:0], nil
	g.retired.Unlock()
	for i, s := range snaps {
		s.release()
		snaps[i] = nil
	}
	g.retired.Lock()
	g.retired.spare = snaps[:0]
	g.retired.Unlock()
}

// wait returns once every commit with seq <= seq is durable, syncing the
// WAL itself if no other goroutine is; or returns the sync error. When
// seq is already durable it returns at once without taking g.mu.
func (g *groupSync) wait(seq uint64) error {
	if g.durableSeq.Load() >= seq {
		return nil
	}
	g.waiting.Add(1)
	defer g.waiting.Add(-1)
	g.nudge()
	g.mu.Lock()
	for g.durable < seq {
		if g.err != nil {
			err := g.err
			g.mu.Unlock()
			return err
		}
		if g.syncing {
			// Wait for the sync under way without holding mu: the durable
			// seq it published tells, without mu, whether it covered seq.
			if g.round == nil {
				g.round = make(chan struct{})
			}
			round := g.round
			g.mu.Unlock()
			<-round
			if g.durableSeq.Load() >= seq {
				return nil
			}
			g.mu.Lock()
			continue
		}
		// Become the leader. target is read before the sync starts, so
		// every commit up to it is already in the WAL the sync flushes.
		g.syncing = true
		g.mu.Unlock()
		g.gather()
		var target uint64
		var snap *sharedSnap
		if g.snapshot != nil {
			target, snap = g.snapshot()
		} else {
			target = g.applied.Load()
		}
		err := g.timedSync(g.startSync)
		g.mu.Lock()
		g.syncing = false
		g.endSyncLocked(target, snap, err)
	}
	g.mu.Unlock()
	return nil
}

// startSync syncs the engine's WAL for a leader. With a kv.SyncStarter
// it starts the sync, releases the retired snapshots while the disk
// syncs (nobody waits for this goroutine's CPU then), and waits; other
// engines release them first and Flush.
func (g *groupSync) startSync() error {
	wait := g.eng.Flush
	if ss, ok := g.eng.(kv.SyncStarter); ok {
		w, err := ss.StartSync()
		if err != nil {
			return err
		}
		wait = w
	}
	g.releaseRetired()
	return wait()
}

// publishLocked makes seq the durable seq and snap, the state of
// exactly the commits up to seq, the published snapshot, unless a later
// seq is already durable (a lone committer's own sync, waitOwn, may end
// after a leader's that began later); it takes over snap's reference.
// snap is published first: whoever sees durableSeq >= s finds a snapshot
// at s or later.
// REQUIRES: g.mu held.
func (g *groupSync) publishLocked(seq uint64, snap *sharedSnap) {
	if seq <= g.durable {
		g.retire(snap)
		return
	}
	g.retire(g.durableSnap.Swap(snap))
	g.durable = seq
	g.durableSeq.Store(seq)
}

// alone reports whether a commit about to be applied would be synced by
// itself anyway: nobody waits for a sync (no leader, no follower, no
// other lone committer) and no statement of a writing transaction is
// running (a commit runs after its statement has left DB.executing), so
// a leader would not gather anyone either. Such a commit asks the
// engine to sync with its apply (DB.commit, kv.Txn.CommitSyncLater)
// instead of applying unsynced and then leading a sync of its own: one
// pass through the engine's commit pipeline and one wake-up of its WAL
// writer instead of two, no gathering check. A wrong guess costs only
// batching: both ways are durable before COMMIT answers.
func (g *groupSync) alone() bool {
	return !g.noOwnSync && g.waiting.Load() == 0 && (g.busy == nil || g.busy() <= 0)
}

// waitOwn waits for the sync a lone committer's apply started (syncWait)
// and then publishes seq, its commit's, as durable with snap, the shared
// snapshot of exactly the commits up to seq (taken under DB.mu right
// after the apply). Since the WAL is written in apply order, the sync
// covers every commit before seq too. It returns the sync's error, which
// becomes the sticky one, as a leader's.
func (g *groupSync) waitOwn(seq uint64, syncWait func() error, snap *sharedSnap) error {
	// Counted as waiting: a commit applied meanwhile joins the group's
	// path, whose sync the engine runs after this one.
	g.waiting.Add(1)
	// The engine is syncing since the apply: a good moment for this.
	g.releaseRetired()
	err := g.timedSync(syncWait)
	g.owns.Add(1)
	g.waiting.Add(-1)
	g.mu.Lock()
	defer g.mu.Unlock()
	g.endSyncLocked(seq, snap, err)
	return err
}

// timedSync runs sync (engineCall), counting it and keeping its time.
func (g *groupSync) timedSync(sync func() error) error {
	began := time.Now()
	err := engineCall(sync)
	took := int64(time.Since(began))
	g.lastSync.Store(took)
	g.syncNanos.Add(took)
	g.count.Add(1)
	return err
}

// endSyncLocked ends a sync of the commits up to seq: its error becomes
// the store's sticky one, or seq becomes durable with snap (taking over
// its reference); then the waiters wake.
// REQUIRES: g.mu held.
func (g *groupSync) endSyncLocked(seq uint64, snap *sharedSnap, err error) {
	if err != nil {
		g.err = err
		g.onFail(err)
		snap.release()
	} else {
		g.publishLocked(seq, snap)
	}
	if g.round != nil {
		close(g.round)
		g.round = nil
	}
}

// engineCall runs f, turning a panic into an error. Pebble reports a
// failed WAL write or sync by calling its logger's Fatalf, which package
// kv turns into a panic; its commit pipeline is unusable afterwards. The
// caller records the error as the store's sticky failure (DB.failed), so
// the client sees a 58030 error (53100 for a full disk), no later commit is attempted, and the
// next Open recovers the store from its WAL.
func engineCall(f func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			if e, ok := r.(error); ok {
				err = fmt.Errorf("storage engine failure: %w", e)
			} else {
				err = fmt.Errorf("storage engine failure: %v", r)
			}
		}
	}()
	return f()
}
