// Package kvsql is the embedded API of kvsql: open a store, start
// sessions, run SQL. The wire server (package wire) serves the same
// sessions to PostgreSQL clients; cmd/kvsql wires the two together.
//
// The life of a query, by function:
//
//  1. Session.Prepare splits and parses the text (planner/parse.Parse).
//  2. The statement is planned against the session's catalog snapshot
//     (planner.Planner.Plan): names are bound, access paths chosen, joins
//     ordered.
//  3. Statement.Execute opens a transaction (DB.begin, or the session's
//     own), builds operators from the plan (exec.Build) and streams rows;
//     the operators read and write the master and index files (package
//     index) through a kv.Txn overlay that records what it reads.
//  4. The transaction commits (DB.commit): under DB.mu its read set is
//     validated against the write sets of the transactions that committed
//     since its snapshot (serializability) and its writes are applied to
//     the engine as one atomic batch; then, outside the mutex, the commit
//     waits for a write-ahead-log sync it shares with every other commit
//     applied meanwhile (group commit, see groupSync).
//
// docs/transactions.md describes the design and its guarantees.
package kvsql

import (
	"errors"
	"fmt"
	"os"
	"sort"
	"sync"
	"sync/atomic"

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
	// TempDir holds spill files; "" means the system's.
	TempDir string
	// CacheSize is Pebble's block cache in bytes; 0 means the kv default.
	CacheSize int64
	// Engine, if set, is used instead of opening one (tests). Close closes
	// it.
	Engine kv.Engine
	// DisabledRules names planner rules every session skips (the names
	// of planner.Planner.Disabled, such as "index_select"); differential
	// tests use it. Not changed after Open.
	DisabledRules map[string]bool
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
	// sync makes applied commits durable, many at a time.
	sync groupSync
	// failed holds the first engine write or sync error. After it the
	// store's durable state is uncertain: every commit is refused until
	// the store is reopened (recovery replays the WAL).
	failed atomic.Pointer[error]

	stats struct{ commits, conflicts, syncs atomic.Uint64 }

	// seqMu serializes sequence (counter) reservations.
	seqMu     sync.Mutex
	seqCache  map[seqKey]*seqBlock
	rowCounts sync.Map // table ID → *atomic.Int64 (estimates for the planner)
	nextPID   atomic.Uint32
	closed    atomic.Bool
}

// committed is one commit's entry in the commit log.
type committed struct {
	seq uint64
	// writes are the keys the commit wrote, sorted by Start.
	writes []kv.KeySpan
	// ddl marks a commit that changed the catalog.
	ddl bool
}

// Open opens (or creates) a store.
func Open(opts Options) (*DB, error) {
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
			eng, err = kv.OpenPebble(opts.Dir, kv.PebbleOptions{CacheSize: opts.CacheSize})
			if err != nil {
				return nil, err
			}
		}
	}
	cat, err := catalog.Open(eng)
	if err != nil {
		_ = eng.Close()
		return nil, err
	}
	db := &DB{eng: eng, opts: opts, seqCache: map[seqKey]*seqBlock{}}
	db.mu.cat = cat
	db.mu.active = map[uint64]int{}
	db.sync.init(eng, db.setFailed)
	return db, nil
}

// Engine returns the underlying key-value engine.
func (db *DB) Engine() kv.Engine { return db.eng }

// Catalog returns the current committed catalog.
func (db *DB) Catalog() *catalog.Catalog {
	db.mu.Lock()
	defer db.mu.Unlock()
	return db.mu.cat
}

// Close closes the store. Sessions must be closed first.
func (db *DB) Close() error {
	if db.closed.Swap(true) {
		return nil
	}
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
}

// TxnStats returns the counters of transaction outcomes.
func (db *DB) TxnStats() TxnStats {
	return TxnStats{
		Commits:   db.stats.commits.Load(),
		Conflicts: db.stats.conflicts.Load(),
		Syncs:     db.sync.count.Load(),
	}
}

