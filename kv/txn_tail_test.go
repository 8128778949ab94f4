package kv

import (
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"
)

var tailSeed = flag.Uint64("txn.seed", 0, "seed of TestTxnTailDifferential (0: from the clock)")

// TestTxnTailDifferential runs the same random writes, reads, savepoints
// and rollbacks on two Txns over identical stores: one with the write
// buffer's ascending tail (the default), one with every write in the
// B-tree (noTail). Keys mostly ascend in a few key spaces, as a bulk
// load's do, with jumps back to keys already written. Every read, the
// read and write sets and the committed stores must be the same.
func TestTxnTailDifferential(t *testing.T) {
	seed := *tailSeed
	if seed == 0 {
		seed = uint64(time.Now().UnixNano())
	}
	t.Logf("seed %d (-txn.seed to repeat)", seed)
	for round := range 20 {
		rng := rand.New(rand.NewPCG(seed, uint64(round)))
		tailTxnRound(t, rng, fmt.Sprintf("seed %d round %d", seed, round))
	}
}

func tailTxnRound(t *testing.T, rng *rand.Rand, name string) {
	engines := [2]Engine{NewMemory(), NewMemory()}
	defer func() {
		for _, e := range engines {
			_ = e.Close()
		}
	}()
	// Both stores start with the same few keys.
	for i := range rng.IntN(20) {
		k, v := fmt.Appendf(nil, "%c%05d", 'a'+rune(rng.IntN(3)), rng.IntN(400)), fmt.Appendf(nil, "s%d", i)
		for _, e := range engines {
			must(t, e.Set(k, v))
		}
	}
	tail, ref := NewTxn(engines[0]), NewTxn(engines[1])
	ref.noTail = true
	defer tail.Rollback()
	defer ref.Rollback()
	both := [2]*Txn{tail, ref}

	next := [3]int{}        // the next ascending key of each space
	var written [][]byte    // keys written so far
	var savepoints [][2]int // both Txns' markers
	var views [][2]*TxnView
	key := func() []byte {
		space := rng.IntN(3)
		switch r := rng.IntN(10); {
		case r < 7: // ascending in its space
			next[space] += 1 + rng.IntN(3)
			k := fmt.Appendf(nil, "%c%05d", 'a'+rune(space), next[space])
			written = append(written, k)
			return k
		case r < 9 && len(written) > 0:
			if rng.IntN(2) == 0 { // one of the last few: likely at the tail's end
				return written[max(0, len(written)-1-rng.IntN(4))]
			}
			return written[rng.IntN(len(written))]
		default:
			return fmt.Appendf(nil, "%c%05d", 'a'+rune(space), rng.IntN(400))
		}
	}
	same := func(step int, what string, a, b any) {
		t.Helper()
		if fmt.Sprint(a) != fmt.Sprint(b) {
			t.Fatalf("%s, step %d: %s: tail %v, reference %v", name, step, what, a, b)
		}
	}
	get := func(r Reader, k []byte) string {
		v, err := r.Get(k)
		if errors.Is(err, ErrNotFound) {
			return "<absent>"
		}
		must(t, err)
		return string(v)
	}
	for step := range 400 {
		var res [2]string
		switch op := rng.IntN(100); {
		case op < 30:
			k, v := key(), fmt.Appendf(nil, "v%d", step)
			for i, x := range both {
				ok, err := x.SetIfNew(k, v)
				res[i] = fmt.Sprint(ok, err)
			}
		case op < 50:
			k, v := key(), fmt.Appendf(nil, "w%d", step)
			for i, x := range both {
				res[i] = fmt.Sprint(x.Set(k, v))
			}
		case op < 57:
			k := key()
			for i, x := range both {
				res[i] = fmt.Sprint(x.Delete(k))
			}
		case op < 64:
			k, v := key(), fmt.Appendf(nil, "+m%d", step)
			for i, x := range both {
				res[i] = fmt.Sprint(x.Merge(k, v))
			}
		case op < 66:
			lo, hi := key(), key()
			for i, x := range both {
				res[i] = fmt.Sprint(x.DeleteRange(lo, hi))
			}
		case op < 74:
			savepoints = append(savepoints, [2]int{tail.Savepoint(), ref.Savepoint()})
			res[0], res[1] = fmt.Sprint(savepoints[len(savepoints)-1][0]), fmt.Sprint(savepoints[len(savepoints)-1][1])
		case op < 80 && len(savepoints) > 0:
			j := rng.IntN(len(savepoints))
			for i, x := range both {
				res[i] = fmt.Sprint(x.RollbackTo(savepoints[j][i]))
			}
			savepoints = savepoints[:j+1]
		case op < 90:
			k := key()
			for i, x := range both {
				res[i] = get(x, k)
			}
		case op < 93:
			for i, x := range both {
				res[i] = fmt.Sprint(scan(t, x, nil, nil))
			}
		case op < 95:
			views = append(views, [2]*TxnView{tail.View(), ref.View()})
		case op < 98 && len(views) > 0:
			v := views[rng.IntN(len(views))]
			k := key()
			for i := range both {
				res[i] = get(v[i], k) + fmt.Sprint(scan(t, v[i], nil, nil))
			}
		default:
			for i, x := range both {
				w, o := x.WriteSets()
				res[i] = fmt.Sprint(x.Len(), w, o)
			}
		}
		same(step, "result", res[0], res[1])
	}
	same(-1, "read set", tail.ReadSet(), ref.ReadSet())
	same(-1, "write set", tail.WriteSet(), ref.WriteSet())
	must(t, tail.Commit(true))
	must(t, ref.Commit(true))
	same(-1, "committed store", scan(t, engines[0], nil, nil), scan(t, engines[1], nil, nil))
}
