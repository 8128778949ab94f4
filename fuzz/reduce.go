package fuzz

import (
	"context"
	"time"
)

// reduce shrinks a failing case while the oracle keeps failing the same
// way (the same kind of mismatch): it drops chunks of the script, then
// replaces statements by their simpler variants (fewer rows, simpler
// predicates, fewer joins and columns), until nothing more helps or the
// time is up. It returns the smaller case and its outcome; when the
// failure does not reproduce on a fresh replay, the case is returned as
// it was with ok false.
func (e *env) reduce(ctx context.Context, oracle string, script []stmt, last stmt, want outcome, budget time.Duration) (_ []stmt, _ stmt, _ outcome, ok bool) {
	deadline := time.Now().Add(budget)
	best := want
	fails := func(sc []stmt, l stmt) bool {
		if ctx.Err() != nil {
			return false
		}
		if err := e.replay(ctx, sc); err != nil {
			return false
		}
		o := e.probe(ctx, oracle, l)
		if o.signature() != want.signature() {
			return false
		}
		best = o
		return true
	}
	if !fails(script, last) {
		return script, last, want, false
	}
	for changed := true; changed && time.Now().Before(deadline); {
		changed = false
		for chunk := len(script) / 2; chunk >= 1; chunk /= 2 {
			for i := 0; i+chunk <= len(script) && time.Now().Before(deadline); {
				cand := append(append([]stmt(nil), script[:i]...), script[i+chunk:]...)
				if fails(cand, last) {
					script, changed = cand, true
				} else {
					i += chunk
				}
			}
		}
		for i := 0; i < len(script) && time.Now().Before(deadline); i++ {
			for again := true; again && time.Now().Before(deadline); {
				again = false
				for _, v := range script[i].shrink() {
					cand := append([]stmt(nil), script...)
					cand[i] = v
					if fails(cand, last) {
						script, changed, again = cand, true, true
						break
					}
					if time.Now().After(deadline) {
						break
					}
				}
			}
		}
		for again := true; again && time.Now().Before(deadline); {
			again = false
			for _, v := range last.shrink() {
				if fails(script, v) {
					last, changed, again = v, true, true
					break
				}
				if time.Now().After(deadline) {
					break
				}
			}
		}
	}
	// Leave the databases as the reduced case left them, and its answers
	// in best.
	fails(script, last)
	return script, last, best, true
}
