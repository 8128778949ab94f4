package sqllogictest

import (
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/kvsql/kvsql/kv"
)

// TestOwnFilesOnPebble runs the project's own files in process on Pebble
// stores (files in memory) instead of the memory engine: the scans'
// direct path over Pebble's iterator (kv.txnIter's raw) and the
// engine's block and iterator options must give every record's answer.
func TestOwnFilesOnPebble(t *testing.T) {
	target := &InProcessTarget{NewEngine: func() (kv.Engine, error) {
		return kv.OpenPebble("slt", kv.PebbleOptions{FS: vfs.NewMem(), CacheSize: 8 << 20, MemTableSize: 4 << 20})
	}}
	requireAllPass(t, run(t, target, kvsqlEngine, ownFiles))
}
