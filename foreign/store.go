package foreign

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/cockroachdb/pebble/v2"
	"github.com/syndtr/goleveldb/leveldb"
	"github.com/syndtr/goleveldb/leveldb/iterator"
	leveldbopt "github.com/syndtr/goleveldb/leveldb/opt"
	leveldbutil "github.com/syndtr/goleveldb/leveldb/util"

	"github.com/kvsql/kvsql/pgerror"
)

// Store is an application's key-value store opened by kvsql: the small
// interface a foreign scan reads through and foreign writes go to. It
// is deliberately not kv.Engine: kvsql's own store keeps its
// transactions, snapshots and merge operator, none of which an
// application's store has or may be given.
type Store interface {
	// NewIter returns an iterator over the keys in [lo, hi) (nil hi:
	// unbounded), unpositioned. Each iterator reads a consistent
	// snapshot of the store as of its creation.
	NewIter(lo, hi []byte) (Iter, error)
	// Get returns the value of key; found is false when it is absent.
	Get(key []byte) (value []byte, found bool, err error)
	// Write applies ops, in order, atomically (one batch).
	Write(ops []KV) error
	// Close releases the store.
	Close() error
}

// KV is one key and its value, or with Delete set, a key to delete.
type KV struct {
	Key, Value []byte
	Delete     bool
}

// Iter walks keys in ascending order. Key and Value are valid until the
// next call; the caller copies what it keeps.
type Iter interface {
	First() bool
	Next() bool
	Key() []byte
	Value() []byte
	Error() error
	Close() error
}

// StoreSpec names an application's store: its engine and directory,
// and whether kvsql may write to it.
type StoreSpec struct {
	// URL is "leveldb:PATH" or "pebble:PATH".
	URL string `json:"url"`
	// Writable is set by readonly="false" on the attachment.
	Writable bool `json:"writable,omitempty"`
}

// ParseStoreURL splits "leveldb:PATH" or "pebble:PATH".
func ParseStoreURL(url string) (engine, path string, err error) {
	engine, path, ok := strings.Cut(url, ":")
	if !ok || path == "" || (engine != "leveldb" && engine != "pebble") {
		return "", "", fmt.Errorf("store %q: want leveldb:PATH or pebble:PATH", url)
	}
	return engine, path, nil
}

// ResolveStoreURL makes a relative PATH in url relative to dir (the
// catalog document's directory).
func ResolveStoreURL(url, dir string) (string, error) {
	engine, path, err := ParseStoreURL(url)
	if err != nil {
		return "", err
	}
	if !filepath.IsAbs(path) {
		abs, err := filepath.Abs(filepath.Join(dir, path))
		if err != nil {
			return "", err
		}
		path = abs
	}
	return engine + ":" + path, nil
}

// Open opens the store spec names. A read-only spec opens the store
// read-only where the engine allows it. Errors carry 58030 (io_error).
func Open(spec StoreSpec) (Store, error) {
	engine, path, err := ParseStoreURL(spec.URL)
	if err != nil {
		return nil, pgerror.Newf(pgerror.InvalidParameterValue, "%v", err)
	}
	switch engine {
	case "leveldb":
		db, err := leveldb.OpenFile(path, &leveldbopt.Options{ReadOnly: !spec.Writable, ErrorIfMissing: true})
		if err != nil {
			return nil, pgerror.Newf(pgerror.IOError, "cannot open foreign store %s: %v", spec.URL, err)
		}
		return &levelStore{db: db}, nil
	default:
		db, err := pebble.Open(path, &pebble.Options{ReadOnly: !spec.Writable, ErrorIfNotExists: true, Logger: quietLogger{}})
		if err != nil {
			return nil, pgerror.Newf(pgerror.IOError, "cannot open foreign store %s: %v", spec.URL, err)
		}
		return &pebbleStore{db: db}, nil
	}
}

// levelStore is a LevelDB store through goleveldb.
type levelStore struct{ db *leveldb.DB }

