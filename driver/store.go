package driver

import (
	"errors"
	"fmt"
	"sync"

	"github.com/kvsql/kvsql"
)

// store is one open kvsql store and the references to it: one per
// connector (an *sql.DB) and one per connection. A file store is shared
// by every connector opened on its directory, since Pebble locks the
// directory against a second open; a memory store belongs to one
// connector.
type store struct {
	db *kvsql.DB
	// dir is the absolute directory of a file store ("" for memory); the
	// key in files.byDir.
	dir  string
	opts kvsql.Options
	// refs is guarded by files.mu. The store closes when it drops to 0.
	refs int
}

// files are the file stores open in this process.
var files struct {
	mu    sync.Mutex
	byDir map[string]*store
}

// openStore returns a store for opts with a reference for the caller:
// the open store of the same directory if there is one, else a new one.
func openStore(opts kvsql.Options) (*store, error) {
	files.mu.Lock()
	defer files.mu.Unlock()
	if !opts.Memory {
		if s := files.byDir[opts.Dir]; s != nil {
			if s.opts.NoSync != opts.NoSync {
				return nil, fmt.Errorf("kvsql: %s is already open in this process with sync=%s", opts.Dir, syncName(s.opts.NoSync))
			}
			s.refs++
			return s, nil
		}
	}
	db, err := kvsql.Open(opts)
	if err != nil {
		return nil, err
	}
	s := &store{db: db, opts: opts, refs: 1}
	if !opts.Memory {
		s.dir = opts.Dir
		if files.byDir == nil {
			files.byDir = map[string]*store{}
		}
		files.byDir[s.dir] = s
	}
	return s, nil
}

func syncName(noSync bool) string {
	if noSync {
		return "off"
	}
	return "on"
}

// acquire adds a reference to an open store. It fails once the store has
// closed (its last reference gone).
func (s *store) acquire() error {
	files.mu.Lock()
	defer files.mu.Unlock()
	if s.refs == 0 {
		return errors.New("kvsql: the store is closed")
	}
	s.refs++
	return nil
}

// release drops a reference; the last one closes the store. The lock is
// held while it closes, so a new open of the same directory waits for
// Pebble to let go of it.
func (s *store) release() error {
	files.mu.Lock()
	defer files.mu.Unlock()
	if s.refs == 0 {
		return nil
	}
	s.refs--
	if s.refs > 0 {
		return nil
	}
	if s.dir != "" {
		delete(files.byDir, s.dir)
	}
	return s.db.Close()
}
