package etcd

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/kvsql/kvsql/kv"
	"github.com/kvsql/kvsql/kv/etcd/etcdtest"
	"github.com/kvsql/kvsql/pgerror"
)

// TestPlan checks the net effect of batches: one write per key, deleted
// ranges cut around the keys set inside them, merges on keys the batch
// knows folded into puts, merges on unknown keys left to read at commit.
func TestPlan(t *testing.T) {
	set := func(k, v string) op { return op{kind: opSet, key: []byte(k), value: []byte(v)} }
	del := func(k string) op { return op{kind: opDelete, key: []byte(k)} }
	mrg := func(k, v string) op { return op{kind: opMerge, key: []byte(k), value: []byte(v)} }
	dr := func(a, b string) op { return op{kind: opDeleteRange, key: []byte(a), value: []byte(b)} }
	for _, c := range []struct {
		ops  []op
		want string
	}{
		{[]op{set("a", "1"), set("a", "2")}, "puts[a=2]"},
		{[]op{set("a", "1"), del("a")}, "dels[a]"},
		{[]op{mrg("a", "x"), mrg("a", "y")}, "merges[a=xy]"},
		{[]op{set("a", "1"), mrg("a", "x")}, "puts[a=1x]"},
		{[]op{del("a"), mrg("a", "x")}, "puts[a=x]"},
		{[]op{dr("a", "z"), mrg("m", "x")}, "ranges[[a,m) [m\\x00,z)] puts[m=x]"},
		{[]op{set("c", "1"), dr("a", "d"), set("b", "2"), del("e")}, "ranges[[a,b) [b\\x00,d)] dels[e] puts[b=2]"},
		{[]op{dr("a", "c"), dr("b", "f"), dr("x", "y"), del("d")}, "ranges[[a,f) [x,y)]"},
		{[]op{dr("a", "c"), set("a", "1"), set("b", "2")}, "ranges[[a\\x00,b) [b\\x00,c)] puts[a=1 b=2]"},
	} {
		if got := showPlan(planOf(c.ops)); got != c.want {
			t.Errorf("plan of %v = %s; want %s", c.ops, got, c.want)
		}
	}
}

func showPlan(p plan) string {
	var parts []string
	if len(p.ranges) > 0 {
		var rs []string
		for _, r := range p.ranges {
			rs = append(rs, fmt.Sprintf("[%s,%s)", strings.ReplaceAll(string(r[0]), "\x00", `\x00`), strings.ReplaceAll(string(r[1]), "\x00", `\x00`)))
		}
		parts = append(parts, "ranges["+strings.Join(rs, " ")+"]")
	}
	if len(p.dels) > 0 {
		parts = append(parts, fmt.Sprintf("dels%s", p.dels))
	}
	for _, l := range []struct {
		name string
		kvs  []kvPair
	}{{"puts", p.puts}, {"merges", p.merges}} {
		if len(l.kvs) > 0 {
			var s []string
			for _, kv := range l.kvs {
				s = append(s, string(kv.key)+"="+string(kv.value))
			}
			parts = append(parts, l.name+"["+strings.Join(s, " ")+"]")
		}
	}
	return strings.Join(parts, " ")
}

