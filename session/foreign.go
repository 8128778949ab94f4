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

// foreignWriteStore returns the store of foreign database name for a
// write of transaction t. The write is applied when its statement
// ends, outside kvsql's transaction, so it is refused inside a
// transaction block, where a ROLLBACK could not take it back.
func (db *DB) foreignWriteStore(t *txn, name string) (foreign.Store, error) {
	if t.explicit || t.implicit {
		e := pgerror.Newf(pgerror.FeatureNotSupported, "writes to foreign tables are not supported inside a transaction block")
		e.Hint = "Run the statement on its own: each one is applied to the application's store when it ends."
		return nil, e
	}
	if t.readOnly {
		return nil, pgerror.New(pgerror.ReadOnlySQLTransaction, "cannot execute a write in a read-only transaction")
	}
	return db.foreignStore(name)
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
