package etcd

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"

	"github.com/kvsql/kvsql/kv"
)

func init() {
	kv.RegisterStore("etcd", func(rest string) (kv.Engine, error) {
		opts, err := ParseSpec(rest)
		if err != nil {
			return nil, err
		}
		return Open(opts)
	})
}

// Options configure Open.
type Options struct {
	// Endpoints are the cluster members' client URLs or host:port pairs.
	Endpoints []string
	// Namespace prefixes every key this engine stores (default "kvsql"),
	// so several stores, or other applications, can share one cluster.
	Namespace string
	// Timeout bounds every request to the cluster (default 5s).
	Timeout time.Duration
}

// DefaultNamespace is the namespace of a store spec that names none.
const DefaultNamespace = "kvsql"

// ParseSpec parses what follows "etcd://" in a store spec:
// "HOST:PORT,HOST:PORT,...[/NAMESPACE]".
func ParseSpec(rest string) (Options, error) {
	hosts, ns, _ := strings.Cut(rest, "/")
	var opts Options
	for _, h := range strings.Split(hosts, ",") {
		if h = strings.TrimSpace(h); h != "" {
			opts.Endpoints = append(opts.Endpoints, h)
		}
	}
	if len(opts.Endpoints) == 0 {
		return opts, fmt.Errorf("etcd: store etcd://%s names no endpoint (etcd://HOST:PORT,HOST:PORT,...[/NAMESPACE])", rest)
	}
	opts.Namespace = ns
	return opts, nil
}

// Engine is a kv.Engine on an etcd cluster. See the package doc for how
// each operation maps onto etcd.
type Engine struct {
	cli     *clientv3.Client
	ns      string
	data    string // prefix of every data key: ns + "/k/"
	dataEnd string // the end of the data keys' range
	fence   string // the commit fence key: ns + "/fence"
	// ownerKey names the engine that claimed the namespace: ns + "/owner".
	ownerKey string
	timeout  time.Duration
	id       string // this engine's identity in fence values
	closed   atomic.Bool

	// rev is the cluster revision of this engine's newest commit (or of
	// its open): the latest state of its keys, which reads use.
	rev atomic.Int64
	// seq numbers this engine's commits, for fence values.
	seq atomic.Uint64

	// commitMu serializes commits: each one is conditional on the fence
	// still being where the previous one left it.
	commitMu struct {
		sync.Mutex
		fenceRev int64  // the fence's mod revision after our last commit
		pending  string // fence value of a commit whose outcome is unknown
		// broken, once set, is returned by every commit: a foreign writer
		// moved the fence, or a commit reported failed turned out applied.
		broken error
	}

	// owner is this engine's claim on the namespace (owner.go).
	owner struct {
		sync.Mutex
		lease clientv3.LeaseID // 0: not held
		stop  func()           // ends the lease's keep-alive
	}

	// cache answers reads at the newest revision read (cache.go).
	cache readCache

	// pins counts open snapshots and iterators by revision: Compact keeps
	// every revision a reader still needs.
	pins struct {
		sync.Mutex
		m         map[int64]int
		compacted int64
	}
}

var _ kv.Engine = (*Engine)(nil)

// Open connects to the cluster and reads where the store's commit fence
// is. It fails when no member answers within the timeout.
func Open(opts Options) (*Engine, error) {
	if len(opts.Endpoints) == 0 {
		return nil, errors.New("etcd: no endpoints")
	}
	if opts.Namespace == "" {
		opts.Namespace = DefaultNamespace
	}
	if opts.Timeout == 0 {
		opts.Timeout = 5 * time.Second
	}
	cli, err := clientv3.New(clientv3.Config{
		Endpoints:   opts.Endpoints,
		DialTimeout: opts.Timeout,
		// The server's --max-request-bytes is the limit that counts, and a
		// page of a scan may be large: the client does not add a lower one.
		MaxCallSendMsgSize: 1 << 30,
		MaxCallRecvMsgSize: 1 << 30,
		Logger:             zap.NewNop(),
	})
	if err != nil {
		return nil, unavailable("connect", err)
	}
	var idb [8]byte
	_, _ = rand.Read(idb[:])
	e := &Engine{
		cli:      cli,
		ns:       opts.Namespace,
		data:     opts.Namespace + "/k/",
		dataEnd:  opts.Namespace + "/k0", // '0' follows '/'
		fence:    opts.Namespace + "/fence",
		ownerKey: opts.Namespace + "/owner",
		timeout:  opts.Timeout,
		id:       hex.EncodeToString(idb[:]),
	}
	e.pins.m = map[int64]int{}
	ctx, cancel := e.ctx()
	defer cancel()
	resp, err := cli.Get(ctx, e.fence)
	if err != nil {
		_ = cli.Close()
		return nil, unavailable(fmt.Sprintf("open (endpoints %s)", strings.Join(opts.Endpoints, ",")), err)
	}
	if len(resp.Kvs) > 0 {
		e.commitMu.fenceRev = resp.Kvs[0].ModRevision
	}
	e.rev.Store(resp.Header.Revision)
	return e, nil
}

