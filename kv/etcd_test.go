package kv_test

import (
	"flag"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/kvsql/kvsql/kv"
	"github.com/kvsql/kvsql/kv/etcd"
	"github.com/kvsql/kvsql/kv/etcd/etcdtest"
)

// cluster is the 3-member etcd cluster the conformance and differential
// suites run the etcd engine on; nil without an etcd binary.
var cluster *etcdtest.Cluster

// TestMain starts the etcd cluster (when the binary is there) and adds
// the etcd engine to the suites. Each engine it opens gets a namespace of
// its own, named after the test's directory, so reopening the same
// directory reopens the same store.
func TestMain(m *testing.M) {
	flag.Parse()
	if etcdtest.HasBinary() && !testing.Short() {
		dir, err := os.MkdirTemp("", "kv-etcd-")
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		cluster, err = etcdtest.StartCluster(3, dir)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		kv.AddEngineKind("etcd", true, func(t testing.TB, dir string) kv.Engine {
			e, err := etcd.Open(etcd.Options{Endpoints: cluster.Endpoints(), Namespace: "t" + strings.ReplaceAll(dir, "/", "_")})
			if err != nil {
				t.Fatal(err)
			}
			return e
		})
		code := m.Run()
		cluster.Stop()
		_ = os.RemoveAll(dir)
		os.Exit(code)
	}
	os.Exit(m.Run())
}

// TestEtcdPresent says when the etcd engine is left out of the suites.
func TestEtcdPresent(t *testing.T) {
	switch {
	case testing.Short():
		t.Skip("-short: the etcd engine is not in the conformance and differential suites")
	case cluster == nil:
		t.Skip("no etcd binary (Debian's etcd-server; .ci/run installs it): the etcd engine is not in the conformance and differential suites")
	}
}
