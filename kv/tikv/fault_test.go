package tikv

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pingcap/kvproto/pkg/errorpb"
	"github.com/pingcap/kvproto/pkg/kvrpcpb"
	tikverr "github.com/tikv/client-go/v2/error"
	"github.com/tikv/client-go/v2/tikv"
	"github.com/tikv/client-go/v2/tikvrpc"

	"github.com/kvsql/kvsql/kv"
	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/session"
)

// faultClient passes every RPC to the mock stores unless its inject
// function answers it first (a non-nil response or error).
type faultClient struct {
	tikv.Client
	inject atomic.Pointer[func(*tikvrpc.Request) (*tikvrpc.Response, error)]
	hits   atomic.Int64
}

func (c *faultClient) SendRequest(ctx context.Context, addr string, req *tikvrpc.Request, timeout time.Duration) (*tikvrpc.Response, error) {
	if f := c.inject.Load(); f != nil {
		if resp, err := (*f)(req); resp != nil || err != nil {
			c.hits.Add(1)
			return resp, err
		}
	}
	return c.Client.SendRequest(ctx, addr, req, timeout)
}

// set installs f as the injector (nil: none).
func (c *faultClient) set(f func(*tikvrpc.Request) (*tikvrpc.Response, error)) {
	if f == nil {
		c.inject.Store(nil)
		return
	}
	c.inject.Store(&f)
}

// openFaulty opens a mock engine of 16 regions whose RPCs go through a
// faultClient.
func openFaulty(t *testing.T) (*Mock, *faultClient) {
	t.Helper()
	fc := &faultClient{}
	m, err := OpenMock(MockOptions{Regions: 16, ClientHijack: func(c tikv.Client) tikv.Client {
		fc.Client = c
		return fc
	}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = m.Close() })
	// Claimed before any fault is injected, as a server claims its store
	// when it opens it: the faults are for the data's commits.
	if err := m.Claim(); err != nil {
		t.Fatal(err)
	}
	return m, fc
}

// conflictOnPrewrite answers a prewrite with a write conflict on its
// first key, as TiKV does when a newer commit touched it; while limit
// is positive it counts down and then lets prewrites through.
func conflictOnPrewrite(limit *atomic.Int64) func(*tikvrpc.Request) (*tikvrpc.Response, error) {
	return func(req *tikvrpc.Request) (*tikvrpc.Response, error) {
		if req.Type != tikvrpc.CmdPrewrite || (limit != nil && limit.Add(-1) < 0) {
			return nil, nil
		}
		p := req.Prewrite()
		return &tikvrpc.Response{Resp: &kvrpcpb.PrewriteResponse{Errors: []*kvrpcpb.KeyError{{
			Conflict: &kvrpcpb.WriteConflict{StartTs: p.GetStartVersion(), ConflictTs: p.GetStartVersion() + 1, Key: p.GetMutations()[0].GetKey(), Primary: p.GetPrimaryLock()},
		}}}}, nil
	}
}

// failPrimaryCommit answers the commit of every transaction's primary
// key with a key error, as TiKV does when the primary's lock is gone
// (rolled back by another client's lock resolution): the transaction did
// not commit.
func failPrimaryCommit(req *tikvrpc.Request) (*tikvrpc.Response, error) {
	if req.Type != tikvrpc.CmdCommit {
		return nil, nil
	}
	return &tikvrpc.Response{Resp: &kvrpcpb.CommitResponse{Error: &kvrpcpb.KeyError{
		Retryable: "injected: txn lock not found",
	}}}, nil
}

// spreadBatch writes keys in many regions (the table-ID byte varies), a
// merge onto "m", and returns the keys it set.
func spreadBatch(t *testing.T, e kv.Engine) []string {
	t.Helper()
	b := e.NewBatch()
	defer b.Close()
	var keys []string
	for i := range 16 {
		k := fmt.Sprintf("%c-row", byte(i*16+1))
		keys = append(keys, k)
		if err := b.Set([]byte(k), []byte("v")); err != nil {
			t.Fatal(err)
		}
	}
	if err := b.Merge([]byte("m"), []byte("+1")); err != nil {
		t.Fatal(err)
	}
	if err := b.Commit(true); err != nil {
		t.Fatalf("commit: %v", err)
	}
	return keys
}

