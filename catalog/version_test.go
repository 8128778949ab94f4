package catalog

import (
	"encoding/binary"
	"strings"
	"testing"

	"github.com/kvsql/kvsql/kv"
	"github.com/kvsql/kvsql/pgerror"
)

func TestBootstrapNewStore(t *testing.T) {
	e := kv.NewMemory()
	defer e.Close()
	if _, err := Load(e); err == nil {
		t.Fatal("Load of an empty store succeeded")
	}
	for i := 0; i < 2; i++ { // the second Open must find and keep the first's work
		c, err := Open(e)
		if err != nil {
			t.Fatal(err)
		}
		if got := c.Databases(); len(got) != 1 || got[0] != DefaultDatabase || c.NextID() != FirstUserSpace {
			t.Fatalf("open %d: databases %v next %d", i, got, c.NextID())
		}
	}
}

func TestRefuseNewerVersion(t *testing.T) {
	e := kv.NewMemory()
	defer e.Close()
	if err := setVersion(e, CurrentVersion+1); err != nil {
		t.Fatal(err)
	}
	_, err := Open(e)
	if err == nil || !strings.Contains(err.Error(), "store format version 2 is not supported: this kvsql reads version 1") ||
		!pgerror.HasCode(err, pgerror.FeatureNotSupported) {
		t.Fatalf("got %v", err)
	}
}

// TestUpgradeIdempotent runs a dummy version-2 step, including a re-run
// as after a crash between the step and the version write, and checks
// that the store ends up the same.
func TestUpgradeIdempotent(t *testing.T) {
	marker := []byte("\x01upgrade-marker")
	runs := 0
	step := upgrade{To: 2, Run: func(e kv.Engine) error {
		runs++
		b := e.NewBatch()
		defer b.Close()
		// Idempotent: Set, not Merge or increment.
		if err := b.Set(marker, []byte("v2")); err != nil {
			return err
		}
		return b.Commit(true)
	}}
	e := kv.NewMemory()
	defer e.Close()
	if err := bootstrap(e, 1, nil); err != nil {
		t.Fatal(err)
	}
	// Crash simulation: the step ran but the version was not written.
	if err := step.Run(e); err != nil {
		t.Fatal(err)
	}
	if err := bootstrap(e, 2, []upgrade{step}); err != nil {
		t.Fatal(err)
	}
	if err := bootstrap(e, 2, []upgrade{step}); err != nil { // already at 2: no run
		t.Fatal(err)
	}
	if runs != 2 {
		t.Fatalf("step ran %d times, want 2", runs)
	}
	v, err := e.Get(FormatKey())
	if ver, _ := binary.Uvarint(v); err != nil || ver != 2 {
		t.Fatalf("version %d, %v", ver, err)
	}
	if v, err := e.Get(marker); err != nil || string(v) != "v2" {
		t.Fatalf("marker %q, %v", v, err)
	}
	// Code that knows only version 1 now refuses the store.
	if err := bootstrap(e, 1, nil); err == nil {
		t.Fatal("version-1 code accepted a version-2 store")
	}
	// A missing step is an error, not a silent version bump.
	e2 := kv.NewMemory()
	defer e2.Close()
	if err := bootstrap(e2, 1, nil); err != nil {
		t.Fatal(err)
	}
	if err := bootstrap(e2, 3, []upgrade{{To: 3, Run: step.Run}}); err == nil {
		t.Fatal("upgrade with a gap succeeded")
	}
}
