package tikv

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/pingcap/log"
	"github.com/tikv/client-go/v2/testutils"
	"github.com/tikv/client-go/v2/tikv"
	"github.com/tikv/client-go/v2/tikvrpc"
	"go.uber.org/zap/zapcore"
)

// MockOptions configure OpenMock.
type MockOptions struct {
	Options
	// Regions is how many regions the keyspace starts split into (at
	// least 1): the split points are spread over the first byte after the
	// prefix, where kvsql's keys put the table ID.
	Regions int
	// SplitEvery, if positive, splits the region of a written key at that
	// key after every SplitEvery-th commit, so tables and indexes end up
	// in many regions as data arrives and scans cross region boundaries.
	// Clients learn of each split from TiKV's region errors (stale epoch)
	// and retry through client-go's backoffer.
	SplitEvery int
	// ClientHijack, if set, wraps the client that carries every RPC to
	// the mock stores: tests use it to inject region errors, lock
	// conflicts and failed commits.
	ClientHijack func(tikv.Client) tikv.Client
}

// Mock is an engine on client-go's in-process mock TiKV cluster (the MVCC
// store, the PD oracle and region routing all in memory), with the
// cluster exposed for tests to split regions or inject faults.
type Mock struct {
	*Engine
	Cluster *testutils.MockCluster
	Client  *testutils.MockClient
}

// OpenMock starts an empty in-process mock cluster and opens an engine on
// it. Its data is lost at Close. It turns client-go's process-wide log
// down to fatal errors: the mock logs every region split at INFO and
// reports a harmless decoding error whenever a reverse scan reaches the
// start of the keyspace.
func OpenMock(opts MockOptions) (*Mock, error) {
	log.SetLevel(zapcore.FatalLevel)
	client, cluster, pdClient, err := testutils.NewMockTiKV("", nil)
	if err != nil {
		return nil, fmt.Errorf("tikv: mock cluster: %w", err)
	}
	e := newEngine(nil, opts.Options)
	var splits [][]byte
	for i := 1; i < opts.Regions; i++ {
		splits = append(splits, e.encodeKey([]byte{byte(i * 256 / opts.Regions)}))
	}
	testutils.BootstrapWithMultiRegions(cluster, splits...)
	store, err := tikv.NewTestTiKVStore(&closeGate{Client: client}, pdClient, opts.ClientHijack, nil, 0)
	if err != nil {
		return nil, fmt.Errorf("tikv: mock store: %w", err)
	}
	e.store = store
	if opts.SplitEvery > 0 {
		var mu sync.Mutex
		n := 0
		e.afterCommit = func(keys [][]byte) {
			mu.Lock()
			n++
			due := n%opts.SplitEvery == 0
			mu.Unlock()
			if due && len(keys) > 0 {
				// An error only means no split: the data is unaffected.
				_, _ = store.SplitRegions(context.Background(), [][]byte{e.encodeKey(keys[len(keys)/2])}, false, nil)
			}
		}
	}
	return &Mock{Engine: e, Cluster: cluster, Client: client}, nil
}

// RegionCount returns how many regions the mock cluster has now.
func (m *Mock) RegionCount() int { return len(m.Cluster.GetAllRegions()) }

// errMockClosed answers a request that reaches the mock cluster after
// its store was closed.
var errMockClosed = errors.New("tikv: mock cluster closed")

// closeGate stands between client-go and the mock cluster's RPC client so
// that closing the store cannot pull the mock's MVCC store out from under
// a request still running. client-go resolves some locks on goroutines of
// its own that KVStore.Close does not wait for; the mock's in-memory
// leveldb, closed under such a request, panics the process. Close waits
// for the requests in flight, and a request that arrives later gets
// errMockClosed, which the lock resolver logs and drops.
type closeGate struct {
	tikv.Client
	mu       sync.RWMutex // held for reading by each request in flight
	isClosed bool
}

func (g *closeGate) SendRequest(ctx context.Context, addr string, req *tikvrpc.Request, timeout time.Duration) (*tikvrpc.Response, error) {
	g.mu.RLock()
	defer g.mu.RUnlock()
	if g.isClosed {
		return nil, errMockClosed
	}
	return g.Client.SendRequest(ctx, addr, req, timeout)
}

func (g *closeGate) Close() error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.isClosed {
		return nil
	}
	g.isClosed = true
	return g.Client.Close()
}
