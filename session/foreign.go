package session

import (
	"fmt"
	"sync"

	"github.com/kvsql/kvsql/exec"
	"github.com/kvsql/kvsql/foreign"
	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/planner"
)

// foreignStores holds the application stores of foreign databases,
// opened on first use and kept open until the DB closes: LevelDB lets
// one process open a store once, so every session shares the handle.
type foreignStores struct {
	mu struct {
		sync.Mutex
		open map[string]foreign.Store // by store URL
	}
}

// foreignStore returns the open store of foreign database db.
func (db *DB) foreignStore(name string) (foreign.Store, error) {
	d, err := db.Catalog().Database(name)
	if err != nil {
		return nil, err
	}
	if d.Foreign == nil {
		return nil, pgerror.Newf(pgerror.Internal, "database %q is not foreign", name)
	}
	fs := &db.foreign
	fs.mu.Lock()
	defer fs.mu.Unlock()
	if st, ok := fs.mu.open[d.Foreign.URL]; ok {
		return st, nil
	}
	st, err := foreign.Open(*d.Foreign)
	if err != nil {
		return nil, err
	}
	if fs.mu.open == nil {
		fs.mu.open = map[string]foreign.Store{}
	}
	fs.mu.open[d.Foreign.URL] = st
	return st, nil
}

// Foreign writes and transactions. A statement outside a transaction
// block writes the application's store directly: its writes are one
// batch, applied when it ends. Inside a block (BEGIN, or the implicit
// block of a multi-statement Query) they go to the transaction's
// foreign.Overlay instead: later statements read them merged over the
// store, ROLLBACK drops them, ROLLBACK TO SAVEPOINT truncates them, and
// COMMIT applies them as one batch, atomic in LevelDB and in Pebble.
//
// The application's store and kvsql's own are two stores, and there is
// no two-phase commit between them: a commit that wrote both could be
// cut between the two batches by a crash (or fail in the second after
// the first is durable), leaving half a transaction. So a transaction
// writes one or the other: the statement that would mix them (or a
// second foreign store) is refused with 0A000, which aborts the block
// as any error does. Sequences (nextval, on kvsql's counters or on the
// application's) are outside transactions and do not count.

// errMixedWrites refuses a transaction that would write kvsql's own
// tables and an application's store.
func errMixedWrites() error {
	e := pgerror.New(pgerror.FeatureNotSupported, "a transaction cannot write both kvsql's own tables and a foreign store")
	e.Detail = "The two stores commit separately, with no two-phase commit: a crash between the two commits would leave half the transaction."
	e.Hint = "Write the foreign tables and kvsql's own tables in separate transactions."
	return e
}

// foreignReadStore returns what a statement of t reads foreign database
// name through: t's overlay if t has written that store, so that t
// reads its own writes, else the store.
func (db *DB) foreignReadStore(t *txn, name string) (foreign.Store, error) {
	if o := t.foreign[name]; o != nil {
		return o, nil
	}
	return db.foreignStore(name)
}

// foreignWriteStore returns where a statement of t writes foreign
// database name: the store itself for a statement outside a
// transaction block, else t's overlay.
func (db *DB) foreignWriteStore(t *txn, name string) (foreign.Store, error) {
	if t.readOnly {
		return nil, pgerror.New(pgerror.ReadOnlySQLTransaction, "cannot execute a write in a read-only transaction")
	}
	if !t.explicit && !t.implicit {
		return db.foreignStore(name)
	}
	if o := t.foreign[name]; o != nil {
		return o, nil
	}
	if len(t.foreign) > 0 {
		return nil, pgerror.New(pgerror.FeatureNotSupported, "a transaction cannot write two foreign stores")
	}
	if t.kv.Len() > 0 || t.catChanged {
		return nil, errMixedWrites()
	}
	st, err := db.foreignStore(name)
	if err != nil {
		return nil, err
	}
	o := foreign.NewOverlay(st)
	if t.foreign == nil {
		t.foreign = map[string]*foreign.Overlay{}
	}
	t.foreign[name] = o
	return o, nil
}

// foreignPending reports whether t holds foreign writes to commit.
func (t *txn) foreignPending() bool {
	for _, o := range t.foreign {
		if !o.Empty() {
			return true
		}
	}
	return false
}

// checkMixedWrites refuses the statement that left t with writes to
// both kvsql's own store and a foreign one.
func (t *txn) checkMixedWrites() error {
	if t.foreignPending() && (t.kv.Len() > 0 || t.catChanged) {
		return errMixedWrites()
	}
	return nil
}

// commitForeign commits t, whose writes are all in a foreign overlay:
// kvsql's own transaction is released (it wrote nothing) and the
// overlay applied as one batch. t is ended whatever the outcome.
func (db *DB) commitForeign(t *txn) error {
	if err := t.checkMixedWrites(); err != nil {
		db.rollback(t)
		return err
	}
	db.rollback(t)
	for _, o := range t.foreign {
		if err := o.Commit(); err != nil {
			return err
		}
	}
	return nil
}

func (fs *foreignStores) closeAll() {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	for url, st := range fs.mu.open {
		st.Close()
		delete(fs.mu.open, url)
	}
}

// foreignActuals is EXPLAIN ANALYZE's addition for a foreign scan: the
// keys it read and those it skipped as malformed.
func foreignActuals(st *exec.Stats, n planner.Node) string {
	keys, bad, ok := st.Foreign(n)
	if !ok {
		return ""
	}
	return fmt.Sprintf(" (keys read=%d malformed=%d)", keys, bad)
}
