package etcd

import (
	"context"
	"errors"
	"testing"

	clientv3 "go.etcd.io/etcd/client/v3"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/kvsql/kvsql/kv"
	"github.com/kvsql/kvsql/kv/etcd/etcdtest"
	"github.com/kvsql/kvsql/pgerror"
)

// lossyKV loses answers on purpose: the next Txn commits (or not) and
// then reports the connection lost, and the next gets fail, as when the
// cluster's majority dies with a commit in flight.
type lossyKV struct {
	clientv3.KV
	txns []lossyTxn // faults of the next Txns, in order
	gets int        // how many of the next gets fail
}

type lossyTxn struct{ apply bool }

var errLost = status.Error(codes.Unavailable, "test: connection lost")

func (l *lossyKV) Get(ctx context.Context, key string, opts ...clientv3.OpOption) (*clientv3.GetResponse, error) {
	if l.gets > 0 {
		l.gets--
		return nil, errLost
	}
	return l.KV.Get(ctx, key, opts...)
}

func (l *lossyKV) Txn(ctx context.Context) clientv3.Txn {
	if len(l.txns) == 0 {
		return l.KV.Txn(ctx)
	}
	f := l.txns[0]
	l.txns = l.txns[1:]
	return &lossy{Txn: l.KV.Txn(ctx), apply: f.apply}
}

type lossy struct {
	clientv3.Txn
	apply bool
}

func (t *lossy) If(cs ...clientv3.Cmp) clientv3.Txn   { t.Txn = t.Txn.If(cs...); return t }
func (t *lossy) Then(ops ...clientv3.Op) clientv3.Txn { t.Txn = t.Txn.Then(ops...); return t }
func (t *lossy) Else(ops ...clientv3.Op) clientv3.Txn { t.Txn = t.Txn.Else(ops...); return t }
func (t *lossy) Commit() (*clientv3.TxnResponse, error) {
	if t.apply {
		if _, err := t.Txn.Commit(); err != nil {
			return nil, err
		}
	}
	return nil, errLost
}

// TestUnknownOutcome settles commits whose answer was lost, without a
// restart: the client of the lost commit hears 40003 (not known); the
// engine reads nothing of it meanwhile; the next commit learns the
// outcome from the fence. An applied one is reported with
// kv.ErrLateCommit (that commit is not sent) and becomes visible; one
// that did not apply is fenced off for good, even when the fence-only
// Txn that does so loses its own answer. The engine goes on every time.
func TestUnknownOutcome(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: not starting etcd")
	}
	c := etcdtest.Start(t, 1)
	e, err := Open(Options{Endpoints: c.Endpoints(), Namespace: "settle"})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if err := e.Set([]byte("a"), []byte("1")); err != nil {
		t.Fatal(err)
	}
	lossy := &lossyKV{KV: e.cli.KV}
	e.cli.KV = lossy
	has := func(k string) bool {
		t.Helper()
		_, err := e.Get([]byte(k))
		if err != nil && !errors.Is(err, kv.ErrNotFound) {
			t.Fatal(err)
		}
		return err == nil
	}
	unknown := func(k string, apply bool) {
		t.Helper()
		lossy.txns, lossy.gets = []lossyTxn{{apply: apply}}, 1
		err := e.Set([]byte(k), []byte("1"))
		if !pgerror.HasCode(err, pgerror.StatementCompletionUnknown) || !errors.Is(err, kv.ErrNotCommitted) {
			t.Fatalf("commit of %s whose answer was lost: %v; want 40003", k, err)
		}
		if has(k) {
			t.Fatalf("%s is visible before its outcome is settled", k)
		}
	}

	// Applied, answer lost: the next commit reports it late.
	unknown("b", true)
	if err := e.Set([]byte("c"), []byte("1")); !errors.Is(err, kv.ErrLateCommit) {
		t.Fatalf("commit after a lost applied one: %v; want kv.ErrLateCommit", err)
	}
	if !has("b") || has("c") {
		t.Fatalf("after settling: b visible %v (want true), c visible %v (want false)", has("b"), has("c"))
	}
	if err := e.Set([]byte("c"), []byte("1")); err != nil || !has("c") {
		t.Fatalf("the engine did not go on after a late commit: %v", err)
	}

	// Not applied, answer lost: the next commit fences it off and goes on.
	unknown("d", false)
	if err := e.Set([]byte("e"), []byte("1")); err != nil {
		t.Fatalf("commit after a lost one that did not apply: %v", err)
	}
	if has("d") || !has("e") {
		t.Fatalf("d visible %v (want false), e visible %v (want true)", has("d"), has("e"))
	}

	// Not applied, and the fence-only Txn that settles it applies with
	// its answer lost too: the commit after it reads the fence, sees its
	// own bump there, and knows the first one never applied.
	unknown("f", false)
	lossy.txns = []lossyTxn{{apply: true}}
	if err := e.Set([]byte("g"), []byte("1")); !pgerror.HasCode(err, pgerror.ConnectionFailure) || !errors.Is(err, kv.ErrNotCommitted) {
		t.Fatalf("commit while settling fails: %v; want 08006, not committed", err)
	}
	if err := e.Set([]byte("h"), []byte("1")); err != nil {
		t.Fatalf("commit after a lost bump: %v", err)
	}
	if has("f") || has("g") || !has("h") {
		t.Fatalf("f %v g %v h %v; want false false true", has("f"), has("g"), has("h"))
	}
}

