package kv

import (
	"fmt"
	"testing"
)

// BenchmarkCommitSync measures one synced commit of a 1 KiB row on
// Pebble, the two ways a commit can reach stable storage: applied
// unsynced and then synced by Flush (session's group commit), or applied
// with its own sync.
//
//	go test ./kv -run '^$' -bench CommitSync -count 5 -cpu 1
func BenchmarkCommitSync(b *testing.B) {
	for _, mode := range []string{"apply+flush", "apply-sync"} {
		b.Run(mode, func(b *testing.B) {
			e, err := OpenPebble(b.TempDir(), PebbleOptions{})
			if err != nil {
				b.Fatal(err)
			}
			defer e.Close()
			val := make([]byte, 1024)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				bt := e.NewBatch()
				if err := bt.Set([]byte(fmt.Sprintf("k%08d", i%1000)), val); err != nil {
					b.Fatal(err)
				}
				sync := mode == "apply-sync"
				if err := bt.Commit(sync); err != nil {
					b.Fatal(err)
				}
				bt.Close()
				if !sync {
					if err := e.Flush(); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}
