package kvtest

import (
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/kvsql/kvsql/kv"
)

var seedFlag = flag.Uint64("seed", 0, "seed for randomized kv tests (0 picks one from the clock)")

// testSeed returns the -seed flag or a fresh seed, and logs it so a
// failure can be replayed with go test -run NAME -seed N.
func testSeed(t testing.TB) uint64 {
	seed := *seedFlag
	if seed == 0 {
		seed = uint64(time.Now().UnixNano())
	}
	t.Logf("seed %d (rerun with -seed %d)", seed, seed)
	return seed
}

// opKind names a random write of the differential test.
type opKind uint8

const (
	opSet opKind = iota + 1
	opDelete
	opDeleteRange
	opMerge
)

// diffTarget is one participant of the differential test: a reader, a
// writer and a way to take snapshots.
type diffTarget struct {
	name string
	e    kv.Engine
	txn  *kv.Txn // if set, reads and writes go through it
}

func (d *diffTarget) rw() kv.ReadWriter {
	if d.txn != nil {
		return d.txn
	}
	return d.e
}

// Differential applies one random sequence of writes, batches, snapshots
// and reads to an engine of every kind and to a kv.Txn over a memory
// engine (committed and restarted at random), and checks every read
// against a map model. steps is the length of the sequence.
func Differential(t *testing.T, kinds []Kind, steps int) {
	seed := testSeed(t)
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	var targets []*diffTarget
	for _, k := range kinds {
		targets = append(targets, &diffTarget{name: k.Name, e: openEngine(t, k)})
	}
	engines := len(targets) // the targets that take snapshots
	base := kv.NewMemory()
	txnTarget := &diffTarget{name: "txn", e: base, txn: kv.NewTxn(base)}
	targets = append(targets, txnTarget)
	defer func() {
		txnTarget.txn.Rollback()
		_ = base.Close()
	}()

	model := map[string]string{}
	key := func() []byte { return fmt.Appendf(nil, "k%02d", rng.IntN(50)) }
	val := func() []byte { return fmt.Appendf(nil, "v%d", rng.IntN(1000)) }

	type snap struct {
		readers []kv.Reader
		closers []func() error
		model   map[string]string
	}
	var snaps []*snap
	closeSnap := func(s *snap) {
		for _, c := range s.closers {
			must(t, c())
		}
	}
	defer func() {
		for _, s := range snaps {
			closeSnap(s)
		}
	}()

	// write applies one random write to w (every target's own writer)
	// and the model.
	type write struct {
		kind     opKind
		key, val []byte
	}
	randWrite := func() write {
		switch r := rng.IntN(10); {
		case r < 4:
			return write{opSet, key(), val()}
		case r < 6:
			return write{opDelete, key(), nil}
		case r < 9:
			return write{opMerge, key(), val()}
		default:
			return write{opDeleteRange, key(), key()}
		}
	}
	applyTo := func(w kv.Writer, op write) {
		switch op.kind {
		case opSet:
			must(t, w.Set(op.key, op.val))
		case opDelete:
			must(t, w.Delete(op.key))
		case opMerge:
			must(t, w.Merge(op.key, op.val))
		case opDeleteRange:
			must(t, w.DeleteRange(op.key, op.val))
		}
	}
	applyModel := func(op write) {
		k := string(op.key)
		switch op.kind {
		case opSet:
			model[k] = string(op.val)
		case opDelete:
			delete(model, k)
		case opMerge:
			model[k] += string(op.val)
		case opDeleteRange:
			for mk := range model {
				if mk >= k && mk < string(op.val) {
					delete(model, mk)
				}
			}
		}
	}

	for step := range steps {
		switch r := rng.IntN(100); {
		case r < 50:
			op := randWrite()
			for _, d := range targets {
				applyTo(d.rw(), op)
			}
			applyModel(op)
		case r < 58:
			ops := make([]write, 1+rng.IntN(6))
			for j := range ops {
				ops[j] = randWrite()
			}
			for _, d := range targets {
				if d.txn != nil {
					for _, op := range ops {
						applyTo(d.txn, op)
					}
					continue
				}
				b := d.e.NewBatch()
				for _, op := range ops {
					applyTo(b, op)
				}
				must(t, b.Commit(rng.IntN(4) == 0))
				must(t, b.Close())
			}
			for _, op := range ops {
				applyModel(op)
			}
		case r < 70:
			k := key()
			want, ok := model[string(k)]
			for _, d := range targets {
				got, err := d.rw().Get(k)
				if ok != (err == nil) || (ok && string(got) != want) || (err != nil && !errors.Is(err, kv.ErrNotFound)) {
					t.Fatalf("step %d: %s Get(%s) = %q, %v; model %q, %v", step, d.name, k, got, err, want, ok)
				}
			}
		case r < 80:
			var lo, hi []byte
			if rng.IntN(3) > 0 {
				lo = key()
			}
			if rng.IntN(3) > 0 {
				hi = key()
			}
			for _, d := range targets {
				diffIter(t, step, d.name, d.rw(), model, lo, hi, rng.Uint64())
			}
		case r < 84:
			if len(snaps) >= 3 {
				break
			}
			s := &snap{model: map[string]string{}}
			for k, v := range model {
				s.model[k] = v
			}
			for _, d := range targets[:engines] {
				es := d.e.NewSnapshot()
				s.readers = append(s.readers, es)
				s.closers = append(s.closers, es.Close)
			}
			snaps = append(snaps, s)
		case r < 90:
			if len(snaps) == 0 {
				break
			}
			j := rng.IntN(len(snaps))
			s := snaps[j]
			for n, rd := range s.readers {
				diffIter(t, step, targets[n].name+"-snapshot", rd, s.model, nil, nil, rng.Uint64())
			}
			if rng.IntN(2) == 0 {
				closeSnap(s)
				snaps = append(snaps[:j], snaps[j+1:]...)
			}
		case r < 95:
			d := txnTarget
			must(t, d.txn.Commit(rng.IntN(2) == 0))
			d.txn = kv.NewTxn(d.e)
		default:
			// A savepoint whose writes are rolled back changes nothing.
			d := txnTarget
			sp := d.txn.Savepoint()
			for range 1 + rng.IntN(5) {
				applyTo(d.txn, randWrite())
			}
			must(t, d.txn.RollbackTo(sp))
		}
	}
	for _, d := range targets {
		diffIter(t, steps, d.name, d.rw(), model, nil, nil, 1)
	}
}

// diffIter checks a full scan in both directions and a random walk of an
// iterator over r within [lo, hi) against the model.
func diffIter(t *testing.T, step int, name string, r kv.Reader, model map[string]string, lo, hi []byte, seed uint64) {
	t.Helper()
	var want []string
	for _, k := range modelKeys(model, lo, hi) {
		want = append(want, k+"="+model[k])
	}
	if got := scan(t, r, lo, hi); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("step %d: %s scan [%s, %s) =\n%v\nmodel:\n%v", step, name, lo, hi, got, want)
	}
	it, err := r.NewIter(kv.IterOptions{LowerBound: lo, UpperBound: hi})
	must(t, err)
	defer it.Close()
	m := &iterModel{keys: modelKeys(model, lo, hi), lower: lo, upper: hi, pos: -1}
	rng := rand.New(rand.NewPCG(seed, 0))
	randomIterOps(t, rng, it, m, model, 30, func(r *rand.Rand) []byte {
		return fmt.Appendf(nil, "k%02d", r.IntN(52))
	})
}
