package etcd

import "sync"

// readCache keeps the answers of reads at the newest revision read so
// far. A revision's state never changes, so an answer cached for it is
// right for every later read at the same revision: every transaction of
// the SQL layer that starts between two commits reads the same revision
// (its shared snapshot), and the same range is often read again (the
// same table scanned by each row of a correlated subquery, the catalog,
// repeated queries). Reads at older revisions are not cached, and a read
// at a newer revision empties the cache: it then holds one revision.
//
// Cached pages are shared: the iterators and Get callers that receive
// them must not modify them (kv.Iterator's Key and Value are read-only,
// and getAt copies).
type readCache struct {
	mu struct {
		sync.Mutex
		rev     int64
		entries map[readKey]readAnswer
		bytes   int64
	}
}

// readCacheBytes bounds the keys and values the cache holds; past it,
// answers are not cached until the next revision empties it.
const readCacheBytes = 64 << 20

// readKey is one read: a range of etcd keys [from, end) ("" end: the key
// from alone) at a revision, up to limit keys, backward or forward.
type readKey struct {
	from, end string
	limit     int64
	desc      bool
}

// readAnswer is a read's answer: the pairs in ascending key order (kv
// keys, without the namespace prefix), and whether keys beyond limit
// remain.
type readAnswer struct {
	page []kvPair
	more bool
}

// get returns the cached answer of k at rev.
func (c *readCache) get(rev int64, k readKey) (readAnswer, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if rev != c.mu.rev {
		return readAnswer{}, false
	}
	a, ok := c.mu.entries[k]
	return a, ok
}

// put caches the answer of k at rev, unless rev is older than the
// cache's or the cache is full.
func (c *readCache) put(rev int64, k readKey, a readAnswer) {
	size := int64(len(k.from)+len(k.end)) + 64
	for _, p := range a.page {
		size += int64(len(p.key)+len(p.value)) + 48
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case rev < c.mu.rev:
		return
	case rev > c.mu.rev || c.mu.entries == nil:
		c.mu.rev, c.mu.entries, c.mu.bytes = rev, map[readKey]readAnswer{}, 0
	}
	if c.mu.bytes+size > readCacheBytes {
		return
	}
	c.mu.entries[k] = a
	c.mu.bytes += size
}
