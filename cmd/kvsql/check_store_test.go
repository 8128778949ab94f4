package main

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/kvsql/kvsql/catalog"
	"github.com/kvsql/kvsql/encoding"
	"github.com/kvsql/kvsql/internal/testkit"
	"github.com/kvsql/kvsql/kv"
	"github.com/kvsql/kvsql/kv/etcd/etcdtest"
	"github.com/kvsql/kvsql/session"
)

// TestCheckStoreEtcd: `kvsql check --store etcd://...` checks index ↔ row
// agreement on an etcd cluster: clean after a server wrote a table, a
// problem once an index's keys are gone, clean again after --repair.
func TestCheckStoreEtcd(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: not starting etcd")
	}
	c := etcdtest.Start(t, 3)
	spec := c.Spec("check")
	eng, err := kv.OpenStore(spec)
	if err != nil {
		t.Fatal(err)
	}
	db, err := session.Open(session.Options{Engine: eng})
	if err != nil {
		t.Fatal(err)
	}
	s := testkit.NewSession(t, db)
	testkit.Must(t, s, "CREATE TABLE t (id INT PRIMARY KEY, v INT)")
	testkit.Must(t, s, "CREATE INDEX t_v ON t (v)")
	testkit.Must(t, s, "INSERT INTO t SELECT g, g * 2 FROM generate_series(1, 500) g")
	_, idx, err := db.Catalog().Index(catalog.DefaultDatabase, "t_v")
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := checkCmd([]string{"--store", spec}, &out); err != nil || out.String() != "ok\n" {
		t.Fatalf("check of a clean store: %v\n%s", err, out.String())
	}

	e, err := kv.OpenStore(spec)
	if err != nil {
		t.Fatal(err)
	}
	p := catalog.SpacePrefix(idx.ID)
	if err := e.DeleteRange(p, encoding.PrefixEnd(p)); err != nil {
		t.Fatal(err)
	}
	_ = e.Close()
	out.Reset()
	if err := checkCmd([]string{"--store", spec}, &out); !errors.Is(err, errInconsistent) || !strings.Contains(out.String(), "t_v") {
		t.Fatalf("check of a store missing an index: %v\n%s", err, out.String())
	}
	out.Reset()
	if err := checkCmd([]string{"--store", spec, "--repair"}, &out); err != nil || !strings.Contains(out.String(), "repaired: rebuilt") {
		t.Fatalf("check --repair: %v\n%s", err, out.String())
	}
	out.Reset()
	if err := checkCmd([]string{"--store", spec}, &out); err != nil || out.String() != "ok\n" {
		t.Fatalf("check after repair: %v\n%s", err, out.String())
	}
	if err := checkCmd([]string{"--store", "nosuch://x"}, &out); err == nil || !strings.Contains(err.Error(), "etcd://") {
		t.Fatalf("check of an unknown scheme: %v", err)
	}
}
