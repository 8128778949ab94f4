package session

import (
	"errors"
	"fmt"
	"os"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kvsql/kvsql/catalog"
	"github.com/kvsql/kvsql/kv"
	"github.com/kvsql/kvsql/pgerror"
)

// Options configure Open.
type Options struct {
	// Dir is the Pebble store's directory (created if missing); ignored
	// with Memory.
	Dir string
	// Memory keeps the store in memory (google/btree engine).
	Memory bool
	// NoSync acknowledges commits before the WAL is synced (--sync=off):
	// a crash may lose the latest acknowledged commits (never a part of
	// one, and never a commit without the ones before it).
	NoSync bool
	// WorkMem is the per-operator memory budget in bytes; 0 means 64 MiB.
	WorkMem int64
	// MaxQueryMem caps the memory one statement's operators hold at once
	// (sorts, hash tables, buffers that cannot spill, subquery results);
	// past it the statement fails with 53200 and other sessions go on. 0
	// means a quarter of the machine's memory.
	MaxQueryMem int64
	// MaxValueSize caps one value a statement builds (repeat, ||,
	// string_agg, ...) or receives as a parameter: past it 54000. 0 means
	// 256 MiB (eval.DefaultMaxValueSize).
	MaxValueSize int64
	// TempDir holds spill files; "" means the system's.
	TempDir string
	// CacheSize is Pebble's block cache in bytes; 0 means the kv default.
	CacheSize int64
	// Ballast is the size in bytes of the emergency ballast file kept in
	// Dir (kv.PebbleOptions.Ballast); 0 means none.
	Ballast int64
	// Engine, if set, is used instead of opening one (tests). Close closes
	// it.
	Engine kv.Engine
	// DisabledRules names planner rules every session skips (the names
	// of planner.Planner.Disabled, such as "index_select"); differential
	// tests use it. Not changed after Open.
	DisabledRules map[string]bool
	// NoQueryCache turns off the sessions' caches of simple-protocol
	// plans (querycache.go); differential tests compare with it.
	NoQueryCache bool
	// VectorMinRows is planner.Planner.VectorMinRows for every session:
	// the estimated table size from which plans run in batches (0: the
	// planner's default; negative: every size, for tests).
	VectorMinRows float64
}

// maxCommitLog bounds the commit log. A transaction whose snapshot is
// older than the log's horizon cannot be validated and fails with 40001
// if it wrote; in practice only a transaction left open for a very long
// time while others commit hits the bound.
const maxCommitLog = 1 << 16

// DB is an open kvsql store. It is safe for concurrent use by many
// sessions.
type DB struct {
	eng  kv.Engine
	opts Options

	// mu guards the committed state that commits change. Commits are
	// validated and applied to the engine while mu is held, so the order
	// of seq is the order of the engine's batches and a snapshot taken
	// under mu holds exactly the commits up to mu.seq.
	mu struct {
		sync.Mutex
		cat *catalog.Catalog
		// seq counts applied commits.
		seq uint64
		// log holds the write sets of the commits with seq > horizon, in
		// seq order: what validation compares read sets with. Entries at
		// or below the oldest active snapshot are pruned.
		log     []committed
		horizon uint64
		// active counts open transactions by snapshot seq.
		active map[uint64]int
	}
	// cat mirrors mu.cat for readers that take no lock (written under mu).
	cat atomic.Pointer[catalog.Catalog]
	// snap is the newest shared engine snapshot, or nil (see sharedSnap).
	// It is replaced only under mu.
	snap atomic.Pointer[sharedSnap]
	// sync makes applied commits durable, many at a time.
	sync groupSync
	// failed holds the first engine write or sync error. After it the
	// store's durable state is uncertain: every commit is refused until
	// the store is reopened (recovery replays the WAL).
	failed atomic.Pointer[error]

	stats struct {
		commits, conflicts, refreshes, restarts, lockWaits, deadlocks atomic.Uint64
	}

	// executing counts the statements of writing (registered)
	// transactions being executed (runRestarting, restarts included), and
	// lockWaiters those waiting for a row lock (a granted waiter stops
	// counting at the grant, lockTable.grantLocked): what a group-commit
	// leader's gathering wait counts (writersRunning).
	executing, lockWaiters atomic.Int64

	// applying is non-zero while a commit's writes may be in the engine
	// without its seq in sync.applied or its catalog in cat (applyWith,
	// under mu): what lets a group-commit leader take its snapshot
	// without mu (syncSnapshot).
	applying atomic.Int32

	// locks are the row locks of open transactions (locks.go).
	locks lockTable
	// advisory are the sessions' advisory locks (advisory.go).
	advisory advisoryTable
	// notify are the sessions' LISTENs (notify.go).
	notify notifyHub
	// started is when the store was opened (pg_postmaster_start_time);
	// xids hands out transaction ids (txid_current).
	started time.Time
	xids    atomic.Int64

	// foreign holds the open stores of foreign databases (foreign.go).
	foreign foreignStores

	// seqMu serializes sequence (counter) reservations.
	seqMu     sync.Mutex
	seqCache  map[seqKey]*seqBlock
	rowCounts sync.Map // table ID → *atomic.Int64 (estimates for the planner)
	nextPID   atomic.Uint32
	sessions  registry // open sessions by process ID (activity.go)
	closed    atomic.Bool
}

