package tikv

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/kvsql/kvsql/kv"
	"github.com/kvsql/kvsql/pgerror"
)

// TestClaim: one engine claims the store; a second engine on the same
// cluster and prefix is refused (55006) at Claim and at its first write,
// while an engine with another prefix is not; when another engine
// overwrites the claim (as one would after the holder's claim lapsed),
// the holder's next commit fails, not retried, with nothing written, and
// it never claims again; a released claim is free at once.
func TestClaim(t *testing.T) {
	m, err := OpenMock(MockOptions{Regions: 4})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	e := m.Engine
	if err := e.Claim(); err != nil {
		t.Fatal(err)
	}
	if err := e.Set([]byte("a"), []byte("1")); err != nil {
		t.Fatal(err)
	}
	other := newEngine(e.store, Options{})
	if err := other.Claim(); !pgerror.HasCode(err, pgerror.ObjectInUse) || !strings.Contains(err.Error(), "another kvsql server") {
		t.Fatalf("claim of a claimed store: %v; want 55006", err)
	}
	if err := other.Set([]byte("b"), []byte("1")); !pgerror.HasCode(err, pgerror.ObjectInUse) || !errors.Is(err, kv.ErrNotCommitted) {
		t.Fatalf("write to a claimed store: %v; want 55006", err)
	}
	if err := newEngine(e.store, Options{Prefix: "elsewhere\x00"}).Claim(); err != nil {
		t.Fatalf("claim under another prefix: %v", err)
	}

	// Overwrite the claim behind e's back.
	txn, err := e.store.Begin()
	if err != nil {
		t.Fatal(err)
	}
	if err := txn.Set(e.ownerKey(), []byte("intruder 0 host x pid 1")); err != nil {
		t.Fatal(err)
	}
	if err := txn.Commit(context.Background()); err != nil {
		t.Fatal(err)
	}
	err = e.Set([]byte("c"), []byte("1"))
	if !pgerror.HasCode(err, pgerror.ObjectInUse) || !strings.Contains(err.Error(), "claim on the store lapsed") {
		t.Fatalf("commit after the claim was taken: %v; want 55006", err)
	}
	if _, err := e.Get([]byte("c")); !errors.Is(err, kv.ErrNotFound) {
		t.Fatalf("a commit refused for the claim is visible: %v", err)
	}

	if err := e.Claim(); !pgerror.HasCode(err, pgerror.ObjectInUse) {
		t.Fatalf("claim again after losing it: %v; want 55006 (lost for good)", err)
	}

	// The intruder's claim has expired (expiry 0): other may claim, and
	// once it releases, a third engine claims at once.
	if err := other.Claim(); err != nil {
		t.Fatalf("claim over an expired one: %v", err)
	}
	third := newEngine(e.store, Options{})
	if err := third.Claim(); !pgerror.HasCode(err, pgerror.ObjectInUse) {
		t.Fatalf("claim while other holds it: %v; want 55006", err)
	}
	other.release()
	if err := third.Claim(); err != nil {
		t.Fatalf("claim after release: %v", err)
	}
	third.release()
}