// TestConflictRetried: a batch whose prewrite loses a write conflict is
// retried on a fresh timestamp and applied exactly once (its merge too).
func TestConflictRetried(t *testing.T) {
	m, fc := openFaulty(t)
	if err := m.Set([]byte("m"), []byte("0")); err != nil {
		t.Fatal(err)
	}
	var limit atomic.Int64
	limit.Store(2)
	fc.set(conflictOnPrewrite(&limit))
	keys := spreadBatch(t, m)
	fc.set(nil)
	if fc.hits.Load() != 2 {
		t.Fatalf("%d injected conflicts; want 2", fc.hits.Load())
	}
	if v, err := m.Get([]byte("m")); err != nil || string(v) != "0+1" {
		t.Fatalf("merge after two retries = %q, %v; want 0+1 (applied once)", v, err)
	}
	for _, k := range keys {
		if _, err := m.Get([]byte(k)); err != nil {
			t.Fatalf("Get(%q) after commit: %v", k, err)
		}
	}
}

// wantNoneOf fails if any of keys is visible.
func wantNoneOf(t *testing.T, e kv.Engine, keys []string) {
	t.Helper()
	for _, k := range keys {
		if v, err := e.Get([]byte(k)); !errors.Is(err, kv.ErrNotFound) {
			t.Fatalf("Get(%q) = %q, %v after a failed commit; want ErrNotFound (half-visible write)", k, v, err)
		}
	}
}

// TestConflictPersistent and TestCommitPrimaryFails: a batch that keeps
// losing returns kv.ErrConflict and none of its writes is visible, in any
// region; the engine works normally afterwards.
func TestConflictPersistent(t *testing.T) {
	testFailedCommit(t, conflictOnPrewrite(nil))
}

func TestCommitPrimaryFails(t *testing.T) {
	testFailedCommit(t, failPrimaryCommit)
}

func testFailedCommit(t *testing.T, inject func(*tikvrpc.Request) (*tikvrpc.Response, error)) {
	m, fc := openFaulty(t)
	m.retries = 2
	fc.set(inject)
	b := m.NewBatch()
	var keys []string
	for i := range 16 {
		k := fmt.Sprintf("%c-row", byte(i*16+1))
		keys = append(keys, k)
		if err := b.Set([]byte(k), []byte("v")); err != nil {
			t.Fatal(err)
		}
	}
	err := b.Commit(false)
	fc.set(nil)
	if !errors.Is(err, kv.ErrConflict) {
		t.Fatalf("commit under injected failures: %v; want kv.ErrConflict", err)
	}
	if fc.hits.Load() < 3 {
		t.Fatalf("%d injections; want one per attempt (3)", fc.hits.Load())
	}
	wantNoneOf(t, m, keys)
	keys = spreadBatch(t, m)
	for _, k := range keys {
		if _, err := m.Get([]byte(k)); err != nil {
			t.Fatalf("after recovery Get(%q): %v", k, err)
		}
	}
}