// ctx is the context of one request: bounded by the timeout, and failing
// at once on a member that has no leader instead of waiting for one.
func (e *Engine) ctx() (context.Context, context.CancelFunc) {
	return context.WithTimeout(clientv3.WithRequireLeader(context.Background()), e.timeout)
}

// key is the etcd key of a kv key.
func (e *Engine) key(k []byte) string { return e.data + string(k) }

// end is the etcd range end of a kv upper bound (nil: unbounded).
func (e *Engine) end(k []byte) string {
	if k == nil {
		return e.dataEnd
	}
	return e.key(k)
}

// Get implements kv.Reader: the value as of this engine's newest commit.
func (e *Engine) Get(key []byte) ([]byte, error) {
	if e.closed.Load() {
		return nil, kv.ErrClosed
	}
	return e.getAt(e.rev.Load(), key)
}

func (e *Engine) getAt(rev int64, key []byte) ([]byte, error) {
	k := readKey{from: e.key(key)}
	a, ok := e.cache.get(rev, k)
	if !ok {
		resp, err := e.rangeAt(rev, k.from)
		if err != nil {
			return nil, err
		}
		if len(resp.Kvs) > 0 {
			a.page = []kvPair{{clone(key), resp.Kvs[0].Value}}
		}
		e.cache.put(rev, k, a)
	}
	if len(a.page) == 0 {
		return nil, kv.ErrNotFound
	}
	return append(make([]byte, 0, len(a.page[0].value)), a.page[0].value...), nil
}

// rangeAt reads at revision rev, which this engine knows is committed.
// The read is serializable: the member answers from its own state,
// without asking the leader (a linearizable read's round trip), which is
// safe because a revision's state never changes once committed. A member
// that has not applied rev yet says so (ErrFutureRev), and the read is
// retried linearizably, which waits until it has.
func (e *Engine) rangeAt(rev int64, key string, opts ...clientv3.OpOption) (*clientv3.GetResponse, error) {
	ctx, cancel := e.ctx()
	defer cancel()
	opts = append(opts, clientv3.WithRev(rev))
	resp, err := e.cli.Get(ctx, key, append(opts, clientv3.WithSerializable())...)
	if errors.Is(err, rpctypes.ErrFutureRev) {
		resp, err = e.cli.Get(ctx, key, opts...)
	}
	if err != nil {
		return nil, readError(err)
	}
	return resp, nil
}

// NewIter implements kv.Reader; the iterator reads the revision of the
// newest commit at NewIter.
func (e *Engine) NewIter(opts kv.IterOptions) (kv.Iterator, error) {
	if e.closed.Load() {
		return nil, kv.ErrClosed
	}
	rev, release := e.pin()
	return newIter(e, rev, opts, release), nil
}

// pin takes the newest revision and keeps Compact from removing it until
// release is called.
func (e *Engine) pin() (rev int64, release func()) {
	e.pins.Lock()
	rev = e.rev.Load()
	e.pins.m[rev]++
	e.pins.Unlock()
	var once sync.Once
	return rev, func() {
		once.Do(func() {
			e.pins.Lock()
			if e.pins.m[rev]--; e.pins.m[rev] <= 0 {
				delete(e.pins.m, rev)
			}
			e.pins.Unlock()
		})
	}
}

