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
//  3. Statement.Execute opens a transaction (or uses the session's), builds
//     operators from the plan (exec.Build) and streams rows; the operators
//     read and write the master and index files (package index) through a
//     kv.Txn overlay.
//  4. The transaction commits: its reads are validated against what
//     committed since it began (serializability), then its writes are
//     applied to the engine in one atomic batch (kv.Engine).
package kvsql

import (
	"errors"
	"fmt"
	"os"
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
	// NoSync acknowledges commits before the WAL is synced (--sync=off).
	NoSync bool
	// WorkMem is the per-operator memory budget in bytes; 0 means 64 MiB.
	WorkMem int64
	// TempDir holds spill files; "" means the system's.
	TempDir string
	// CacheSize is Pebble's block cache in bytes; 0 means the kv default.
	CacheSize int64
	// Engine, if set, is used instead of opening one (tests).
	Engine kv.Engine
	// DisabledRules names planner rules every session skips (the names
	// of planner.Planner.Disabled, such as "index_select"); differential
	// tests use it. Not changed after Open.
	DisabledRules map[string]bool
}

// DB is an open kvsql store. It is safe for concurrent use by many
// sessions.
type DB struct {
	eng  kv.Engine
	opts Options

	// mu guards the committed state that commits change.
	mu struct {
		sync.Mutex
		cat *catalog.Catalog
		// seq counts commits; log holds the write sets of recent ones,
		// for validating transactions that began before them.
		seq uint64
		log []committed
		// active counts open transactions by snapshot seq, to prune log.
		active map[uint64]int
	}
	// seqMu serializes sequence (counter) reservations.
	seqMu     sync.Mutex
	seqCache  map[seqKey]*seqBlock
	rowCounts sync.Map // table ID → *atomic.Int64 (estimates for the planner)
	nextPID   atomic.Uint32
	closed    atomic.Bool
}

type committed struct {
	seq    uint64
	writes []kv.KeySpan
	ddl    bool
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

// Close closes the store.
func (db *DB) Close() error {
	if db.closed.Swap(true) {
		return nil
	}
	return db.eng.Close()
}

// begin starts a transaction at the current committed state.
func (db *DB) begin() *txn {
	db.mu.Lock()
	defer db.mu.Unlock()
	t := &txn{db: db, kv: kv.NewTxn(db.eng), snapSeq: db.mu.seq, cat: db.mu.cat}
	db.mu.active[t.snapSeq]++
	return t
}

// finish forgets a transaction's snapshot, pruning the commit log.
// REQUIRES: db.mu held.
func (db *DB) finishLocked(snap uint64) {
	if db.mu.active[snap]--; db.mu.active[snap] <= 0 {
		delete(db.mu.active, snap)
	}
	oldest := db.mu.seq
	for s := range db.mu.active {
		if s < oldest {
			oldest = s
		}
	}
	i := 0
	for i < len(db.mu.log) && db.mu.log[i].seq <= oldest {
		i++
	}
	if i > 0 {
		db.mu.log = append(db.mu.log[:0], db.mu.log[i:]...)
	}
}

// errSerialization is returned when a transaction's reads were changed by
// a transaction that committed after it began.
var errSerialization = pgerror.New(pgerror.SerializationFailure,
	"could not serialize access due to read/write dependencies among transactions")

// commit validates and applies t. Validation is backward OCC: every key
// range t read must be untouched by the write sets of transactions that
// committed after t's snapshot; a catalog change since the snapshot
// conflicts with any transaction that wrote.
func (db *DB) commit(t *txn) error {
	db.mu.Lock()
	defer db.mu.Unlock()
	defer db.finishLocked(t.snapSeq)
	writes := t.kv.WriteSet()
	if len(writes) == 0 && !t.catChanged {
		t.kv.Rollback()
		return nil
	}
	reads := t.kv.ReadSet()
	for _, c := range db.mu.log {
		if c.seq <= t.snapSeq {
			continue
		}
		if c.ddl || t.catChanged || overlaps(c.writes, reads) || overlaps(c.writes, writes) {
			t.kv.Rollback()
			return errSerialization
		}
	}
	if err := t.kv.Commit(!db.opts.NoSync); err != nil {
		return pgerror.Wrap(err, pgerror.IOError)
	}
	db.mu.seq++
	db.mu.log = append(db.mu.log, committed{seq: db.mu.seq, writes: writes, ddl: t.catChanged})
	if t.catChanged {
		db.mu.cat = t.cat
	}
	for id, d := range t.rowDelta {
		db.rowCounter(id).Add(d)
	}
	return nil
}

// rollback abandons t.
func (db *DB) rollback(t *txn) {
	t.kv.Rollback()
	db.mu.Lock()
	db.finishLocked(t.snapSeq)
	db.mu.Unlock()
}

// overlaps reports whether any span of a intersects any span of b.
func overlaps(a, b []kv.KeySpan) bool {
	if len(a) == 0 || len(b) == 0 {
		return false
	}
	for _, x := range a {
		for _, y := range b {
			if spansIntersect(x, y) {
				return true
			}
		}
	}
	return false
}

func (db *DB) rowCounter(tableID uint64) *atomic.Int64 {
	if c, ok := db.rowCounts.Load(tableID); ok {
		return c.(*atomic.Int64)
	}
	c, _ := db.rowCounts.LoadOrStore(tableID, new(atomic.Int64))
	return c.(*atomic.Int64)
}