// TestRegionErrors: region errors (a busy store, a leader that moved, a
// stale command) on about one RPC in three are retried by client-go's
// backoffer; the conformance checks still hold.
func TestRegionErrors(t *testing.T) {
	m, fc := openFaulty(t)
	var n atomic.Int64
	errs := []*errorpb.Error{
		{ServerIsBusy: &errorpb.ServerIsBusy{Reason: "injected"}},
		{NotLeader: &errorpb.NotLeader{}},
		{StaleCommand: &errorpb.StaleCommand{}},
	}
	fc.set(func(req *tikvrpc.Request) (*tikvrpc.Response, error) {
		switch req.Type {
		case tikvrpc.CmdGet, tikvrpc.CmdScan, tikvrpc.CmdBatchGet, tikvrpc.CmdPrewrite, tikvrpc.CmdCommit:
		default:
			return nil, nil
		}
		i := n.Add(1)
		if i%3 != 0 {
			return nil, nil
		}
		j := int(i/3-1) % len(errs)
		if j == 0 && i > 3 {
			return nil, nil // a busy store costs a long backoff: once is enough
		}
		return tikvrpc.GenRegionErrorResp(req, errs[j])
	})
	if err := m.Set([]byte("m"), []byte("0")); err != nil {
		t.Fatal(err)
	}
	for range 5 {
		spreadBatch(t, m)
	}
	if v, err := m.Get([]byte("m")); err != nil || string(v) != "0+1+1+1+1+1" {
		t.Fatalf("m = %q, %v", v, err)
	}
	it, err := m.NewIter(kv.IterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	count := 0
	for ok := it.Last(); ok; ok = it.Prev() {
		count++
	}
	if err := it.Close(); err != nil {
		t.Fatal(err)
	}
	if count != 17 {
		t.Fatalf("backward scan across 16 regions found %d keys; want 17", count)
	}
	if fc.hits.Load() == 0 {
		t.Fatal("no region error was injected")
	}
}

// TestSQLStates: through the SQL layer, a commit that loses on TiKV is
// 40001 and leaves no row behind, and the store keeps serving (it is not
// marked failed).
func TestSQLStates(t *testing.T) {
	m, fc := openFaulty(t)
	db, err := session.Open(session.Options{Engine: m.Engine})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	s, err := db.Session("")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	exec := func(sql string) error { _, err := s.Exec(ctx, sql); return err }
	count := func() string {
		res, err := s.Exec(ctx, "SELECT count(*) FROM t")
		if err != nil {
			t.Fatal(err)
		}
		return fmt.Sprint(res[0].Rows[0][0])
	}
	if err := exec("CREATE TABLE t (id INT PRIMARY KEY, v TEXT); CREATE INDEX ON t (v); INSERT INTO t VALUES (1, 'a')"); err != nil {
		t.Fatal(err)
	}
	m.retries = 1
	for name, inject := range map[string]func(*tikvrpc.Request) (*tikvrpc.Response, error){
		"prewrite conflict":     conflictOnPrewrite(nil),
		"primary commit failed": failPrimaryCommit,
	} {
		// An explicit transaction: an autocommit statement would be
		// retried on 40001 (50 times) before the client sees it.
		if err := exec("BEGIN; INSERT INTO t SELECT g, 'x' || g FROM generate_series(2, 200) g"); err != nil {
			t.Fatal(err)
		}
		fc.set(inject)
		err := exec("COMMIT")
		fc.set(nil)
		if !pgerror.HasCode(err, pgerror.SerializationFailure) {
			t.Fatalf("%s: COMMIT: %v; want SQLSTATE 40001", name, err)
		}
		if got := count(); got != "1" {
			t.Fatalf("%s: %s rows after the failed COMMIT; want 1", name, got)
		}
	}
	if err := exec("INSERT INTO t SELECT g, 'x' || g FROM generate_series(2, 200) g"); err != nil {
		t.Fatalf("INSERT after the faults: %v", err)
	}
	if got := count(); got != "200" {
		t.Fatalf("%s rows; want 200", got)
	}
}

// TestMapCommitError: client-go's failures map onto kv's errors.
func TestMapCommitError(t *testing.T) {
	for _, c := range []struct {
		err  error
		want error
	}{
		{&tikverr.ErrWriteConflict{WriteConflict: &kvrpcpb.WriteConflict{}}, kv.ErrConflict},
		{&tikverr.ErrRetryable{Retryable: "txn lock not found"}, kv.ErrConflict},
		{&tikverr.ErrTxnTooLarge{Size: 1 << 30}, kv.ErrTooLarge},
		{&tikverr.ErrEntryTooLarge{Limit: 1, Size: 2}, kv.ErrTooLarge},
	} {
		if got := mapCommitError(c.err); !errors.Is(got, c.want) {
			t.Errorf("mapCommitError(%v) = %v; want %v", c.err, got, c.want)
		}
	}
	// An unknown outcome is neither a conflict (the writes may be there)
	// nor silent: the session marks the store failed on it.
	got := mapCommitError(fmt.Errorf("commit: %w", tikverr.ErrResultUndetermined))
	if errors.Is(got, kv.ErrConflict) || !errors.Is(got, tikverr.ErrResultUndetermined) {
		t.Errorf("undetermined commit mapped to %v", got)
	}
}
