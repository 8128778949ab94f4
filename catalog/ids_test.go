package catalog

import (
	"testing"

	"github.com/kvsql/kvsql/kv"
)

// TestIDsNotReused: catalogs loaded from one store share an id counter,
// so two DDLs from the same snapshot (two transactions, one of which
// will not commit) get different ids; a reload adopts the counter; and a
// stored floor lifts the next id past ids the committed next id does not
// cover.
func TestIDsNotReused(t *testing.T) {
	e := kv.NewMemory()
	defer e.Close()
	c, err := Open(e)
	if err != nil {
		t.Fatal(err)
	}
	create := func(c *Catalog, name string) uint64 {
		t.Helper()
		n, _, err := c.CreateSequence(kv.NewTxn(e), DefaultDatabase, Sequence{Name: name, Type: "bigint", Start: 1, Increment: 1, Min: 1, Max: 1 << 62, Cache: 1})
		if err != nil {
			t.Fatal(err)
		}
		s, err := n.Sequence(DefaultDatabase, name)
		if err != nil {
			t.Fatal(err)
		}
		return s.ID
	}
	a, b := create(c, "a"), create(c, "b")
	if a == b {
		t.Fatalf("two creates from one snapshot both got id %d", a)
	}
	reloaded, err := Load(e) // nothing committed: next id is where Open left it
	if err != nil {
		t.Fatal(err)
	}
	reloaded.AdoptIDs(c)
	if id := create(reloaded, "c"); id == a || id == b {
		t.Fatalf("a reload handed out id %d again", id)
	}
	floor, ok := c.IDs().Unkept(b)
	if !ok || floor <= b {
		t.Fatalf("Unkept(%d) = %d, %v; want a floor past it", b, floor, ok)
	}
	if err := WriteIDFloor(e, floor); err != nil {
		t.Fatal(err)
	}
	c.IDs().Kept(floor)
	if _, ok := c.IDs().Unkept(a); ok {
		t.Fatalf("id %d below the stored floor %d still unkept", a, floor)
	}
	restarted, err := Load(e)
	if err != nil {
		t.Fatal(err)
	}
	if id := create(restarted, "d"); id < floor {
		t.Fatalf("after a restart id %d was handed out below the floor %d", id, floor)
	}
}
