package kv_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kvsql/kvsql/internal/testkit"
	"github.com/kvsql/kvsql/kv"
)

// damagedStore writes keys a0000..a1999 and b0000..b1999 into a Pebble
// store, closes it (flushing them to one sstable) and flips a byte in the
// block holding the b keys from b1500 on (data) or in the index block.
func damagedStore(t *testing.T, where string) (dir, sst string) {
	t.Helper()
	dir = t.TempDir()
	e, err := kv.OpenPebble(dir, kv.PebbleOptions{})
	if err != nil {
		t.Fatal(err)
	}
	val := []byte(strings.Repeat("v", 100))
	for _, p := range []string{"a", "b"} {
		for i := range 2000 {
			if err := e.Set(fmt.Appendf(nil, "%s%04d", p, i), val); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	ssts := testkit.SSTables(t, dir)
	if len(ssts) != 1 {
		t.Fatalf("want one sstable, have %v", ssts)
	}
	sst = ssts[0]
	switch where {
	case "data":
		blk, ok := testkit.DataBlockHolding(t, sst, []byte("b1500"))
		if !ok {
			t.Fatal("no data block holds b1500")
		}
		testkit.FlipByte(t, sst, int64(blk.Offset+blk.Length/2))
	case "index":
		_, idx := testkit.SSTLayout(t, sst)
		testkit.FlipByte(t, sst, int64(idx[0].Offset+idx[0].Length/2))
	}
	return dir, sst
}

// TestCorruptDataBlock: a read of the damaged block fails with a
// *CorruptionError naming the file, reads elsewhere work, the engine
// refuses writes from then on, records the damage, and reopens read-only.
func TestCorruptDataBlock(t *testing.T) {
	dir, sst := damagedStore(t, "data")
	var reported []*kv.CorruptionError
	e, err := kv.OpenPebble(dir, kv.PebbleOptions{OnDamage: func(ce *kv.CorruptionError) { reported = append(reported, ce) }})
	if err != nil {
		t.Fatal(err)
	}
	if v, err := e.Get([]byte("a0500")); err != nil || len(v) != 100 {
		t.Fatalf("undamaged key: %v", err)
	}
	_, err = e.Get([]byte("b1500"))
	var ce *kv.CorruptionError
	if !errors.As(err, &ce) || !errors.Is(err, kv.ErrCorruption) {
		t.Fatalf("damaged key: got %v, want a CorruptionError", err)
	}
	if ce.File != sst || string(ce.Read) != "b1500" {
		t.Fatalf("CorruptionError names %q reading %q, want %q reading b1500", ce.File, ce.Read, sst)
	}
	// A scan of the a keys never reaches the damaged block.
	it, err := e.NewIter(kv.IterOptions{LowerBound: []byte("a"), UpperBound: []byte("b")})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for ok := it.First(); ok; ok = it.Next() {
		n++
	}
	if it.Error() != nil || n != 2000 {
		t.Fatalf("scan of the a keys: %d keys, %v", n, it.Error())
	}
	_ = it.Close()
	if len(reported) != 1 || reported[0].File != sst {
		t.Fatalf("OnDamage calls: %v", reported)
	}
	if err := e.Set([]byte("c"), nil); !errors.Is(err, kv.ErrStoreDamaged) {
		t.Fatalf("write after damage: %v, want ErrStoreDamaged", err)
	}
	if kv.DamageOf(e) == nil {
		t.Fatal("DamageOf is nil after damage")
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, kv.DamageFile)); err != nil {
		t.Fatalf("no %s: %v", kv.DamageFile, err)
	}
	// Reopened: read-only from the start, and says why.
	e, err = kv.OpenPebble(dir, kv.PebbleOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if d := kv.DamageOf(e); d == nil || d.File != sst {
		t.Fatalf("reopened: DamageOf = %v", d)
	}
	if err := e.Set([]byte("c"), nil); !errors.Is(err, kv.ErrStoreDamaged) {
		t.Fatalf("write after reopen: %v, want ErrStoreDamaged", err)
	}
	_ = e.Close()

	v, err := kv.VerifyPebble(nil, dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(v.Damaged) != 1 || v.Damaged[0].File != sst {
		t.Fatalf("VerifyPebble: %+v", v)
	}
	d := v.Damaged[0]
	if string(d.Lo) < "b" || string(d.Lo) > "b1500" || string(d.Hi) <= "b1500" {
		t.Fatalf("VerifyPebble places the damage in [%s, %s], want around b1500", d.Lo, d.Hi)
	}
	if len(v.Recorded) != 1 {
		t.Fatalf("VerifyPebble: recorded %v", v.Recorded)
	}
}

// TestCorruptIndexBlock: every read of the file fails cleanly, and
// VerifyPebble names the whole file.
func TestCorruptIndexBlock(t *testing.T) {
	dir, sst := damagedStore(t, "index")
	e, err := kv.OpenPebble(dir, kv.PebbleOptions{OnDamage: func(*kv.CorruptionError) {}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Get([]byte("a0500")); !errors.Is(err, kv.ErrCorruption) {
		t.Fatalf("get: %v, want a corruption error", err)
	}
	_ = e.Close()
	v, err := kv.VerifyPebble(nil, dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(v.Damaged) != 1 || v.Damaged[0].File != sst || string(v.Damaged[0].Lo) != "a0000" || string(v.Damaged[0].Hi) != "b1999" {
		t.Fatalf("VerifyPebble: %+v", v.Damaged)
	}
}

// TestVerifyIntact: an intact store verifies clean.
func TestVerifyIntact(t *testing.T) {
	dir := t.TempDir()
	e, err := kv.OpenPebble(dir, kv.PebbleOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 100 {
		_ = e.Set(fmt.Appendf(nil, "k%d", i), []byte("v"))
	}
	_ = e.Close()
	v, err := kv.VerifyPebble(nil, dir)
	if err != nil || !v.OK() || v.Tables != 1 || v.Blocks == 0 {
		t.Fatalf("VerifyPebble: %+v, %v", v, err)
	}
}
