package kv

import (
	"testing"
	"time"
)

// TestLogThrottle: the same Pebble error format is logged at most once
// per errorLogInterval, and the next line counts what was suppressed.
func TestLogThrottle(t *testing.T) {
	var th logThrottle
	t0 := time.Unix(0, 0)
	logged := 0
	for i := range 12028 {
		now := t0.Add(time.Duration(i) * 5 * time.Millisecond) // 60 s
		if _, ok := th.allow("background error: %v", now); ok {
			logged++
		}
	}
	if logged != 7 {
		t.Errorf("logged %d lines of 12,028 in 60 s, want 7 (one per 10 s)", logged)
	}
	n, ok := th.allow("background error: %v", t0.Add(time.Hour))
	if !ok || n == 0 {
		t.Errorf("after the interval: allowed %v with %d suppressed", ok, n)
	}
	if _, ok := th.allow("another: %v", t0.Add(time.Hour)); !ok {
		t.Error("a different format was throttled")
	}
}
