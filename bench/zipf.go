package bench

import (
	"math"
	"math/rand/v2"
)

// YCSBTheta is YCSB's default zipfian constant.
const YCSBTheta = 0.99

// Zipfian draws integers in [0, n) with P(k) proportional to 1/(k+1)^theta,
// by the method of Gray et al., "Quickly generating billion-record
// synthetic databases" (SIGMOD 1994), which YCSB's ZipfianGenerator uses.
// Item 0 is the most popular. Setup costs O(n) (the zeta sum); each draw
// costs O(1). A Zipfian is not safe for concurrent use: give each
// goroutine its own (they may share the zeta value through Clone).
type Zipfian struct {
	n         uint64
	theta     float64
	alpha     float64
	zetan     float64
	eta       float64
	half      float64 // 1 + 0.5^theta
	scrambled bool
	rng       *rand.Rand
}

// NewZipfian returns a generator over [0, n) drawing from rng. theta must
// be in (0, 1); n must be at least 2. With scrambled, the popular items are
// spread over the key space by hashing (YCSB's ScrambledZipfianGenerator)
// instead of being the smallest keys.
func NewZipfian(n uint64, theta float64, scrambled bool, rng *rand.Rand) *Zipfian {
	if n < 2 {
		n = 2
	}
	z := &Zipfian{n: n, theta: theta, scrambled: scrambled, rng: rng}
	z.zetan = zeta(n, theta)
	zeta2 := zeta(2, theta)
	z.alpha = 1 / (1 - theta)
	z.eta = (1 - math.Pow(2/float64(n), 1-theta)) / (1 - zeta2/z.zetan)
	z.half = 1 + math.Pow(0.5, theta)
	return z
}

// Clone returns a generator with the same distribution drawing from rng,
// without recomputing the zeta sum.
func (z *Zipfian) Clone(rng *rand.Rand) *Zipfian {
	c := *z
	c.rng = rng
	return &c
}

func zeta(n uint64, theta float64) float64 {
	var s float64
	for i := uint64(1); i <= n; i++ {
		s += 1 / math.Pow(float64(i), theta)
	}
	return s
}

// Next returns the next draw.
func (z *Zipfian) Next() uint64 {
	u := z.rng.Float64()
	uz := u * z.zetan
	var k uint64
	switch {
	case uz < 1:
		k = 0
	case uz < z.half:
		k = 1
	default:
		k = uint64(float64(z.n) * math.Pow(z.eta*u-z.eta+1, z.alpha))
		if k >= z.n {
			k = z.n - 1
		}
	}
	if z.scrambled {
		k = fnv64(k) % z.n
	}
	return k
}

// Prob returns the probability of rank k (0-based) before scrambling.
func (z *Zipfian) Prob(k uint64) float64 {
	return 1 / math.Pow(float64(k+1), z.theta) / z.zetan
}

// fnv64 is FNV-1a over the 8 bytes of v, as YCSB scrambles items.
func fnv64(v uint64) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < 8; i++ {
		h ^= v & 0xff
		h *= 1099511628211
		v >>= 8
	}
	return h
}
