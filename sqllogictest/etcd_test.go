package sqllogictest

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/kvsql/kvsql/internal/testkit"
	"github.com/kvsql/kvsql/kv/etcd"
	"github.com/kvsql/kvsql/kv/etcd/etcdtest"
	"github.com/kvsql/kvsql/session"
)

// TestOnEtcd runs the project's own files, and select1-4 and evidence/
// from SQLite's corpus when it is there, over the wire on a kvsql server
// whose store is a real 3-member etcd cluster: every record must pass.
// select2-4 took 100 s here (343 s before the engine cached the answers
// of reads at the newest revision: docs/distributed.md).
func TestOnEtcd(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: not starting an etcd cluster")
	}
	c := etcdtest.Start(t, 3)
	eng, err := etcd.Open(etcd.Options{Endpoints: c.Endpoints(), Timeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	db, err := session.Open(session.Options{Engine: eng})
	if err != nil {
		t.Fatal(err)
	}
	target, err := NewWireTarget(testkit.StartServer(t, db, nil).URL())
	if err != nil {
		t.Fatal(err)
	}
	t.Run("own-files", func(t *testing.T) {
		requireAllPass(t, run(t, target, kvsqlEngine, ownFiles))
	})
	if !corpusPresent() {
		t.Log("../shared/sqllogictest not found: select1-4 and evidence/ are not run on etcd")
		return
	}
	t.Run("select1", func(t *testing.T) {
		requireAllPass(t, run(t, target, kvsqlEngine, filepath.Join(corpusDir, "select1.test")))
	})
	t.Run("select2-4", func(t *testing.T) {
		var files []string
		for _, f := range []string{"select2.test", "select3.test", "select4.test"} {
			files = append(files, filepath.Join(corpusDir, f))
		}
		requireAllPass(t, run(t, target, kvsqlEngine, files...))
	})
	t.Run("evidence", func(t *testing.T) {
		requireAllPass(t, run(t, target, kvsqlEngine, filepath.Join(corpusDir, "evidence")))
	})
}
