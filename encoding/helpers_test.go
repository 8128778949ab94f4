package encoding

import (
	"strconv"

	"cmp"
	"flag"
	"github.com/cockroachdb/apd/v3"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kvsql/kvsql/types"
)

var (
	seedFlag    = flag.Uint64("seed", 0, "seed for randomized tests (0: use the time)")
	rewriteFlag = flag.Bool("rewrite", false, "rewrite golden files and the fuzz seed corpus under testdata/")
)

// newRand returns a seeded generator and logs the seed so a failure can be
// replayed with -seed.
func newRand(t testing.TB) *rand.Rand {
	seed := *seedFlag
	if seed == 0 {
		seed = uint64(time.Now().UnixNano())
	}
	t.Logf("seed: %d (rerun with -seed=%d)", seed, seed)
	return rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
}

// keyKinds are the kinds a key can hold, NULL included.
var keyKinds = []types.Kind{
	types.KindNull, types.KindBool, types.KindInt, types.KindFloat,
	types.KindText, types.KindBytes, types.KindDate, types.KindTimestamp,
	types.KindDecimal, types.KindInterval, types.KindTime, types.KindArray,
}

// randDecimal draws numerics of many scales (1.5 and 1.50 alike), with
// the special values and long coefficients.
func randDecimal(r *rand.Rand) types.Datum {
	switch r.IntN(6) {
	case 0:
		var x apd.Decimal
		types.ParseDecimal([]string{"NaN", "Infinity", "-Infinity", "0", "0.00", "-0.5", "0.50", "1e3", "100", "10.0"}[r.IntN(10)], &x)
		return types.NewDecimal(&x)
	case 1:
		var x apd.Decimal
		x.Coeff.SetString(strconv.FormatUint(r.Uint64(), 10)+strconv.FormatUint(r.Uint64(), 10), 10)
		x.Exponent, x.Negative = int32(r.IntN(60)-40), r.IntN(2) == 0
		return types.NewDecimal(&x)
	}
	x := apd.New(int64(r.IntN(2001)-1000), int32(r.IntN(9)-6))
	return types.NewDecimal(x)
}

// randInt favours values near the encoding's length boundaries.
func randInt(r *rand.Rand) int64 {
	switch r.IntN(4) {
	case 0:
		return int64(r.IntN(200)) - 100
	case 1:
		return []int64{math.MinInt64, math.MaxInt64, 63, 64, 255, 256, -256, -257, 1 << 56, -(1 << 56), -(1 << 56) - 1}[r.IntN(11)]
	default:
		v := int64(r.Uint64() >> r.IntN(64))
		if r.IntN(2) == 0 {
			v = ^v
		}
		return v
	}
}

func randFloat(r *rand.Rand) float64 {
	switch r.IntN(4) {
	case 0:
		return []float64{math.Inf(-1), math.Inf(1), math.NaN(), math.Float64frombits(0xfff8000000000000), 0, math.Copysign(0, -1),
			math.SmallestNonzeroFloat64, -math.SmallestNonzeroFloat64, math.MaxFloat64, -math.MaxFloat64, 1, -1}[r.IntN(12)]
	case 1:
		return float64(r.IntN(21)-10) / 4
	default:
		f := math.Float64frombits(r.Uint64())
		if math.IsNaN(f) {
			return 0.5
		}
		return f
	}
}

// randString draws from an alphabet rich in the bytes that escaping and
// complementing care about.
func randString(r *rand.Rand) string {
	const alphabet = "\x00\x01\xfe\xffab"
	n := r.IntN(7)
	var sb strings.Builder
	for range n {
		sb.WriteByte(alphabet[r.IntN(len(alphabet))])
	}
	return sb.String()
}

func randDatum(r *rand.Rand, k types.Kind) types.Datum {
	switch k {
	case types.KindBool:
		return types.NewBool(r.IntN(2) == 1)
	case types.KindInt:
		return types.NewInt(randInt(r))
	case types.KindFloat:
		return types.NewFloat(randFloat(r))
	case types.KindText:
		return types.NewText(randString(r))
	case types.KindBytes:
		return types.NewBytes([]byte(randString(r)))
	case types.KindDate:
		return types.NewDate(randInt(r))
	case types.KindTimestamp:
		return types.NewTimestamp(randInt(r))
	case types.KindDecimal:
		return randDecimal(r)
	case types.KindInterval:
		return types.NewInterval(randInterval(r))
	case types.KindTime:
		return types.NewTime(r.Int64N(types.MicrosPerDay + 1))
	case types.KindArray:
		// Arrays of NUMERIC (values of many scales), NULL elements mixed
		// in, short so that prefixes and equal elements are common.
		// A third of them have another shape: two dimensions, or a
		// lower bound other than 1.
		sh := randArrayShape(r)
		elems := make([]types.Datum, sh.Count())
		for i := range elems {
			if r.IntN(6) > 0 {
				elems[i] = randDecimal(r)
			}
		}
		return types.NewArrayShaped(elems, sh)
	}
	return types.Null
}

// randArrayShape is a small random array shape.
func randArrayShape(r *rand.Rand) types.ArrayShape {
	switch r.IntN(6) {
	case 0:
		return types.ArrayShape{Lens: []int{1 + r.IntN(2), 1 + r.IntN(2)}, Lower: []int{1 + r.IntN(2) - 1, 1}}
	case 1:
		return types.ArrayShape{Lens: []int{1 + r.IntN(3)}, Lower: []int{r.IntN(5) - 2}}
	}
	return types.Vector(r.IntN(4))
}

