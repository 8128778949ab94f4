package index

import (
	"math"
	"math/big"
	"math/rand"
	"testing"
	"time"

	"github.com/kvsql/kvsql/types"
)

// modelCmp compares column value c (of family col) with v (of family vf)
// as PostgreSQL does, in exact big arithmetic: the model KeyRange is
// checked against. NaN is above every number and equal to NaN.
func modelCmp(col types.Family, c types.Datum, v types.Datum, vf types.Family) int {
	asBig := func(d types.Datum) (*big.Float, bool) {
		if d.Kind == types.KindInt {
			return new(big.Float).SetInt64(d.I), true
		}
		if math.IsNaN(d.F) {
			return nil, false
		}
		return new(big.Float).SetFloat64(d.F), true
	}
	floatCmp := isFloatFamily(vf) || ((col == types.Float4 || col == types.Float8) && v.Kind == types.KindInt)
	if floatCmp && c.Kind == types.KindInt {
		c = types.NewFloat(float64(c.I)) // rounded to float8 first
	}
	if floatCmp && v.Kind == types.KindInt {
		v = types.NewFloat(float64(v.I))
	}
	bc, okc := asBig(c)
	bv, okv := asBig(v)
	switch {
	case !okc && !okv:
		return 0
	case !okc:
		return 1
	case !okv:
		return -1
	}
	return bc.Cmp(bv)
}

func holds(op string, c int) bool {
	switch op {
	case "=":
		return c == 0
	case "<":
		return c < 0
	case "<=":
		return c <= 0
	case ">":
		return c > 0
	}
	return c >= 0
}

// inRange reports whether c lies in r, comparing values of one kind in
// the column's order.
func inRange(r ValueRange, c types.Datum) bool {
	if r.Empty {
		return false
	}
	cmp := func(a, b types.Datum) int {
		if a.Kind == types.KindInt {
			return cmpInt64(a.I, b.I)
		}
		return cmpFloat64(a.F, b.F)
	}
	if !r.NoLo {
		if x := cmp(c, r.Lo); x < 0 || (x == 0 && r.LoExcl) {
			return false
		}
	}
	if !r.NoHi {
		if x := cmp(c, r.Hi); x > 0 || (x == 0 && r.HiExcl) {
			return false
		}
	}
	return true
}

// interesting integers and floats: type limits, float8 rounding
// boundaries, halves, infinities, NaN.
var (
	someInts = []int64{0, 1, -1, 2, 3, math.MaxInt16, math.MaxInt16 + 1, math.MinInt16, math.MinInt16 - 1,
		math.MaxInt32, math.MaxInt32 + 1, math.MinInt32, math.MinInt32 - 1, 4294967296, -2147483649,
		1 << 53, 1<<53 + 1, 1<<53 - 1, -(1 << 53) - 1, math.MaxInt64, math.MaxInt64 - 1, math.MinInt64, math.MinInt64 + 1,
		math.MaxInt64 - 512, math.MaxInt64 - 511, -9223372036854775807}
	someFloats = []float64{0, math.Copysign(0, -1), 2.5, -2.5, 3.5, 7, 0.1, 1e300, -1e300, math.Inf(1), math.Inf(-1), math.NaN(),
		1 << 53, 1<<53 + 2, 1 << 63, -(1 << 63), 4294967296, 2147483647.5, -2147483648.5, 32767.5, -32768.5,
		math.SmallestNonzeroFloat64, -math.SmallestNonzeroFloat64, math.MaxFloat64, float64(float32(0.1)),
		math.Nextafter(1<<63, 0), math.Nextafter(-(1 << 63), 0), math.Nextafter(-(1 << 63), math.Inf(-1))}
)

