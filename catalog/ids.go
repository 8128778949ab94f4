package catalog

import (
	"errors"
	"sync"

	"github.com/kvsql/kvsql/kv"
)

// IDs hands out the key space ids of new tables, indexes and sequences
// to every catalog derived from one loaded store (DDL's allocID), outside
// any transaction, as PostgreSQL's OID counter does. An id given to a
// transaction that rolls back is not given again: some state is kept
// under an id outside transactions — a sequence's counter (SeqStateKey)
// and a serial column's (SequenceKey) move with nextval, which no
// rollback undoes — and an object that got the id again would start from
// the rolled-back one's counter, as would a concurrent creator's while
// both ran.
//
// Within a process the counter only grows. Across a restart the store's
// committed next id (NextIDKey) could give a rolled-back id out again,
// so before a counter is written under an id at or past the floor
// stored at IDFloorKey, the writer raises that floor (Unkept, then Kept):
// a restart starts past every id that has a counter.
//
// IDs is the one mutable part of a Catalog: every snapshot derived from
// a loaded one shares it.
type IDs struct {
	mu    sync.Mutex
	next  uint64 // the next id to hand out
	floor uint64 // the floor the store holds (IDFloorKey)
}

// take returns the next id, at least min (the catalog's own next id).
func (s *IDs) take(min uint64) uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	id := max(s.next, min)
	s.next = id + 1
	return id
}

// raise makes the next id at least next.
func (s *IDs) raise(next uint64) {
	s.mu.Lock()
	s.next = max(s.next, next)
	s.mu.Unlock()
}

// Unkept reports whether id, handed out before, is at or past the stored
// floor, and the floor to store then (past every id handed out so far).
func (s *IDs) Unkept(id uint64) (floor uint64, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if id < s.floor {
		return 0, false
	}
	return max(s.next, id+1), true
}

// Kept records that the store now holds floor (written by WriteIDFloor).
func (s *IDs) Kept(floor uint64) {
	s.mu.Lock()
	s.floor = max(s.floor, floor)
	s.mu.Unlock()
}

// IDs returns the id counter c's DDL allocates from; nil for a catalog
// not loaded from a store (its DDL counts from its own next id).
func (c *Catalog) IDs() *IDs { return c.ids }

// AdoptIDs makes c, freshly loaded from the store that old was loaded
// from, share old's id counter, which then gives out no id below c's own
// next id: ids handed out in this process stay handed out.
func (c *Catalog) AdoptIDs(old *Catalog) {
	if old.ids == nil {
		return
	}
	old.ids.raise(c.nextID)
	c.ids = old.ids
}

// allocID returns a new key space id: from the shared counter when c
// has one, else from c's own next id.
func (c *Catalog) allocID() uint64 {
	id := c.nextID
	if c.ids != nil {
		id = c.ids.take(id)
	}
	c.nextID = id + 1
	return id
}

// WriteIDFloor stores floor at IDFloorKey: a restart hands out no id
// below it.
func WriteIDFloor(w kv.Writer, floor uint64) error {
	return w.Set(IDFloorKey(), putUint64(floor))
}

// readIDFloor reads the stored id floor, 0 when none was stored.
func readIDFloor(r kv.Reader) (uint64, error) {
	v, err := r.Get(IDFloorKey())
	if errors.Is(err, kv.ErrNotFound) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	return getUint64(v)
}