// TestLimitsAndFence runs one member with etcd's default --max-txn-ops
// (128) and a small --max-request-bytes: a batch over either limit is
// refused with 54000 naming the flag, nothing of it is visible, and the
// engine goes on. A second engine cannot claim the namespace (55006)
// until the first closes; a foreign write that moves the fence stops the
// engine's commits, naming the other writer.
func TestLimitsAndFence(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: not starting etcd")
	}
	c := etcdtest.Start(t, 1, "--max-txn-ops", "128", "--max-request-bytes", "65536")
	e, err := Open(Options{Endpoints: c.Endpoints(), Namespace: "limits"})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	commit := func(n, size int) error {
		b := e.NewBatch()
		defer b.Close()
		for i := range n {
			if err := b.Set(fmt.Appendf(nil, "k%04d", i), make([]byte, size)); err != nil {
				t.Fatal(err)
			}
		}
		return b.Commit(true)
	}
	if err := commit(100, 10); err != nil {
		t.Fatalf("100 keys: %v", err)
	}
	for _, c := range []struct {
		n, size int
		flag    string
	}{{200, 1, "--max-txn-ops"}, {10, 20000, "--max-request-bytes"}} {
		err := commit(c.n, c.size)
		if !pgerror.HasCode(err, pgerror.ProgramLimitExceeded) || !errors.Is(err, kv.ErrNotCommitted) || !strings.Contains(err.Error(), c.flag) {
			t.Fatalf("%d keys of %d bytes: %v; want 54000 naming %s", c.n, c.size, err, c.flag)
		}
		if _, err := e.Get([]byte("k0150")); !errors.Is(err, kv.ErrNotFound) && c.n == 200 {
			t.Fatalf("a refused batch is visible: %v", err)
		}
	}
	if err := e.Merge([]byte("k0001"), []byte("+")); err != nil {
		t.Fatalf("the engine did not go on after a refused batch: %v", err)
	}
	if v, err := e.Get([]byte("k0001")); err != nil || len(v) != 11 {
		t.Fatalf("after merge: %q, %v", v, err)
	}

	// A second engine on the namespace cannot claim it, nor write.
	other, err := Open(Options{Endpoints: c.Endpoints(), Namespace: "limits"})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if err := other.Claim(); !pgerror.HasCode(err, pgerror.ObjectInUse) || !strings.Contains(err.Error(), "another kvsql server") {
		t.Fatalf("claim of a claimed namespace: %v; want 55006", err)
	}
	if err := other.Set([]byte("x"), []byte("1")); !pgerror.HasCode(err, pgerror.ObjectInUse) || !errors.Is(err, kv.ErrNotCommitted) {
		t.Fatalf("write to a claimed namespace: %v; want 55006", err)
	}
	// Once the first engine closes, the claim is free at once.
	third, err := Open(Options{Endpoints: c.Endpoints(), Namespace: "limits"})
	if err != nil {
		t.Fatal(err)
	}
	defer third.Close()
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	if err := third.Claim(); err != nil {
		t.Fatalf("claim after the holder closed: %v", err)
	}

	// Behind the claim, the fence: a foreign write to the namespace (a
	// lapsed claim) stops the engine's commits.
	ctx, cancel := third.ctx()
	defer cancel()
	if _, err := third.cli.Put(ctx, third.fence, "intruder/1"); err != nil {
		t.Fatal(err)
	}
	err = third.Set([]byte("y"), []byte("1"))
	if err == nil || errors.Is(err, kv.ErrNotCommitted) || !strings.Contains(err.Error(), "another writer") {
		t.Fatalf("commit after a foreign writer: %v; want the fence error", err)
	}
	if _, err := third.Get([]byte("y")); !errors.Is(err, kv.ErrNotFound) {
		t.Fatalf("a fenced-off commit is visible: %v", err)
	}
}

// BenchmarkWrite measures what Merge costs on etcd, which has no merge
// operator: a Merge reads the stored value (a Txn conditional on the
// fence) and writes the concatenation (a second Txn), against one Txn
// for a Set. docs/distributed.md gives the figures.
func BenchmarkWrite(b *testing.B) {
	c := etcdtest.Start(b, 3)
	e, err := Open(Options{Endpoints: c.Endpoints(), Namespace: "bench"})
	if err != nil {
		b.Fatal(err)
	}
	defer e.Close()
	b.Run("set", func(b *testing.B) {
		for i := range b.N {
			if err := e.Set(fmt.Appendf(nil, "s%d", i%100), []byte("0123456789")); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("merge", func(b *testing.B) {
		for i := range b.N {
			if err := e.Merge(fmt.Appendf(nil, "m%d", i%100), []byte("0123456789")); err != nil {
				b.Fatal(err)
			}
		}
	})
}
