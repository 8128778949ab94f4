package bench

import (
	"flag"
	"math"
	"math/rand/v2"
	"testing"
	"time"
)

var seedFlag = flag.Uint64("seed", 0, "seed of the randomized tests (0: time-based)")

func testSeed(t *testing.T) uint64 {
	s := *seedFlag
	if s == 0 {
		s = uint64(time.Now().UnixNano())
	}
	t.Logf("seed %d (rerun with -seed %d)", s, s)
	return s
}

// TestZipfianDistribution draws from a zipfian over 1000 items and checks
// the frequencies of the most popular ranks against the exact
// probabilities, and that popularity falls with rank.
func TestZipfianDistribution(t *testing.T) {
	seed := testSeed(t)
	const n, draws = 1000, 200_000
	z := NewZipfian(n, YCSBTheta, false, rand.New(rand.NewPCG(seed, 0)))
	counts := make([]int, n)
	for i := 0; i < draws; i++ {
		k := z.Next()
		if k >= n {
			t.Fatalf("draw %d out of range [0, %d)", k, n)
		}
		counts[k]++
	}
	// Gray's method is exact for ranks 0 and 1, approximate beyond.
	for k, tol := range []float64{0.05, 0.05, 0.25, 0.25} {
		p := z.Prob(uint64(k))
		got := float64(counts[k]) / draws
		if math.Abs(got-p)/p > tol {
			t.Errorf("rank %d: frequency %.4f, want %.4f within %.0f%%", k, got, p, tol*100)
		}
	}
	// The top 10 ranks take far more than the bottom half.
	top, bottom := 0, 0
	for k := 0; k < 10; k++ {
		top += counts[k]
	}
	for k := n / 2; k < n; k++ {
		bottom += counts[k]
	}
	if top <= bottom {
		t.Errorf("top 10 ranks drew %d, bottom 500 drew %d: not skewed", top, bottom)
	}
}

func TestZipfianScrambled(t *testing.T) {
	seed := testSeed(t)
	const n = 500
	z := NewZipfian(n, YCSBTheta, true, rand.New(rand.NewPCG(seed, 0)))
	counts := map[uint64]int{}
	for i := 0; i < 50_000; i++ {
		k := z.Next()
		if k >= n {
			t.Fatalf("draw %d out of range [0, %d)", k, n)
		}
		counts[k]++
	}
	// Scrambling moves the hottest item away from key 0.
	hot, best := uint64(0), 0
	for k, c := range counts {
		if c > best {
			hot, best = k, c
		}
	}
	if hot != fnv64(0)%n {
		t.Errorf("hottest key %d, want fnv64(0)%%n = %d", hot, fnv64(0)%n)
	}
	// Clone shares the distribution.
	c := z.Clone(rand.New(rand.NewPCG(seed, 1)))
	if c.zetan != z.zetan || c.Next() >= n {
		t.Errorf("Clone changed the distribution")
	}
}
