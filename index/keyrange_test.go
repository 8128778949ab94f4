package index

import (
	"strconv"

	"math"
	"math/big"
	"math/rand"
	"testing"
	"time"

	"github.com/cockroachdb/apd/v3"

	"github.com/kvsql/kvsql/types"
)

// modelCmp compares column value c (of family col) with v (of family vf)
// as PostgreSQL does, in exact rational arithmetic: the model KeyRange
// is checked against. NaN is above every number and equal to NaN.
func modelCmp(col types.Family, c types.Datum, v types.Datum, vf types.Family) int {
	floatCmp := isFloatFamily(vf) || isFloatFamily(col)
	if floatCmp {
		c, v = asFloat8(c), asFloat8(v) // rounded to float8 first
	}
	cc, rc := exactOf(c)
	cv, rv := exactOf(v)
	switch {
	case cc != cv:
		return cmpInt64(int64(cc), int64(cv))
	case cc != 0:
		return 0 // both NaN or the same infinity
	}
	return rc.Cmp(rv)
}

// asFloat8 is a number datum as float8.
func asFloat8(d types.Datum) types.Datum {
	switch d.Kind {
	case types.KindInt:
		return types.NewFloat(float64(d.I))
	case types.KindDecimal:
		return types.NewFloat(types.DecimalFloat(d))
	}
	return d
}

// exactOf classifies a number (-1 for -Infinity, 0 finite, 1 for
// Infinity, 2 for NaN) and gives a finite one's exact value.
func exactOf(d types.Datum) (class int, r *big.Rat) {
	switch d.Kind {
	case types.KindInt:
		return 0, new(big.Rat).SetInt64(d.I)
	case types.KindDecimal:
		switch d.S {
		case "NaN":
			return 2, nil
		case "Infinity":
			return 1, nil
		case "-Infinity":
			return -1, nil
		}
		r, _ := new(big.Rat).SetString(d.S)
		return 0, r
	}
	switch {
	case math.IsNaN(d.F):
		return 2, nil
	case math.IsInf(d.F, 1):
		return 1, nil
	case math.IsInf(d.F, -1):
		return -1, nil
	}
	return 0, new(big.Rat).SetFloat64(d.F)
}

// decimalOf is f as a numeric datum (its shortest decimal form).
func decimalOf(f float64) types.Datum {
	switch {
	case math.IsNaN(f):
		return types.Datum{Kind: types.KindDecimal, S: "NaN"}
	case math.IsInf(f, 1):
		return types.Datum{Kind: types.KindDecimal, S: "Infinity"}
	case math.IsInf(f, -1):
		return types.Datum{Kind: types.KindDecimal, S: "-Infinity"}
	}
	var x apd.Decimal
	types.ParseDecimal(strconv.FormatFloat(f, 'g', -1, 64), &x)
	return types.NewDecimal(&x)
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
		switch a.Kind {
		case types.KindInt:
			return cmpInt64(a.I, b.I)
		case types.KindDecimal:
			return modelCmp(types.Numeric, a, b, types.Numeric)
		}
		return types.CompareFloat(a.F, b.F)
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
		if col == types.Numeric && isFloatFamily(vf) {
			continue // compared in float8: KeyRange does not narrow these
		}
		var v types.Datum
		switch {
		case isIntFamily(vf):
			v = types.NewInt(randInt())
		case vf == types.Numeric:
			v = decimalOf(randFloat())
		default:
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
			} else if f := asFloat8(v).F; f > -1e19 && f < 1e19 {
				for d := int64(-2); d <= 2; d++ {
					ints = append(ints, int64(f)+d)
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
		} else if col == types.Numeric {
			cands = append(cands, decimalOf(math.Inf(-1)), decimalOf(math.Inf(1)), decimalOf(math.NaN()), decimalOf(0), decimalOf(randFloat()))
			for _, e := range []types.Datum{r.Lo, r.Hi, v} {
				if e.IsNull() {
					continue
				}
				_, x := exactOf(e)
				if x == nil {
					cands = append(cands, e)
					continue
				}
				for _, d := range []string{"0", "1", "-1", "1e-30", "-1e-30"} {
					delta, _ := new(big.Rat).SetString(d)
					sum := new(big.Rat).Add(x, delta)
					var y apd.Decimal
					types.ParseDecimal(sum.FloatString(40), &y)
					cands = append(cands, types.NewDecimal(&y))
				}
			}
		} else {
			fs := []float64{math.Inf(-1), math.Inf(1), math.NaN(), 0, math.Copysign(0, -1), randFloat(), randFloat()}
			for _, e := range []types.Datum{r.Lo, r.Hi, v} {
				if e.Kind == types.KindNull {
					continue
				}
				f := asFloat8(e).F
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
		{types.Int4, "<", types.Datum{Kind: types.KindDecimal, S: "2.5"}, types.Numeric, ValueRange{Lo: i(math.MinInt32), Hi: i(2)}},
		{types.Int4, ">", i(4294967296), types.Int8, ValueRange{Empty: true}},
		{types.Int4, "<", i(4294967296), types.Int8, ValueRange{Lo: i(math.MinInt32), Hi: i(math.MaxInt32)}},
		{types.Int4, "=", i(-2147483649), types.Int8, ValueRange{Empty: true}},
		{types.Int4, ">", i(-9223372036854775807), types.Int8, ValueRange{Lo: i(math.MinInt32), Hi: i(math.MaxInt32)}},
		{types.Int8, "=", f(1 << 53), types.Float8, ValueRange{Lo: i(1 << 53), Hi: i(1<<53 + 1)}},
		{types.Int8, "=", f(1 << 63), types.Float8, ValueRange{Lo: i(math.MaxInt64 - 511), Hi: i(math.MaxInt64)}},
		{types.Numeric, "=", i(1<<53 + 1), types.Int8, ValueRange{Lo: types.Datum{Kind: types.KindDecimal, S: "9007199254740993"}, Hi: types.Datum{Kind: types.KindDecimal, S: "9007199254740993"}}},
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