// NewSnapshot implements kv.Engine: a snapshot is a revision.
func (e *Engine) NewSnapshot() kv.Snapshot {
	if e.closed.Load() {
		return &snapshot{e: e, closed: true}
	}
	rev, release := e.pin()
	return &snapshot{e: e, rev: rev, release: release}
}

// Set implements kv.Writer as a batch of one.
func (e *Engine) Set(key, value []byte) error {
	return e.commit([]op{{kind: opSet, key: clone(key), value: clone(value)}})
}

// Delete implements kv.Writer as a batch of one.
func (e *Engine) Delete(key []byte) error {
	return e.commit([]op{{kind: opDelete, key: clone(key)}})
}

// DeleteRange implements kv.Writer as a batch of one.
func (e *Engine) DeleteRange(start, end []byte) error {
	if !nonEmpty(start, end) {
		if e.closed.Load() {
			return kv.ErrClosed
		}
		return nil
	}
	return e.commit([]op{{kind: opDeleteRange, key: clone(start), value: clone(end)}})
}

// Merge implements kv.Writer as a batch of one.
func (e *Engine) Merge(key, operand []byte) error {
	return e.commit([]op{{kind: opMerge, key: clone(key), value: clone(operand)}})
}

// NewBatch implements kv.Engine.
func (e *Engine) NewBatch() kv.Batch { return &batch{e: e} }

// Flush implements kv.Engine. A commit returns once a quorum of members
// has it in its log on disk: there is nothing more to make durable.
func (e *Engine) Flush() error {
	if e.closed.Load() {
		return kv.ErrClosed
	}
	return nil
}

// Compact implements kv.Engine: etcd compacts whole revisions, not key
// ranges, so Compact removes every old version of every key below the
// oldest revision an open snapshot or iterator still reads (the newest
// commit when none is open). The range is ignored. Compaction frees the
// versions in etcd's index; the backend file shrinks only on defrag.
func (e *Engine) Compact(start, end []byte) error {
	if e.closed.Load() {
		return kv.ErrClosed
	}
	e.pins.Lock()
	target := e.rev.Load()
	for r := range e.pins.m {
		target = min(target, r)
	}
	if target <= e.pins.compacted {
		e.pins.Unlock()
		return nil
	}
	e.pins.compacted = target
	e.pins.Unlock()
	ctx, cancel := e.ctx()
	defer cancel()
	if _, err := e.cli.Compact(ctx, target); err != nil && !isCompacted(err) {
		return readError(err)
	}
	return nil
}

// Close implements kv.Engine.
func (e *Engine) Close() error {
	if e.closed.Load() {
		return kv.ErrClosed
	}
	e.release()
	if e.closed.Swap(true) {
		return kv.ErrClosed
	}
	return e.cli.Close()
}

// Namespace returns the prefix of this engine's keys in etcd.
func (e *Engine) Namespace() string { return e.ns }

// snapshot is a kv.Snapshot: reads at one revision.
type snapshot struct {
	e       *Engine
	rev     int64
	release func()
	mu      sync.Mutex
	closed  bool
}

func (s *snapshot) usable() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed || s.e.closed.Load() {
		return kv.ErrClosed
	}
	return nil
}

// Get implements kv.Reader.
func (s *snapshot) Get(key []byte) ([]byte, error) {
	if err := s.usable(); err != nil {
		return nil, err
	}
	return s.e.getAt(s.rev, key)
}

// NewIter implements kv.Reader.
func (s *snapshot) NewIter(opts kv.IterOptions) (kv.Iterator, error) {
	if err := s.usable(); err != nil {
		return nil, err
	}
	return newIter(s.e, s.rev, opts, func() {}), nil
}

// Close implements kv.Snapshot.
func (s *snapshot) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return kv.ErrClosed
	}
	s.closed = true
	if s.release != nil {
		s.release()
	}
	return nil
}

func clone(b []byte) []byte { return append(make([]byte, 0, len(b)), b...) }

func nonEmpty(start, end []byte) bool { return string(start) < string(end) }