// committed is one commit's entry in the commit log.
type committed struct {
	seq uint64
	// writes are the keys the commit wrote, sorted by Start.
	writes []kv.KeySpan
	// change is what the commit did to the catalog (nil: nothing), and
	// ddlDB the database whose objects it changed ("" for all).
	change *catChange
	ddlDB  string
	// db is the database of the transaction that committed ("": none
	// set): a broad catalog change conflicts with every commit in its own
	// database (validToLocked).
	db string
}

// Open opens (or creates) a store.
func Open(opts Options) (*DB, error) {
	db := &DB{opts: opts, seqCache: map[seqKey]*seqBlock{}, started: time.Now()}
	// Transaction ids count on from the clock's microseconds, so they
	// grow across restarts too (txid_current).
	db.xids.Store(db.started.UnixMicro())
	eng := opts.Engine
	if eng == nil {
		var err error
		if opts.Memory {
			eng = kv.NewMemory()
		} else {
			if opts.Dir == "" {
				return nil, errors.New("kvsql: no data directory given")
			}
			if err := os.MkdirAll(opts.Dir, 0o755); err != nil {
				return nil, fmt.Errorf("kvsql: %w", err)
			}
			eng, err = kv.OpenPebble(opts.Dir, kv.PebbleOptions{CacheSize: opts.CacheSize, Ballast: opts.Ballast, OnDamage: db.logDamage})
			if err != nil {
				return nil, err
			}
		}
	}
	cat, err := catalog.Open(eng)
	if err != nil {
		_ = eng.Close()
		if errors.Is(err, kv.ErrCorruption) {
			return nil, fmt.Errorf("the catalog cannot be read, the store is damaged: %w (stop here: run `kvsql check` and restore the data directory from a backup; see docs/operations.md)", err)
		}
		return nil, err
	}
	if c, ok := eng.(kv.Claimer); ok {
		// A store other processes can open: this server must be its only
		// writer (validation and the catalog cache live in this process).
		if err := c.Claim(); err != nil {
			_ = eng.Close()
			return nil, err
		}
	}
	db.eng = eng
	db.mu.cat = cat
	db.cat.Store(cat)
	db.mu.active = map[uint64]int{}
	db.locks.init(&db.lockWaiters)
	db.sync.init(eng, db.setFailed, db.syncSnapshot)
	db.sync.busy = db.writersRunning
	if err := db.dropOrphanTempSchemas(); err != nil {
		_ = db.Close()
		return nil, err
	}
	return db, nil
}

// Engine returns the underlying key-value engine.
func (db *DB) Engine() kv.Engine { return db.eng }

// Catalog returns the current committed catalog.
func (db *DB) Catalog() *catalog.Catalog { return db.cat.Load() }

// Close closes the store. Sessions must be closed first.
func (db *DB) Close() error {
	if db.closed.Swap(true) {
		return nil
	}
	db.mu.Lock()
	stale := db.snap.Swap(nil)
	db.mu.Unlock()
	stale.release()
	db.sync.close()
	db.foreign.closeAll()
	return db.eng.Close()
}