func TestKeyRangeModel(t *testing.T) {
	s := *seed
	if s == 0 {
		s = time.Now().UnixNano()
	}
	t.Logf("seed %d (rerun with -seed %d)", s, s)
	rng := rand.New(rand.NewSource(s))
	randInt := func() int64 {
		switch rng.Intn(4) {
		case 0:
			return someInts[rng.Intn(len(someInts))] + int64(rng.Intn(5)) - 2
		case 1:
			return int64(rng.Uint64())
		case 2:
			return int64(rng.Intn(200)) - 100
		}
		return int64(rng.Int31())
	}
	randFloat := func() float64 {
		switch rng.Intn(5) {
		case 0:
			return someFloats[rng.Intn(len(someFloats))]
		case 1:
			return math.Float64frombits(rng.Uint64())
		case 2:
			return float64(randInt())
		case 3:
			return float64(rng.Intn(400)-200) / 4
		}
		f := someFloats[rng.Intn(len(someFloats))]
		return math.Nextafter(f, math.Inf(rng.Intn(2)*2-1))
	}
	cols := []types.Family{types.Int2, types.Int4, types.Int8, types.Float4, types.Float8, types.Numeric}
	valueFams := []types.Family{types.Int2, types.Int4, types.Int8, types.Float4, types.Float8, types.Numeric}
	ops := []string{"=", "<", "<=", ">", ">="}
	deadline := time.Now().Add(3 * time.Second)
	checked := 0
	for i := 0; i < 20000 && time.Now().Before(deadline); i++ {
		col := cols[rng.Intn(len(cols))]
		vf := valueFams[rng.Intn(len(valueFams))]
		var v types.Datum
		if isIntFamily(vf) {
			v = types.NewInt(randInt())
		} else {
			v = types.NewFloat(randFloat())
		}
		op := ops[rng.Intn(len(ops))]
		r := KeyRange(col, op, v, vf)
		if op == "=" && PointImage(col, vf) && !r.Empty && !r.IsPoint() {
			t.Fatalf("KeyRange(%s, =, %v, %s) = %+v: want a point or empty", col, v, vf, r)
		}
		// Column values to try: around the range's ends and the value,
		// the type's extremes, random ones.
		var cands []types.Datum
		if isIntFamily(col) {
			lo, hi := intLimits(col)
			ints := []int64{lo, hi, lo + 1, hi - 1, randInt(), randInt()}
			if v.Kind == types.KindInt {
				ints = append(ints, v.I-1, v.I, v.I+1)
			} else if v.F > -1e19 && v.F < 1e19 {
				for d := int64(-2); d <= 2; d++ {
					ints = append(ints, int64(v.F)+d)
				}
			}
			for _, e := range []types.Datum{r.Lo, r.Hi} {
				if e.Kind == types.KindInt {
					ints = append(ints, e.I-2, e.I-1, e.I, e.I+1, e.I+2)
				}
			}
			if col == types.Int2 && i%50 == 0 {
				for c := lo; c <= hi; c++ {
					ints = append(ints, c)
				}
			}
			for _, c := range ints {
				if c >= lo && c <= hi {
					cands = append(cands, types.NewInt(c))
				}
			}
		} else {
			fs := []float64{math.Inf(-1), math.Inf(1), math.NaN(), 0, math.Copysign(0, -1), randFloat(), randFloat()}
			for _, e := range []types.Datum{r.Lo, r.Hi, v} {
				f := e.F
				if e.Kind == types.KindInt {
					f = float64(e.I)
				}
				if e.Kind == types.KindNull {
					continue
				}
				fs = append(fs, f, math.Nextafter(f, math.Inf(1)), math.Nextafter(f, math.Inf(-1)),
					math.Nextafter(math.Nextafter(f, math.Inf(1)), math.Inf(1)))
			}
			for _, f := range fs {
				if col == types.Float4 {
					f = float64(float32(f))
				}
				cands = append(cands, types.NewFloat(f))
			}
		}
		for _, c := range cands {
			want := holds(op, modelCmp(col, c, v, vf))
			if got := inRange(r, c); got != want {
				t.Fatalf("KeyRange(%s, %s, %v (%s)) = %+v: holds for %v is %v, want %v", col, op, v, vf, r, c, got, want)
			}
			checked++
		}
	}
	t.Logf("%d column values checked", checked)
}

// TestKeyRangeExamples pins the answers of the reproductions.
func TestKeyRangeExamples(t *testing.T) {
	i, f := types.NewInt, types.NewFloat
	for _, c := range []struct {
		col  types.Family
		op   string
		v    types.Datum
		vf   types.Family
		want ValueRange
	}{
		{types.Int4, "=", f(2.5), types.Float8, ValueRange{Empty: true}},
		{types.Int4, "=", f(7), types.Float8, ValueRange{Lo: i(7), Hi: i(7)}},
		{types.Int4, "<", f(2.5), types.Numeric, ValueRange{Lo: i(math.MinInt32), Hi: i(2)}},
		{types.Int4, ">", i(4294967296), types.Int8, ValueRange{Empty: true}},
		{types.Int4, "<", i(4294967296), types.Int8, ValueRange{Lo: i(math.MinInt32), Hi: i(math.MaxInt32)}},
		{types.Int4, "=", i(-2147483649), types.Int8, ValueRange{Empty: true}},
		{types.Int4, ">", i(-9223372036854775807), types.Int8, ValueRange{Lo: i(math.MinInt32), Hi: i(math.MaxInt32)}},
		{types.Int8, "=", f(1 << 53), types.Float8, ValueRange{Lo: i(1 << 53), Hi: i(1<<53 + 1)}},
		{types.Int8, "=", f(1 << 63), types.Float8, ValueRange{Lo: i(math.MaxInt64 - 511), Hi: i(math.MaxInt64)}},
		{types.Numeric, "=", i(1<<53 + 1), types.Int8, ValueRange{Empty: true}},
		{types.Float8, "=", i(1<<53 + 1), types.Int8, ValueRange{Lo: f(1 << 53), Hi: f(1 << 53)}},
		{types.Float4, "=", f(0.1), types.Float8, ValueRange{Lo: f(0.1), Hi: f(0.1)}},
		{types.Float8, "=", f(math.Copysign(0, -1)), types.Float8, ValueRange{Lo: f(0), Hi: f(0)}},
		{types.Text, ">", types.NewText("b"), types.Text, ValueRange{Lo: types.NewText("b"), LoExcl: true, NoHi: true}},
	} {
		got := KeyRange(c.col, c.op, c.v, c.vf)
		if got != c.want || (got.Lo.Kind == types.KindFloat && math.Signbit(got.Lo.F)) {
			t.Errorf("KeyRange(%s, %s, %v, %s) = %+v, want %+v", c.col, c.op, c.v, c.vf, got, c.want)
		}
	}
	nan := KeyRange(types.Float8, "=", f(math.NaN()), types.Float8)
	if !nan.IsPoint() || !math.IsNaN(nan.Lo.F) {
		t.Errorf("KeyRange(float8, =, NaN) = %+v, want the point NaN", nan)
	}
}