// compareKey is the SQL order of two datums of one kind (or NULL) in
// ascending direction, as the key encoding must reproduce it: NULL last,
// NaN above every number, -0 = +0.
func compareKey(a, b types.Datum) int {
	if a.IsNull() || b.IsNull() {
		return cmp.Compare(boolInt(a.IsNull()), boolInt(b.IsNull()))
	}
	switch a.Kind {
	case types.KindInterval:
		// SQL order ('1 mon' = '30 days'), then months and days: the key
		// refines SQL order so that it can decode to the value written.
		x, y := a.Interval(), b.Interval()
		if c := x.Cmp(y); c != 0 {
			return c
		}
		if c := cmp.Compare(x.Months, y.Months); c != 0 {
			return c
		}
		return cmp.Compare(x.Days, y.Days)
	case types.KindFloat:
		an, bn := math.IsNaN(a.F), math.IsNaN(b.F)
		if an || bn {
			return cmp.Compare(boolInt(an), boolInt(bn))
		}
		return cmp.Compare(a.F, b.F)
	case types.KindText, types.KindBytes:
		return strings.Compare(a.S, b.S)
	case types.KindDecimal:
		var x, y apd.Decimal
		a.Decimal(&x)
		b.Decimal(&y)
		xn, yn := x.Form == apd.NaN, y.Form == apd.NaN
		if xn || yn {
			return cmp.Compare(boolInt(xn), boolInt(yn))
		}
		return x.Cmp(&y)
	case types.KindArray:
		// PostgreSQL's array_cmp: element by element (a NULL element
		// after every value), then the shorter array first, then the
		// fewer dimensions, shorter dimensions, lower bounds. But the key
		// puts an array of one dimension from 1 before every other shape
		// of the same elements (keyarray.go).
		xs, _ := types.ArrayElems(nil, a)
		ys, _ := types.ArrayElems(nil, b)
		for i := 0; i < len(xs) && i < len(ys); i++ {
			if c := compareKey(xs[i], ys[i]); c != 0 {
				return c
			}
		}
		if c := cmp.Compare(len(xs), len(ys)); c != 0 {
			return c
		}
		sa, sb := types.ArrayShapeOf(a), types.ArrayShapeOf(b)
		if c := cmp.Compare(boolInt(!plainShape(sa)), boolInt(!plainShape(sb))); c != 0 {
			return c
		}
		if c := cmp.Compare(len(sa.Lens), len(sb.Lens)); c != 0 {
			return c
		}
		if c := slices.Compare(sa.Lens, sb.Lens); c != 0 {
			return c
		}
		return slices.Compare(sa.Lower, sb.Lower)
	}
	return cmp.Compare(a.I, b.I)
}

// plainShape reports whether an array of shape s has the older key
// form: one dimension from 1, or none.
func plainShape(s types.ArrayShape) bool {
	return len(s.Lens) == 0 || len(s.Lens) == 1 && s.Lower[0] == 1
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// sameDatum reports whether two datums are identical, comparing floats by
// their bits (so NaN matches NaN and -0 differs from +0).
func sameDatum(a, b types.Datum) bool {
	if a.Kind == types.KindFloat && b.Kind == types.KindFloat {
		return math.Float64bits(a.F) == math.Float64bits(b.F)
	}
	return a == b
}

// keyCanonical is what a key round trip must return for d: -0 becomes +0
// and every NaN the canonical NaN.
func keyCanonical(d types.Datum) types.Datum {
	if d.Kind == types.KindArray {
		elems, _ := types.ArrayElems(nil, d)
		for i := range elems {
			elems[i] = keyCanonical(elems[i])
		}
		return types.NewArrayShaped(elems, types.ArrayShapeOf(d))
	}
	if d.Kind == types.KindDecimal {
		// A key keeps the value, not its display scale.
		var x apd.Decimal
		d.Decimal(&x)
		if x.Form == apd.Finite {
			x.Reduce(&x)
			if x.Exponent > 0 {
				_, _ = apd.BaseContext.WithPrecision(2000).Quantize(&x, &x, 0)
			}
		}
		return types.NewDecimal(&x)
	}
	if d.Kind == types.KindFloat {
		if math.IsNaN(d.F) {
			d.F = math.Float64frombits(canonicalNaN)
		} else if d.F == 0 {
			d.F = 0
		}
	}
	return d
}

func sign(x int) int { return cmp.Compare(x, 0) }

// randInterval draws intervals of both signs: small fields (so that
// '1 mon' and '30 days' style ties are common), mixed signs across
// fields, and the extremes of each field.
func randInterval(r *rand.Rand) types.IntervalValue {
	field32 := func() int32 {
		switch r.IntN(5) {
		case 0:
			return int32(r.IntN(5)) - 2
		case 1:
			return int32(r.IntN(121)) - 60
		case 2:
			return []int32{math.MinInt32, math.MaxInt32, 0, 30, -30}[r.IntN(5)]
		}
		return int32(r.Uint32())
	}
	var us int64
	switch r.IntN(5) {
	case 0:
		us = int64(r.IntN(5)-2) * types.MicrosPerDay
	case 1:
		us = r.Int64N(4*types.MicrosPerDay) - 2*types.MicrosPerDay
	case 2:
		us = []int64{math.MinInt64, math.MaxInt64, 0, -1, 1}[r.IntN(5)]
	default:
		us = randInt(r)
	}
	return types.IntervalValue{Months: field32(), Days: field32(), Micros: us}
}