// countingKV counts the reads that reach the cluster.
type countingKV struct {
	clientv3.KV
	gets int
}

func (c *countingKV) Get(ctx context.Context, key string, opts ...clientv3.OpOption) (*clientv3.GetResponse, error) {
	c.gets++
	return c.KV.Get(ctx, key, opts...)
}

// TestReadCache: a read repeated at the same revision is answered from
// the cache; after a commit, reads at the new revision go to the cluster
// and see it, and a snapshot of the older revision still reads the older
// state (from the cluster: only the newest revision is cached).
func TestReadCache(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: not starting etcd")
	}
	c := etcdtest.Start(t, 1)
	e, err := Open(Options{Endpoints: c.Endpoints(), Namespace: "cache"})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	for _, k := range []string{"a", "b", "c"} {
		if err := e.Set([]byte(k), []byte(k+"1")); err != nil {
			t.Fatal(err)
		}
	}
	counter := &countingKV{KV: e.cli.KV}
	e.cli.KV = counter
	scan := func(r kv.Reader) string {
		t.Helper()
		it, err := r.NewIter(kv.IterOptions{})
		if err != nil {
			t.Fatal(err)
		}
		defer it.Close()
		var s string
		for ok := it.First(); ok; ok = it.Next() {
			s += string(it.Key()) + "=" + string(it.Value()) + " "
		}
		for ok := it.Last(); ok; ok = it.Prev() {
			s += string(it.Key()) + " "
		}
		if err := it.Error(); err != nil {
			t.Fatal(err)
		}
		return s
	}
	get := func(r kv.Reader, k string) string {
		t.Helper()
		v, err := r.Get([]byte(k))
		if err != nil {
			t.Fatal(err)
		}
		return string(v)
	}
	const want1 = "a=a1 b=b1 c=c1 c b a "
	if got := scan(e) + get(e, "b"); got != want1+"b1" {
		t.Fatalf("first reads: %q", got)
	}
	cold := counter.gets
	if cold == 0 {
		t.Fatal("the first reads did not reach the cluster")
	}
	old := e.NewSnapshot()
	defer old.Close()
	if got := scan(e) + get(e, "b") + scan(old) + get(old, "b"); got != want1+"b1"+want1+"b1" || counter.gets != cold {
		t.Fatalf("repeated reads: %q, %d requests (want none)", got, counter.gets-cold)
	}
	if err := e.Set([]byte("b"), []byte("b2")); err != nil {
		t.Fatal(err)
	}
	if got := scan(e) + get(e, "b"); got != "a=a1 b=b2 c=c1 c b a b2" || counter.gets == cold {
		t.Fatalf("reads after a commit: %q, %d requests (want some)", got, counter.gets-cold)
	}
	if got := scan(old) + get(old, "b"); got != want1+"b1" {
		t.Fatalf("the older snapshot after a commit: %q", got)
	}
}