// begin starts a transaction at the current committed state. Unless
// NoSync, it returns only once every commit in its snapshot is durable,
// so no transaction reads a commit that a crash could still take away
// (the wait is at most the WAL sync already under way).
func (db *DB) begin() *txn {
	db.mu.Lock()
	t := &txn{db: db, kv: kv.NewTxn(db.eng), snapSeq: db.mu.seq, cat: db.mu.cat}
	db.mu.active[t.snapSeq]++
	db.mu.Unlock()
	if !db.opts.NoSync {
		// An error here is the sticky db.failed one, which commit reports.
		_ = db.sync.wait(t.snapSeq)
	}
	return t
}

// errSerialization is returned when a transaction's reads were changed by
// a transaction that committed after it began.
var errSerialization = pgerror.New(pgerror.SerializationFailure,
	"could not serialize access due to read/write dependencies among transactions")

// commit validates and applies t, then waits until it is durable.
//
// Validation is backward OCC: no key range t read may have been written
// by a transaction that committed after t's snapshot, and a catalog
// change on either side conflicts with every commit of the other. A
// validated transaction is equivalent to running alone at its commit
// point, so the order of seq is a serial order of all writing
// transactions. A transaction that wrote nothing commits without
// validation: it read one consistent, durable snapshot, i.e. it runs at
// its snapshot's point of that order.
//
// t is ended whatever the outcome.
func (db *DB) commit(t *txn) error {
	writes := t.kv.WriteSet()
	if len(writes) == 0 && !t.catChanged {
		db.rollback(t)
		return nil
	}
	// Sorting is done before taking the mutex: it is t's own data.
	reads := mergeSpans(t.kv.ReadSet())
	writes = sortSpans(writes)

	db.mu.Lock()
	seq, err := db.applyLocked(t, reads, writes)
	db.finishLocked(t.snapSeq)
	db.mu.Unlock()
	if err != nil {
		t.kv.Rollback()
		return err
	}
	if db.opts.NoSync {
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
// REQUIRES: db.mu held.
func (db *DB) applyLocked(t *txn, reads, writes []kv.KeySpan) (uint64, error) {
	if err := db.failedErr(); err != nil {
		return 0, err
	}
	if t.snapSeq < db.mu.horizon {
		db.stats.conflicts.Add(1)
		return 0, errSerialization
	}
	first := sort.Search(len(db.mu.log), func(i int) bool { return db.mu.log[i].seq > t.snapSeq })
	for _, c := range db.mu.log[first:] {
		if c.ddl || t.catChanged || spansOverlap(c.writes, reads) {
			db.stats.conflicts.Add(1)
			return 0, errSerialization
		}
	}
	if err := engineCall(func() error { return t.kv.Commit(false) }); err != nil {
		// The engine may hold part of what failed (in its WAL buffer): stop
		// accepting commits until a restart recovers a known state.
		db.setFailed(err)
		return 0, db.failedErr()
	}
	db.mu.seq++
	db.mu.log = append(db.mu.log, committed{seq: db.mu.seq, writes: writes, ddl: t.catChanged})
	if len(db.mu.log) > maxCommitLog {
		drop := len(db.mu.log) / 2
		db.mu.horizon = db.mu.log[drop-1].seq
		db.mu.log = append(db.mu.log[:0], db.mu.log[drop:]...)
	}
	db.sync.applied.Store(db.mu.seq)
	if t.catChanged {
		db.mu.cat = t.cat
	}
	for id, d := range t.rowDelta {
		db.rowCounter(id).Add(d)
	}
	db.stats.commits.Add(1)
	return db.mu.seq, nil
}

// rollback abandons t.
func (db *DB) rollback(t *txn) {
	t.kv.Rollback()
	db.mu.Lock()
	db.finishLocked(t.snapSeq)
	db.mu.Unlock()
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

// failedErr returns the recorded engine failure as a 58030 error, or nil.
func (db *DB) failedErr() error {
	if p := db.failed.Load(); p != nil {
		return pgerror.Wrap(*p, pgerror.IOError)
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
