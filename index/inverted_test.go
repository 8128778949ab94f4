package index

import (
	"encoding/binary"
	"math/rand/v2"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/kvsql/kvsql/pgerror"
)

// TestFoldOps folds hand-built op logs: the last op of a pk decides, the
// result is sorted and has no duplicates, and a torn op is corruption.
func TestFoldOps(t *testing.T) {
	type op struct {
		kind byte
		pk   string
	}
	log := func(ops ...op) []byte {
		var b []byte
		for _, o := range ops {
			b = appendOp(b, o.kind, []byte(o.pk))
		}
		return b
	}
	for _, c := range []struct {
		name string
		log  []byte
		want []string
		ops  int
	}{
		{"empty", nil, []string{}, 0},
		{"adds", log(op{opAdd, "c"}, op{opAdd, "a"}, op{opAdd, "b"}), []string{"a", "b", "c"}, 3},
		{"remove", log(op{opAdd, "a"}, op{opAdd, "b"}, op{opRemove, "a"}), []string{"b"}, 3},
		{"re-add", log(op{opAdd, "a"}, op{opRemove, "a"}, op{opAdd, "a"}), []string{"a"}, 3},
		{"remove-all", log(op{opAdd, "a"}, op{opRemove, "a"}, op{opAdd, "b"}, op{opRemove, "b"}), []string{}, 4},
		{"duplicate-add", log(op{opAdd, "a"}, op{opAdd, "a"}), []string{"a"}, 2},
		{"prefix-pks", log(op{opAdd, "ab"}, op{opAdd, "a"}, op{opAdd, ""}), []string{"", "a", "ab"}, 3},
	} {
		got, ops, err := foldOps(c.log)
		if err != nil || ops != c.ops || !slices.Equal(got, c.want) {
			t.Errorf("%s: foldOps = %q, %d, %v; want %q, %d", c.name, got, ops, err, c.want, c.ops)
		}
	}
	for _, bad := range [][]byte{{9, 1, 'a'}, {opAdd, 5, 'a'}, {opAdd}, {opRemove, 0x80}} {
		if _, _, err := foldOps(bad); !pgerror.HasCode(err, pgerror.DataCorrupted) {
			t.Errorf("foldOps(%x) error = %v, want data corrupted", bad, err)
		}
	}
}

// chunkedLog builds the chunks of one search value holding the pks
// 0..n-1 (8-byte big-endian) as chunkOf spreads them, with ops as an
// insert order and random removes and re-adds gives them: ascending adds
// when shuffled is false (a bulk load), else adds in random order. It
// returns the chunks' logs joined, the ops parsed from them, and each
// chunk's end in the ops.
func chunkedLog(r *rand.Rand, n int, shuffled bool, churn float64) (buf []byte, ops []logOp, ends []int) {
	var chunks [NumChunks][]byte
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	if shuffled {
		r.Shuffle(n, func(i, j int) { order[i], order[j] = order[j], order[i] })
	}
	pkOf := func(i int) []byte { return binary.BigEndian.AppendUint64(nil, uint64(i)) }
	for _, i := range order {
		pk := pkOf(i)
		c := chunkOf(pk)
		chunks[c] = appendOp(chunks[c], opAdd, pk)
		if r.Float64() < churn {
			pk = pkOf(r.IntN(n))
			c = chunkOf(pk)
			kind := opRemove
			if r.IntN(3) == 0 {
				kind = opAdd
			}
			chunks[c] = appendOp(chunks[c], kind, pk)
		}
	}
	for _, c := range chunks {
		if len(c) == 0 {
			continue
		}
		base := len(buf)
		buf = append(buf, c...)
		var err error
		if ops, err = parseOps(ops, buf, base); err != nil {
			panic(err)
		}
		ends = append(ends, len(ops))
	}
	return buf, ops, ends
}

// TestFoldRunsMatchesFoldParsed: merging the chunks' sorted runs gives
// the live pks that sorting all ops together gives, for bulk-loaded and
// randomly ordered chunks, with and without removes and re-adds.
func TestFoldRunsMatchesFoldParsed(t *testing.T) {
	r := rand.New(rand.NewPCG(7, uint64(time.Now().UnixNano())))
	pks := func(buf []byte, live []logOp) []string {
		out := make([]string, len(live))
		for i, o := range live {
			out[i] = string(buf[o.off : o.off+o.n])
		}
		return out
	}
	for iter := range 300 {
		n := r.IntN(2000)
		shuffled, churn := r.IntN(2) == 0, []float64{0, 0.1, 0.9}[r.IntN(3)]
		buf, ops, ends := chunkedLog(r, n, shuffled, churn)
		want := pks(buf, foldParsed(slices.Clone(ops), buf))
		got := pks(buf, foldRuns(ops, ends, buf, nil))
		if !slices.Equal(got, want) {
			t.Fatalf("iteration %d (n %d, shuffled %v, churn %v): foldRuns gives %d pks, foldParsed %d", iter, n, shuffled, churn, len(got), len(want))
		}
	}
}

// BenchmarkFoldChunks folds one search value of 100,000 bulk-loaded pks
// in 16 chunks (a 10% lookup of kvsql bench's inverted index) by sorting
// every op together (sort-all, the fold before chunk merging) and by
// merging the chunks' runs (merge-runs).
func BenchmarkFoldChunks(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	buf, ops, ends := chunkedLog(r, 100_000, false, 0)
	work := make([]logOp, len(ops))
	var out []logOp
	b.Run("sort-all", func(b *testing.B) {
		defer reportCPU(b, cpuTime())
		for b.Loop() {
			copy(work, ops)
			if len(foldParsed(work, buf)) != 100_000 {
				b.Fatal("wrong fold")
			}
		}
	})
	b.Run("merge-runs", func(b *testing.B) {
		defer reportCPU(b, cpuTime())
		for b.Loop() {
			copy(work, ops)
			if out = foldRuns(work, ends, buf, out); len(out) != 100_000 {
				b.Fatal("wrong fold")
			}
		}
	})
}

// cpuTime is the CPU time this process has used: on a shared machine it
// swings less with the load than wall time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// reportCPU reports the CPU time per op since start as cpu-ns/op.
func reportCPU(b *testing.B, start time.Duration) {
	b.ReportMetric(float64(cpuTime()-start)/float64(b.N), "cpu-ns/op")
}