// TxnStats counts transaction outcomes since Open.
type TxnStats struct {
	// Commits is the number of transactions that wrote and committed.
	Commits uint64
	// Conflicts is the number of commits refused with 40001 (autocommit
	// retries included).
	Conflicts uint64
	// Syncs is the number of WAL syncs; Commits/Syncs is the average
	// group-commit size.
	Syncs uint64
	// SyncTime is the time spent in those syncs, summed (syncs of lone
	// committers may overlap a leader's). Over a busy interval, the wall
	// time minus SyncTime, per sync, is the hand-over between one sync
	// and the next (waking the next leader, its gathering wait, its
	// snapshot and the engine's commit pipeline).
	SyncTime time.Duration
	// Refreshes is the number of times an explicit transaction moved its
	// snapshot forward at a statement boundary (txn.refresh).
	Refreshes uint64
	// Restarts is the number of statements run again after meeting a row
	// locked or changed by another transaction (runRestarting).
	Restarts uint64
}

// TxnStats returns the counters of transaction outcomes.
func (db *DB) TxnStats() TxnStats {
	return TxnStats{
		Commits:   db.stats.commits.Load(),
		Conflicts: db.stats.conflicts.Load(),
		Syncs:     db.sync.count.Load(),
		SyncTime:  time.Duration(db.sync.syncNanos.Load()),
		Refreshes: db.stats.refreshes.Load(),
		Restarts:  db.stats.restarts.Load(),
	}
}

// begin starts a writing transaction. Its snapshot holds every commit
// acknowledged before the call, and, unless NoSync, only durable
// commits, so no transaction reads a commit that a crash could still
// take away.
//
// It begins at the snapshot the last WAL sync published
// (durableShared), without waiting, when there is one: as PostgreSQL's,
// whose commits become visible only once their WAL record is flushed.
// Commits applied since then are not seen; a row lock taken on a row one
// of them wrote restarts the statement at the newest state
// (acquireLock), which is where waiting for their sync belongs. Without
// a published snapshot (NoSync, the first commits, a catalog change not
// yet durable) it is beginNewest.
func (db *DB) begin() *txn { return db.beginFrom(0) }

// beginFrom is begin at a snapshot that holds at least the commits up to
// seq floor: the durable one if it does, else the newest (beginNewest,
// which waits for their sync).
//
// A session's retry after a serialization failure begins here with the
// seq applied at the failure (Session.Fail): the commit it lost to is
// then in its snapshot, as PostgreSQL's safe-retry rule promises. At the
// durable snapshot instead, a retry started before that commit's sync
// ended would read the same stale row and fail again, as often as it can
// retry in one sync cycle.
func (db *DB) beginFrom(floor uint64) *txn {
	d := db.durableShared()
	if d != nil && d.seq < floor {
		d.release()
		d = nil
	}
	if d == nil {
		return db.beginNewest()
	}
	db.mu.Lock()
	// The commit log must reach back to d for validation; a catalog
	// change applied since the check above is not in d.
	if d.seq < db.mu.horizon || d.cat != db.mu.cat {
		db.mu.Unlock()
		d.release()
		return db.beginNewest()
	}
	db.mu.active[d.seq]++
	db.mu.Unlock()
	return &txn{db: db, kv: kv.NewTxnOn(db.eng, &snapRef{s: d}), snapSeq: d.seq, cat: d.cat, baseCat: d.cat, registered: true}
}

// beginNewest starts a transaction at the newest applied state. Unless
// NoSync, it returns only once every commit in its snapshot is durable
// (the wait is at most the WAL sync already under way and the next).
// A retry after a serialization failure begins here, so a transaction
// that conflicts with every commit after its snapshot (DDL) does not
// meet the same commits again.
func (db *DB) beginNewest() *txn {
	db.mu.Lock()
	snap, stale := db.snapshotLocked()
	seq, cat := db.mu.seq, db.mu.cat
	db.mu.active[seq]++
	db.mu.Unlock()
	stale.release()
	t := &txn{db: db, kv: kv.NewTxnOn(db.eng, snap), snapSeq: seq, cat: cat, baseCat: cat, registered: true}
	if !db.opts.NoSync {
		// An error here is the sticky db.failed one, which commit reports.
		_ = db.sync.wait(t.snapSeq)
	}
	return t
}

