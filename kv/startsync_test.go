package kv

import (
	"fmt"
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"
)

// TestPebbleStartSync: writes applied unsynced before StartSync survive a
// crash once its wait returned, and only then may a crash clone be
// trusted; a closed engine refuses to start a sync.
func TestPebbleStartSync(t *testing.T) {
	fs := vfs.NewCrashableMem()
	e, err := OpenPebble("db", PebbleOptions{FS: fs})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 20; i++ {
		if err := e.Set([]byte(fmt.Sprintf("k%02d", i)), []byte(fmt.Sprintf("v%d", i))); err != nil {
			t.Fatal(err)
		}
	}
	// Unsynced: a crash now may lose them (the clone keeps only synced data).
	lost := fs.CrashClone(vfs.CrashCloneCfg{UnsyncedDataPercent: 0})
	ss, ok := e.(SyncStarter)
	if !ok {
		t.Fatal("the Pebble engine does not implement SyncStarter")
	}
	wait, err := ss.StartSync()
	if err != nil {
		t.Fatal(err)
	}
	if err := wait(); err != nil {
		t.Fatal(err)
	}
	synced := fs.CrashClone(vfs.CrashCloneCfg{UnsyncedDataPercent: 0})
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := ss.StartSync(); err != ErrClosed {
		t.Fatalf("StartSync on a closed engine: %v, want ErrClosed", err)
	}
	for _, c := range []struct {
		name string
		fs   vfs.FS
		want bool
	}{{"before the sync", lost, false}, {"after the sync", synced, true}} {
		r, err := OpenPebble("db", PebbleOptions{FS: c.fs})
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		v, err := r.Get([]byte("k19"))
		if got := err == nil && string(v) == "v19"; got != c.want {
			t.Errorf("%s: Get k19 = %q, %v; want present: %v", c.name, v, err, c.want)
		}
		if err := r.Close(); err != nil {
			t.Fatal(err)
		}
	}
}
