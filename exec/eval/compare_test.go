package eval

import (
	"flag"
	"hash/maphash"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/kvsql/kvsql/types"
)

var seedFlag = flag.Uint64("seed", 0, "seed for randomized tests (0: time-based)")

func testSeed(t *testing.T) uint64 {
	seed := *seedFlag
	if seed == 0 {
		seed = uint64(time.Now().UnixNano())
	}
	t.Logf("seed %d (rerun with -seed=%d)", seed, seed)
	return seed
}

// interesting values: boundaries where int/float and date/timestamp
// comparisons go wrong.
var compareValues = []types.Datum{
	types.Null,
	types.NewBool(false), types.NewBool(true),
	types.NewInt(math.MinInt64), types.NewInt(-1), types.NewInt(0), types.NewInt(1),
	types.NewInt(1 << 53), types.NewInt(1<<53 + 1), types.NewInt(math.MaxInt64),
	types.NewFloat(math.Inf(-1)), types.NewFloat(-1), types.NewFloat(math.Copysign(0, -1)),
	types.NewFloat(0), types.NewFloat(0.5), types.NewFloat(1), types.NewFloat(1 << 53),
	types.NewFloat(1<<53 + 2), types.NewFloat(1 << 63), types.NewFloat(-(1 << 63)),
	types.NewFloat(math.Inf(1)), types.NewFloat(math.NaN()),
	types.NewText(""), types.NewText("a"), types.NewText("B"), types.NewText("ab"),
	types.NewBytes(nil), types.NewBytes([]byte("a")),
	types.NewDate(0), types.NewDate(1), types.NewDate(-1),
	types.NewTimestamp(0), types.NewTimestamp(microsPerDay), types.NewTimestamp(1),
}

func randomDatum(r *rand.Rand) types.Datum {
	if r.IntN(3) == 0 {
		return compareValues[r.IntN(len(compareValues))]
	}
	switch r.IntN(6) {
	case 0:
		return types.NewInt(r.Int64N(7) - 3)
	case 1:
		return types.NewFloat(float64(r.IntN(13)-6) / 2)
	case 2:
		return types.NewText(string(rune('a' + r.IntN(3))))
	case 3:
		return types.NewDate(r.Int64N(3) - 1)
	case 4:
		return types.NewTimestamp((r.Int64N(3) - 1) * microsPerDay)
	}
	return types.NewBool(r.IntN(2) == 0)
}

func hashOf(seed maphash.Seed, d types.Datum) uint64 {
	var h maphash.Hash
	h.SetSeed(seed)
	Hash(&h, d)
	return h.Sum64()
}

// TestCompareProperties checks that Compare is a total order (reflexive,
// antisymmetric, transitive), that NULL sorts last, and that Hash agrees
// with Equal, over all pairs and triples of the boundary values and over
// random triples.
func TestCompareProperties(t *testing.T) {
	seed := maphash.MakeSeed()
	check := func(a, b, c types.Datum) {
		ab, ba := Compare(a, b), Compare(b, a)
		if ab != -ba {
			t.Fatalf("Compare(%v, %v) = %d but Compare(%v, %v) = %d", a, b, ab, b, a, ba)
		}
		if Compare(a, a) != 0 {
			t.Fatalf("Compare(%v, %v) != 0", a, a)
		}
		if Equal(a, b) && hashOf(seed, a) != hashOf(seed, b) {
			t.Fatalf("%v and %v are Equal but hash differently", a, b)
		}
		if a.IsNull() && !b.IsNull() && ab != 1 {
			t.Fatalf("NULL does not sort after %v", b)
		}
		bc, ac := Compare(b, c), Compare(a, c)
		if ab <= 0 && bc <= 0 && ac > 0 {
			t.Fatalf("not transitive: %v <= %v <= %v but %v > %v", a, b, c, a, c)
		}
		if ab == 0 && bc == 0 && ac != 0 {
			t.Fatalf("equality not transitive: %v = %v = %v", a, b, c)
		}
	}
	for _, a := range compareValues {
		for _, b := range compareValues {
			for _, c := range compareValues {
				check(a, b, c)
			}
		}
	}
	r := rand.New(rand.NewPCG(testSeed(t), 0))
	for range 20000 {
		check(randomDatum(r), randomDatum(r), randomDatum(r))
	}
}

func TestCompareExamples(t *testing.T) {
	for _, c := range []struct {
		a, b types.Datum
		want int
	}{
		{types.NewInt(1), types.NewFloat(1), 0},
		{types.NewInt(1<<53 + 1), types.NewFloat(1 << 53), 1},
		{types.NewInt(math.MaxInt64), types.NewFloat(1 << 63), -1},
		{types.NewFloat(math.NaN()), types.NewFloat(math.Inf(1)), 1},
		{types.NewFloat(math.NaN()), types.NewInt(math.MaxInt64), 1},
		{types.NewFloat(math.Copysign(0, -1)), types.NewInt(0), 0},
		{types.NewText("B"), types.NewText("a"), -1},
		{types.NewDate(1), types.NewTimestamp(microsPerDay), 0},
		{types.NewDate(1), types.NewTimestamp(microsPerDay + 1), -1},
		{types.NewBool(false), types.NewBool(true), -1},
		{types.Null, types.NewInt(math.MaxInt64), 1},
		{types.Null, types.Null, 0},
	} {
		if got := Compare(c.a, c.b); got != c.want {
			t.Errorf("Compare(%v, %v) = %d, want %d", c.a, c.b, got, c.want)
		}
	}
}