// durableShared returns the snapshot the last WAL sync published, with a
// reference for the caller, when it holds every acknowledged commit (its
// seq is at least the durable seq) and the committed catalog; else nil
// (always with NoSync, where nothing is published).
func (db *DB) durableShared() *sharedSnap {
	if db.opts.NoSync {
		return nil
	}
	floor := db.sync.durableSeq.Load()
	d := db.sync.durableSnap.Load()
	if d == nil || d.seq < floor || d.cat != db.cat.Load() || !d.acquire() {
		return nil
	}
	return d
}

// beginRead starts a read-only transaction: one that ends with rollback
// and never commits writes (commit refuses them), such as an autocommit
// query. It reads a consistent snapshot that holds every commit
// acknowledged before the call and, unless NoSync, only durable commits.
//
// It is the fast path of read-only autocommit statements: it reuses the
// newest shared snapshot without taking db.mu when that snapshot already
// holds every acknowledged commit, and it does not register in the
// commit-log bookkeeping (mu.active), since it is never validated.
//
// reuse, if not nil, is an ended transaction of an earlier beginRead
// that nothing uses any more (Session.endRead): its memory is reused.
func (db *DB) beginRead(reuse *txn) *txn {
	// Every commit acknowledged before this call has seq <= floor: with
	// sync, a commit is acknowledged once durable; without, once applied.
	var floor uint64
	if db.opts.NoSync {
		floor = db.sync.applied.Load()
	} else {
		floor = db.sync.durableSeq.Load()
	}
	// The snapshot must also carry the current catalog: statements are
	// planned against DB.Catalog (Session.catalog). Best is the one the
	// last WAL sync published: it is durable, so no wait.
	cat := db.cat.Load()
	if d := db.sync.durableSnap.Load(); d != nil && d.seq >= floor && d.cat == cat && d.acquire() {
		return newReadTxn(db, d, reuse)
	}
	c := db.snap.Load()
	if c == nil || c.seq < floor || c.cat != cat || !c.acquire() {
		db.mu.Lock()
		var stale *sharedSnap
		c, stale = db.sharedLocked()
		db.mu.Unlock()
		stale.release()
	}
	t := newReadTxn(db, c, reuse)
	if !db.opts.NoSync {
		// Immediate unless c was just taken above while its newest commits
		// were still being synced. An error is the sticky db.failed one.
		_ = db.sync.wait(c.seq)
	}
	return t
}

// newReadTxn is beginRead's transaction over s, whose reference it takes
// over: reuse made new, or a new one.
func newReadTxn(db *DB, s *sharedSnap, reuse *txn) *txn {
	t, k := reuse, (*kv.Txn)(nil)
	if t == nil {
		t = &txn{}
	} else {
		k = t.kv // ended: Reopen below
	}
	*t = txn{db: db, snapSeq: s.seq, cat: s.cat, baseCat: s.cat, ref: snapRef{s: s}}
	if k == nil || k.Reopen(&t.ref) != nil {
		k = kv.NewTxnOn(db.eng, &t.ref)
	}
	t.kv = k
	t.snapRead.snap = &t.ref
	return t
}

// sharedSnap is an engine snapshot holding exactly the commits 1..seq,
// shared by every transaction that begins at seq (all of them read it
// concurrently, which a kv.Snapshot allows). Taking a Pebble snapshot and
// closing it costs more than a point read (Close may schedule a
// compaction); between two commits every transaction reads the same one.
//
// The cache (DB.snap) holds one reference while the snapshot is current;
// each transaction reading it holds one more, through a snapRef. The
// engine snapshot is closed when the last reference goes.
type sharedSnap struct {
	snap kv.Snapshot
	seq  uint64
	// cat is the committed catalog at seq.
	cat  *catalog.Catalog
	refs atomic.Int64
}

// acquire adds a reference unless every reference is already gone (the
// snapshot is closed or closing).
func (s *sharedSnap) acquire() bool {
	for {
		n := s.refs.Load()
		if n <= 0 {
			return false
		}
		if s.refs.CompareAndSwap(n, n+1) {
			return true
		}
	}
}

// release drops a reference, closing the engine snapshot with the last.
// A nil s does nothing.
func (s *sharedSnap) release() {
	if s != nil && s.refs.Add(-1) == 0 {
		_ = s.snap.Close()
	}
}

