package etcd_test

import (
	"strings"
	"testing"

	"github.com/kvsql/kvsql/kv"
	"github.com/kvsql/kvsql/kv/etcd"
	"github.com/kvsql/kvsql/kv/etcd/etcdtest"
	"github.com/kvsql/kvsql/kv/kvtest"
)

// etcdKind is the etcd engine on a 3-member cluster started for the test.
// Each engine it opens gets a namespace of its own, named after the
// test's directory, so reopening the same directory reopens the same
// store.
func etcdKind(t *testing.T) kvtest.Kind {
	c := etcdtest.Start(t, 3)
	return kvtest.Kind{Name: "etcd", Persistent: true, Open: func(t testing.TB, dir string) kv.Engine {
		e, err := etcd.Open(etcd.Options{Endpoints: c.Endpoints(), Namespace: "t" + strings.ReplaceAll(dir, "/", "_")})
		if err != nil {
			t.Fatal(err)
		}
		return e
	}}
}

// TestConformance runs kvtest's conformance suite on the etcd engine.
func TestConformance(t *testing.T) { kvtest.Conformance(t, []kvtest.Kind{etcdKind(t)}) }

// TestDifferential runs kvtest's randomized differential test on the etcd
// engine and a Txn.
func TestDifferential(t *testing.T) { kvtest.Differential(t, []kvtest.Kind{etcdKind(t)}, 1500) }
