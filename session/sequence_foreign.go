package session

import (
	"github.com/kvsql/kvsql/catalog"
	"github.com/kvsql/kvsql/foreign"
	"github.com/kvsql/kvsql/pgerror"
)

// The sequences of a foreign database are the application's counters
// (catalog.Sequence.Foreign): their state is one key of the
// application's store in the application's encoding, not a SeqState of
// kvsql's. nextval reads it, advances it by nextval's own arithmetic
// (advanceSeq) and writes it back, under seqMu: the store is open in
// this process only (LevelDB and Pebble lock their directory), so the
// read-modify-write under the mutex is atomic for everyone who can
// write the key. As for any sequence, the write is outside kvsql's
// transactions: a ROLLBACK does not take a value back.

// counterStore returns the store of foreign database name for a
// counter; write refuses a read-only attachment (25006).
func (db *DB) counterStore(cat *catalog.Catalog, name string, s *catalog.Sequence, fn string, write bool) (foreign.Store, error) {
	d, err := cat.Database(name)
	if err != nil {
		return nil, err
	}
	if d.Foreign == nil {
		return nil, pgerror.Newf(pgerror.Internal, "sequence %q is a counter of database %q, which is not foreign", s.Name, name)
	}
	if write && !d.Foreign.Writable {
		e := pgerror.Newf(pgerror.ReadOnlySQLTransaction, "cannot execute %s() on sequence %q: database %q is attached read-only", fn, s.Name, name)
		e.Hint = "readonly=\"false\" on the DataBase element of the catalog document allows writes to the application's counters."
		return nil, e
	}
	return db.foreignStore(name)
}

// counterStateLocked reads counter s as a sequence's state.
// REQUIRES: seqMu held.
func counterStateLocked(st foreign.Store, s *catalog.Sequence) (catalog.SeqState, error) {
	v, found, err := s.Foreign.Read(st)
	if err != nil || !found {
		return catalog.SeqState{Last: s.Start}, err
	}
	if s.Foreign.Holds == foreign.HoldsLast {
		return catalog.SeqState{Last: v, IsCalled: true}, nil
	}
	// The key holds the id nextval returns next: the sequence last
	// returned the one before, or is not called yet when that one is
	// below its minimum.
	if v > s.Min {
		return catalog.SeqState{Last: v - 1, IsCalled: true}, nil
	}
	return catalog.SeqState{Last: v}, nil
}

// writeCounterLocked stores state ss in counter s.
// REQUIRES: seqMu held.
func writeCounterLocked(st foreign.Store, s *catalog.Sequence, ss catalog.SeqState) error {
	v := ss.Last
	switch {
	case s.Foreign.Holds == foreign.HoldsNext && ss.IsCalled:
		v++
	case s.Foreign.Holds == foreign.HoldsLast && !ss.IsCalled:
		v--
	}
	kv, err := s.Foreign.Put(v)
	if err != nil {
		return err
	}
	return st.Write([]foreign.KV{kv})
}

// counterNext is nextval on counter s of foreign database name.
func (db *DB) counterNext(cat *catalog.Catalog, name string, s *catalog.Sequence) (int64, error) {
	st, err := db.counterStore(cat, name, s, "nextval", true)
	if err != nil {
		return 0, err
	}
	db.seqMu.Lock()
	defer db.seqMu.Unlock()
	cur, err := counterStateLocked(st, s)
	if err != nil {
		return 0, err
	}
	next, result, err := advanceSeq(s, cur)
	if err != nil {
		return 0, err
	}
	if err := writeCounterLocked(st, s, next); err != nil {
		return 0, err
	}
	return result, nil
}

// counterSet is setval on counter s: 22003 outside its bounds.
func (db *DB) counterSet(cat *catalog.Catalog, name string, s *catalog.Sequence, v int64, isCalled bool) error {
	if v < s.Min || v > s.Max {
		return pgerror.Newf(pgerror.NumericValueOutOfRange, "setval: value %d is out of bounds for sequence %q (%d..%d)", v, s.Name, s.Min, s.Max)
	}
	st, err := db.counterStore(cat, name, s, "setval", true)
	if err != nil {
		return err
	}
	db.seqMu.Lock()
	defer db.seqMu.Unlock()
	return writeCounterLocked(st, s, catalog.SeqState{Last: v, IsCalled: isCalled})
}

// counterState reads counter s (SELECT * FROM seq, pg_sequences).
func (db *DB) counterState(cat *catalog.Catalog, name string, s *catalog.Sequence) (catalog.SeqState, error) {
	st, err := db.counterStore(cat, name, s, "", false)
	if err != nil {
		return catalog.SeqState{}, err
	}
	db.seqMu.Lock()
	defer db.seqMu.Unlock()
	return counterStateLocked(st, s)
}