// sharedLocked returns the shared snapshot at the current seq with a
// reference for the caller, taking a new engine snapshot and installing
// it as DB.snap if the cached one is older. The replaced snapshot is
// returned for the caller to release after unlocking (closing a Pebble
// snapshot is not free and db.mu serializes commits).
// REQUIRES: db.mu held.
func (db *DB) sharedLocked() (c, stale *sharedSnap) {
	if c = db.snap.Load(); c != nil && c.seq == db.mu.seq && c.acquire() {
		return c, nil
	}
	c = &sharedSnap{snap: db.eng.NewSnapshot(), seq: db.mu.seq, cat: db.mu.cat}
	c.refs.Store(2) // the cache's and the caller's
	return c, db.snap.Swap(c)
}

// syncSnapshot is groupSync's snapshot hook: the applied seq and the
// shared snapshot at it, with a reference for the caller. It first tries
// without db.mu (unlockedSnapshot), which the leader would otherwise
// wait for behind beginning and committing transactions.
func (db *DB) syncSnapshot() (uint64, *sharedSnap) {
	if c := db.unlockedSnapshot(); c != nil {
		return c.seq, c
	}
	db.mu.Lock()
	c, stale := db.sharedLocked()
	db.mu.Unlock()
	stale.release()
	return c.seq, c
}

// unlockedSnapshot returns, without db.mu, a shared snapshot of exactly
// the commits up to the applied seq with a reference for the caller, or
// nil when a commit was being applied meanwhile (the caller then takes
// db.mu). It is exact because applyWith raises db.applying before the
// engine sees a commit's writes and lowers it only after the seq and the
// catalog moved: if applying was zero before and after the engine
// snapshot and the applied seq did not move, no commit's writes were in
// the engine without being counted in seq, and none was added. The
// snapshot is not installed as db.snap (that is replaced only under mu).
func (db *DB) unlockedSnapshot() *sharedSnap {
	if db.applying.Load() != 0 {
		return nil
	}
	seq := db.sync.applied.Load()
	cat := db.cat.Load()
	if c := db.snap.Load(); c != nil && c.seq == seq && c.cat == cat && c.acquire() {
		if db.applying.Load() == 0 && db.sync.applied.Load() == seq {
			return c
		}
		c.release()
		return nil
	}
	snap := db.eng.NewSnapshot()
	if db.applying.Load() != 0 || db.sync.applied.Load() != seq || db.cat.Load() != cat {
		_ = snap.Close()
		return nil
	}
	c := &sharedSnap{snap: snap, seq: seq, cat: cat}
	c.refs.Store(1)
	return c
}

// snapshotLocked is sharedLocked as a kv.Snapshot for a kv.Txn.
// REQUIRES: db.mu held.
func (db *DB) snapshotLocked() (snap kv.Snapshot, stale *sharedSnap) {
	c, stale := db.sharedLocked()
	return &snapRef{s: c}, stale
}

// snapRef is one transaction's reference to a sharedSnap; its Close
// releases the reference (once).
type snapRef struct {
	s      *sharedSnap
	closed bool
}

var _ kv.Snapshot = (*snapRef)(nil)

// Get implements kv.Reader.
func (r *snapRef) Get(key []byte) ([]byte, error) {
	if r.closed {
		return nil, kv.ErrClosed
	}
	return r.s.snap.Get(key)
}

// NewIter implements kv.Reader.
func (r *snapRef) NewIter(opts kv.IterOptions) (kv.Iterator, error) {
	if r.closed {
		return nil, kv.ErrClosed
	}
	return r.s.snap.NewIter(opts)
}

// Close implements kv.Snapshot.
func (r *snapRef) Close() error {
	if r.closed {
		return kv.ErrClosed
	}
	r.closed = true
	r.s.release()
	return nil
}

// errSerialization is returned when a transaction's reads were changed by
// a transaction that committed after it began.
var errSerialization = pgerror.New(pgerror.SerializationFailure,
	"could not serialize access due to read/write dependencies among transactions")

// commit validates and applies t, then waits until it is durable.
//
// Validation is backward OCC: no key range t read may have been written
// by a transaction that committed after t's snapshot, and a catalog
// change on either side conflicts with the commits of the other that
// touched what it changed (catChange). A catalog change applied after
// another it did not see installs the catalog read back from the store,
// which holds both. A validated transaction is equivalent to running alone at its commit
// point, so the order of seq is a serial order of all writing
// transactions. A transaction that wrote nothing commits without
// validation: it read one consistent, durable snapshot, i.e. it runs at
// its snapshot's point of that order.
//
// t is ended whatever the outcome.
func (db *DB) commit(t *txn) error {
	work := t.notifyWork // commitTxn's rollback of a read-only t drops it
	err := db.commitTxn(t)
	if err == nil && work != nil {
		db.notifyCommitted(work) // notify.go
	}
	t.notifyWork = nil
	return err
}