func (s *levelStore) NewIter(lo, hi []byte) (Iter, error) {
	return levelIter{s.db.NewIterator(&leveldbutil.Range{Start: lo, Limit: hi}, nil)}, nil
}

// levelIter adapts goleveldb's iterator (Release, not Close) to Iter.
type levelIter struct{ iterator.Iterator }

func (it levelIter) Close() error {
	it.Release()
	return nil
}

func (s *levelStore) Get(key []byte) ([]byte, bool, error) {
	v, err := s.db.Get(key, nil)
	if errors.Is(err, leveldb.ErrNotFound) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, pgerror.Newf(pgerror.IOError, "foreign store: %v", err)
	}
	return v, true, nil
}

func (s *levelStore) Write(ops []KV) error {
	b := new(leveldb.Batch)
	for _, op := range ops {
		if op.Delete {
			b.Delete(op.Key)
		} else {
			b.Put(op.Key, op.Value)
		}
	}
	if err := s.db.Write(b, &leveldbopt.WriteOptions{Sync: true}); err != nil {
		return pgerror.Newf(pgerror.IOError, "foreign store: %v", err)
	}
	return nil
}

func (s *levelStore) Close() error { return s.db.Close() }

// pebbleStore is a Pebble store opened with Pebble's defaults (the
// application's own options are unknown to kvsql; the default comparer
// is bytewise, as LevelDB's).
type pebbleStore struct{ db *pebble.DB }

func (s *pebbleStore) NewIter(lo, hi []byte) (Iter, error) {
	it, err := s.db.NewIter(&pebble.IterOptions{LowerBound: lo, UpperBound: hi})
	if err != nil {
		return nil, pgerror.Newf(pgerror.IOError, "foreign store: %v", err)
	}
	return pebbleIter{it}, nil
}

// pebbleIter adapts *pebble.Iterator (whose Value may fail) to Iter.
type pebbleIter struct{ *pebble.Iterator }

func (it pebbleIter) Value() []byte {
	v, err := it.ValueAndErr()
	if err != nil {
		return nil
	}
	return v
}

func (s *pebbleStore) Get(key []byte) ([]byte, bool, error) {
	v, closer, err := s.db.Get(key)
	if errors.Is(err, pebble.ErrNotFound) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, pgerror.Newf(pgerror.IOError, "foreign store: %v", err)
	}
	out := append([]byte{}, v...)
	closer.Close()
	return out, true, nil
}

func (s *pebbleStore) Write(ops []KV) error {
	b := s.db.NewBatch()
	defer b.Close()
	for _, op := range ops {
		var err error
		if op.Delete {
			err = b.Delete(op.Key, nil)
		} else {
			err = b.Set(op.Key, op.Value, nil)
		}
		if err != nil {
			return err
		}
	}
	if err := b.Commit(pebble.Sync); err != nil {
		return pgerror.Newf(pgerror.IOError, "foreign store: %v", err)
	}
	return nil
}

func (s *pebbleStore) Close() error { return s.db.Close() }

// CreateLevelDB opens (creating it if missing) a writable LevelDB store
// at path: for tests and examples that play the application.
func CreateLevelDB(path string) (Store, error) {
	db, err := leveldb.OpenFile(path, nil)
	if err != nil {
		return nil, err
	}
	return &levelStore{db: db}, nil
}

// CreatePebble opens (creating it if missing) a writable Pebble store
// at path with Pebble's defaults.
func CreatePebble(path string) (Store, error) {
	db, err := pebble.Open(path, &pebble.Options{Logger: quietLogger{}})
	if err != nil {
		return nil, err
	}
	return &pebbleStore{db: db}, nil
}

// quietLogger keeps Pebble's informational messages (one per WAL
// replayed) out of the server's output; errors reach the caller as
// errors. Fatalf must not return, as Pebble's contract says.
type quietLogger struct{}

func (quietLogger) Infof(string, ...any)  {}
func (quietLogger) Errorf(string, ...any) {}
func (quietLogger) Fatalf(format string, args ...any) {
	panic(fmt.Sprintf("foreign pebble store: "+format, args...))
}
