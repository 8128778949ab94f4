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