// commitTxn is commit without the notifications.
func (db *DB) commitTxn(t *txn) error {
	defer db.releaseTxnAdvisory(t) // advisory.go, once t has ended
	if t.foreignPending() {
		return db.commitForeign(t) // foreign.go
	}
	// The deferred constraint checks run first, against everything t
	// wrote; one that fails aborts t with its error.
	if err := t.deferred.Check(t.kv); err != nil {
		db.rollback(t)
		return err
	}
	if t.kv.Len() == 0 && !t.catChanged {
		db.rollback(t)
		return nil
	}
	if !t.registered {
		db.rollback(t)
		return pgerror.New(pgerror.Internal, "a read-only transaction tried to commit writes")
	}
	// Sorting is done before taking the mutex: it is t's own data, and
	// so is its catalog change.
	writes, reads := t.commitSpans()
	change := t.catalogChange(writes)

	// A lone committer starts its own sync with its apply (see
	// groupSync.alone); a catalog change takes the group's path, whose
	// published snapshot is taken after the catalog is installed.
	own := !db.opts.NoSync && !t.catChanged && db.sync.alone()
	db.mu.Lock()
	seq, ownWait, err := db.applyLocked(t, change, reads, writes, own)
	var snap, stale *sharedSnap
	if ownWait != nil {
		// Exactly the commits up to seq: published once seq is durable.
		snap, stale = db.sharedLocked()
	}
	db.finishLocked(t.snapSeq)
	db.mu.Unlock()
	stale.release()
	// Applied (or refused): a waiter may now read what t wrote. It reads
	// it only once durable (begin and refresh wait for the sync).
	db.releaseLocks(t)
	if err != nil {
		t.kv.Rollback()
		return err
	}
	if db.opts.NoSync {
		return nil
	}
	if ownWait != nil {
		if err := db.sync.waitOwn(seq, ownWait, snap); err != nil {
			return db.failedErr()
		}
		return nil
	}
	if err := db.sync.wait(seq); err != nil {
		// Applied but maybe not durable: the client must not count on it,
		// and nobody else may build on it (the store refuses commits).
		return db.failedErr()
	}
	return nil
}

// applyLocked validates t and applies its writes, returning its seq.
// With own, the engine starts syncing t's writes at once when it can
// (kv.Txn.CommitSyncLater) and ownWait, when not nil, waits for that
// sync; otherwise the writes are applied unsynced, for groupSync.
// REQUIRES: db.mu held.
func (db *DB) applyLocked(t *txn, change *catChange, reads, writes []kv.KeySpan, own bool) (seq uint64, ownWait func() error, err error) {
	seq, err = db.applyWith(t, change, reads, writes, func() error {
		if !own {
			return t.kv.Commit(false)
		}
		var err error
		ownWait, err = t.kv.CommitSyncLater()
		return err
	})
	if err != nil {
		return 0, nil, err
	}
	return seq, ownWait, nil
}

