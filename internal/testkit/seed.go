package testkit

import (
	"testing"
	"time"
)

// Seed returns v, or a time-based seed when v is 0, and logs it with the
// flag that replays it (flagName, such as "txn.seed"). Every randomized
// test takes its seed from here, so a failure can be replayed.
func Seed(t testing.TB, v int64, flagName string) int64 {
	t.Helper()
	if v == 0 {
		v = time.Now().UnixNano()
	}
	t.Logf("seed %d (replay with -%s=%d)", v, flagName, v)
	return v
}