// applyWith is applyLocked with commit, the engine commit of t's writes.
// change is t's catalog change (txn.catalogChange).
// REQUIRES: db.mu held.
func (db *DB) applyWith(t *txn, change *catChange, reads, writes []kv.KeySpan, commit func() error) (uint64, error) {
	db.applying.Add(1)
	defer db.applying.Add(-1)
	if err := db.failedErr(); err != nil {
		return 0, err
	}
	if err := db.damagedErr("COMMIT"); err != nil {
		return 0, err
	}
	if err := db.diskFullErr(); err != nil {
		return 0, err
	}
	if !db.validLocked(t, change, reads) {
		db.stats.conflicts.Add(1)
		return 0, errSerialization
	}
	// A catalog change committed since t's snapshot is not in t.cat: the
	// catalog t installs is then read back from the store, which holds
	// both (rebase). The id counter key t wrote may be behind the
	// other's: it takes the larger.
	rebase := t.catChanged && db.mu.cat != t.baseCat
	if rebase {
		if err := catalog.MergeNextID(t.kv, t.cat, db.mu.cat); err != nil {
			return 0, pgerror.Wrap(err, pgerror.Internal)
		}
	}
	if err := engineCall(commit); err != nil {
		if refusedForSpace(err) {
			return 0, ioError(err) // nothing was written
		}
		// A distributed engine lost to another client's commit, or refused
		// a commit over its size limit: nothing was written.
		if errors.Is(err, kv.ErrConflict) {
			db.stats.conflicts.Add(1)
			return 0, errSerialization
		}
		if errors.Is(err, kv.ErrLateCommit) {
			// t was not applied, and its snapshot precedes the late commit.
			db.stats.conflicts.Add(1)
			if lerr := db.lateCommitLocked(); lerr != nil {
				return 0, lerr
			}
			return 0, errLateCommit
		}
		if errors.Is(err, kv.ErrTooLarge) {
			return 0, pgerror.Newf(pgerror.ProgramLimitExceeded, "transaction is too large for one commit of the storage engine: %v", err)
		}
		if errors.Is(err, kv.ErrNotCommitted) {
			// A distributed engine that could not reach its cluster, or
			// whose cluster refused the batch: nothing is visible, and the
			// engine settles an unknown outcome itself (kv.ErrNotCommitted).
			return 0, pgerror.Wrap(err, pgerror.ConnectionFailure)
		}
		// The engine may hold part of what failed (in its WAL buffer): stop
		// accepting commits until a restart recovers a known state.
		db.setFailed(err)
		return 0, db.failedErr()
	}
	db.mu.seq++
	if change != nil {
		writes = withoutNextID(writes)
	}
	db.mu.log = append(db.mu.log, committed{seq: db.mu.seq, writes: writes, change: change, ddlDB: t.ddlDB(), db: t.database})
	if len(db.mu.log) > maxCommitLog {
		drop := len(db.mu.log) / 2
		db.mu.horizon = db.mu.log[drop-1].seq
		db.mu.log = append(db.mu.log[:0], db.mu.log[drop:]...)
	}
	db.sync.applied.Store(db.mu.seq)
	if t.catChanged {
		cat := t.cat
		if rebase {
			var err error
			if cat, err = db.reloadCatalogLocked("a concurrent catalog change"); err != nil {
				return 0, err
			}
		}
		db.mu.cat = cat
		db.cat.Store(cat)
	}
	for id, d := range t.rowDelta {
		db.rowCounter(id).Add(d)
	}
	db.stats.commits.Add(1)
	return db.mu.seq, nil
}

// errLateCommit is the error of a transaction whose commit met a late one
// (lateCommitLocked): it may be retried at once.
var errLateCommit = pgerror.New(pgerror.SerializationFailure,
	"could not serialize access: an earlier commit whose outcome was unknown (the store stopped answering) turned out applied when the store answered again")

// lateCommitLocked records a commit that the engine reported unknown and
// that turned out applied (kv.ErrLateCommit): its writes are not known
// here, so it enters the commit log as one that wrote everything and
// changed every database's catalog, which fails the validation of every
// transaction whose snapshot precedes it; and the catalog is read again
// from the store, in case it was DDL. The late commit is visible to every
// snapshot taken from now on (the seq moves, so the shared snapshot is
// taken anew).
// REQUIRES: db.mu held.
func (db *DB) lateCommitLocked() error {
	cat, err := db.reloadCatalogLocked("a late commit")
	if err != nil {
		return err
	}
	db.mu.seq++
	db.mu.log = append(db.mu.log, committed{seq: db.mu.seq, writes: []kv.KeySpan{{Start: []byte{}}}, change: &catChange{broad: true}})
	db.sync.applied.Store(db.mu.seq)
	db.mu.cat = cat
	db.cat.Store(cat)
	return nil
}

// reloadCatalogLocked reads the committed catalog back from the store,
// sharing the id counter of the one in memory. A failure stops the
// store (the catalog in memory may be stale and the store's cannot be
// read), as after any engine failure; after names what was applied.
// REQUIRES: db.mu held.
func (db *DB) reloadCatalogLocked(after string) (*catalog.Catalog, error) {
	snap := db.eng.NewSnapshot()
	cat, err := catalog.Load(snap)
	_ = snap.Close()
	if err != nil {
		db.setFailed(fmt.Errorf("reloading the catalog after %s: %w", after, err))
		return nil, db.failedErr()
	}
	cat.AdoptIDs(db.mu.cat)
	return cat, nil
}

// validLocked reports whether no commit after t's snapshot wrote into
// reads (t's read set, merged) and whether no catalog change committed
// after its snapshot meets t (change is t's own catalog change, nil if
// none; catChange has the rules): a change conflicts with transactions
// that wrote in the tables it changed, with changes of the same objects
// or names, and a change to the tables t's DDL changed conflicts with
// every write into them.
// REQUIRES: db.mu held, t registered (its snapshot pins the log).
func (db *DB) validLocked(t *txn, change *catChange, reads []kv.KeySpan) bool {
	return db.validToLocked(t, change, reads, db.mu.seq)
}

// validToLocked is validLocked against the commits up to seq upto only:
// whether t's reads still hold at the state after commit upto. reads are
// t's validationSpans (txn.conflicts asks t's write buffer for the
// rest).
// REQUIRES: db.mu held, t registered.
func (db *DB) validToLocked(t *txn, change *catChange, reads []kv.KeySpan, upto uint64) bool {
	if t.snapSeq < db.mu.horizon {
		return false // the commits to check against are gone
	}
	first := sort.Search(len(db.mu.log), func(i int) bool { return db.mu.log[i].seq > t.snapSeq })
	for _, c := range db.mu.log[first:] {
		if c.seq > upto {
			break
		}
		if t.conflictsWithChange(&c, change) || t.conflicts(c.writes, reads) {
			return false
		}
		// t's catalog change read the tables it changed, whole.
		if change != nil && spansOverlap(c.writes, change.spaces) {
			return false
		}
	}
	return true
}

// rollback abandons t.
func (db *DB) rollback(t *txn) {
	defer db.releaseTxnAdvisory(t)
	t.notifyWork = nil
	if t.snapRead.snap != nil {
		t.snapRead.closeIters() // before the snapshot closes
	}
	t.kv.Rollback()
	db.releaseLocks(t)
	if !t.registered {
		return
	}
	db.mu.Lock()
	db.finishLocked(t.snapSeq)
	db.mu.Unlock()
}

// writersRunning is the number of statements of writing transactions
// being executed and not waiting for a row lock. A transaction idle
// between statements (waiting for its client) does not count: a session
// left idle in a transaction would otherwise make every leader wait its
// full limit. The count is racy; it only decides whether a group-commit
// leader waits a little for more commits.
func (db *DB) writersRunning() int64 {
	return db.executing.Load() - db.lockWaiters.Load()
}

// finishLocked forgets a transaction's snapshot and prunes the commit
// log of the entries no open transaction needs: those at or below the
// oldest open snapshot.
// REQUIRES: db.mu held.
func (db *DB) finishLocked(snap uint64) {
	if db.mu.active[snap]--; db.mu.active[snap] <= 0 {
		delete(db.mu.active, snap)
	}
	oldest := db.mu.seq
	if !db.opts.NoSync {
		// Transactions begin at the durable state (begin): keep the
		// commits after it, the ones applied during the sync under way.
		oldest = min(oldest, db.sync.durableSeq.Load())
	}
	for s := range db.mu.active {
		oldest = min(oldest, s)
	}
	i := sort.Search(len(db.mu.log), func(i int) bool { return db.mu.log[i].seq > oldest })
	if i > 0 {
		db.mu.log = append(db.mu.log[:0], db.mu.log[i:]...)
	}
	db.mu.horizon = max(db.mu.horizon, oldest)
}

// setFailed records the first engine failure.
func (db *DB) setFailed(err error) {
	err = fmt.Errorf("kvsql: the store had an I/O error and refuses commits until it is reopened: %w", err)
	db.failed.CompareAndSwap(nil, &err)
}

// failedErr returns the recorded engine failure as a 58030 error (53100
// for a full disk), or nil.
func (db *DB) failedErr() error {
	if p := db.failed.Load(); p != nil {
		return ioError(*p)
	}
	return nil
}

func (db *DB) rowCounter(tableID uint64) *atomic.Int64 {
	if c, ok := db.rowCounts.Load(tableID); ok {
		return c.(*atomic.Int64)
	}
	c, _ := db.rowCounts.LoadOrStore(tableID, new(atomic.Int64))
	return c.(*atomic.Int64)
}
