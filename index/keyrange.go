package index

import (
	"math"

	"github.com/cockroachdb/apd/v3"

	"github.com/kvsql/kvsql/types"
)

// A key can only be built from a value of the key column's own type. A
// value of another type (an int8 constant against an int4 column, a
// float8 join probe against an integer primary key) is never cast to the
// column's type: a cast rounds 2.5 to 2 and fails on 4294967296, both
// wrong answers for a comparison. KeyRange instead returns the set of
// column values for which the comparison holds, under PostgreSQL's
// semantics for the pair of types, as an interval of the column's value
// order; callers turn it into key bounds.

// ValueRange is a set of non-NULL values of a key column, an interval of
// the column's value order: from Lo to Hi, each end inclusive unless
// LoExcl/HiExcl, and unbounded (every value on that side, NULL excluded)
// when NoLo/NoHi. Empty is the empty set. Numeric columns always get
// closed intervals (no Excl, no NoLo/NoHi): their ends are computed, the
// type's extremes standing for "unbounded".
type ValueRange struct {
	Lo, Hi         types.Datum
	LoExcl, HiExcl bool
	NoLo, NoHi     bool
	Empty          bool
}

// IsPoint reports whether r holds exactly one value.
func (r ValueRange) IsPoint() bool {
	if r.Empty || r.NoLo || r.NoHi || r.LoExcl || r.HiExcl || r.Lo.Kind != r.Hi.Kind {
		return false
	}
	if r.Lo.Kind == types.KindFloat {
		return r.Lo.F == r.Hi.F || (r.Lo.F != r.Lo.F && r.Hi.F != r.Hi.F)
	}
	return r.Lo == r.Hi
}

// KeyRange returns the values c of a key column of family col for which
// `c op v` is true, where op is one of = < <= > >= and v is a non-NULL
// value of family vf, compared as PostgreSQL compares the two types:
//
//   - integers among themselves exactly (an int8 outside int4's range
//     bounds an int4 column without error: `k < 4294967296` is every
//     value, `k > 4294967296` none);
//   - an integer with a numeric exactly (`k = 2.5` is empty, `k < 2.5`
//     is k <= 2);
//   - an integer with a float4 or float8 in float8: the column value is
//     rounded to float8 first, so an int8 column's values 2^53 and
//     2^53+1 both equal float8 2^53;
//   - floats among themselves, and a float with a numeric, as float8,
//     NaN equal to NaN and above every number, -0 equal to 0; a numeric
//     column compared with a float is not narrowed (several numerics
//     round to one float8);
//   - a numeric column with an integer or a numeric exactly.
//
// Values of any other family must have the column's kind; they compare
// as themselves. A value of an unrelated kind yields every value (no
// narrowing; callers keep the comparison as a filter anyway).
func KeyRange(col types.Family, op string, v types.Datum, vf types.Family) ValueRange {
	switch {
	case isIntFamily(col):
		lo, hi := intLimits(col)
		var cmp func(c int64) int
		switch {
		case v.Kind == types.KindInt:
			return intRange(op, lo, hi, func(c int64) int { return cmpInt64(c, v.I) })
		case v.Kind == types.KindFloat && (vf == types.Float4 || vf == types.Float8):
			cmp = func(c int64) int { return types.CompareFloat(float64(c), v.F) }
		case v.Kind == types.KindFloat:
			cmp = func(c int64) int { return cmpIntFloat64(c, v.F) }
		case v.Kind == types.KindDecimal:
			var x apd.Decimal
			v.Decimal(&x)
			cmp = func(c int64) int { return cmpIntDecimal(c, &x) }
		default:
			return ValueRange{NoLo: true, NoHi: true}
		}
		return intRange(op, lo, hi, cmp)
	case col == types.Float4 || col == types.Float8:
		switch {
		case v.Kind == types.KindFloat:
			return floatRange(op, func(c float64) int { return types.CompareFloat(c, v.F) })
		case v.Kind == types.KindInt:
			f := float64(v.I)
			return floatRange(op, func(c float64) int { return types.CompareFloat(c, f) })
		case v.Kind == types.KindDecimal:
			f := types.DecimalFloat(v)
			return floatRange(op, func(c float64) int { return types.CompareFloat(c, f) })
		}
		return ValueRange{NoLo: true, NoHi: true}
	case col == types.Interval:
		return intervalRange(op, v)
	case col == types.Numeric:
		switch v.Kind {
		case types.KindInt:
			var x apd.Decimal
			x.SetInt64(v.I)
			v = types.NewDecimal(&x)
		case types.KindDecimal:
		default:
			return ValueRange{NoLo: true, NoHi: true}
		}
	}
	if v.Kind != col.Kind() {
		return ValueRange{NoLo: true, NoHi: true}
	}
	switch op {
	case "=":
		return ValueRange{Lo: v, Hi: v}
	case "<":
		return ValueRange{NoLo: true, Hi: v, HiExcl: true}
	case "<=":
		return ValueRange{NoLo: true, Hi: v}
	case ">":
		return ValueRange{Lo: v, LoExcl: true, NoHi: true}
	case ">=":
		return ValueRange{Lo: v, NoHi: true}
	}
	return ValueRange{NoLo: true, NoHi: true}
}

// PointImage reports whether KeyRange(col, "=", v, vf) is always a single
// value or empty for values of family vf: false only where several
// column values equal one value (an int8 column compared in float8).
func PointImage(col, vf types.Family) bool {
	return !(col == types.Int8 && isFloatFamily(vf)) && col != types.Interval
}

// intervalRange is KeyRange for an interval column. Many intervals equal
// one value ('1 day' = '24 hours' = '1 mon -29 days') and their keys,
// ordered by span then months then days, are not all next to v's key, so
// the range is widened by a day on each bounded side: every key whose
// span is within a day of v's is kept, and the filter decides.
func intervalRange(op string, v types.Datum) ValueRange {
	if v.Kind != types.KindInterval {
		return ValueRange{NoLo: true, NoHi: true}
	}
	iv := v.Interval()
	lo, hi := iv, iv
	lo.Micros -= types.MicrosPerDay
	hi.Micros += types.MicrosPerDay
	r := ValueRange{Lo: types.NewInterval(lo), Hi: types.NewInterval(hi)}
	r.NoLo = lo.Micros > iv.Micros // overflow: unbounded
	r.NoHi = hi.Micros < iv.Micros
	switch op {
	case "<", "<=":
		r.NoLo = true
	case ">", ">=":
		r.NoHi = true
	case "=":
	default:
		return ValueRange{NoLo: true, NoHi: true}
	}
	return r
}

func isIntFamily(f types.Family) bool {
	return f == types.Int2 || f == types.Int4 || f == types.Int8
}

func isFloatFamily(f types.Family) bool { return f == types.Float4 || f == types.Float8 }

// intLimits is the range of values of an integer family.
func intLimits(f types.Family) (lo, hi int64) {
	switch f {
	case types.Int2:
		return math.MinInt16, math.MaxInt16
	case types.Int4:
		return math.MinInt32, math.MaxInt32
	}
	return math.MinInt64, math.MaxInt64
}

// intRange is the closed interval of c in [lo, hi] with cmp(c) op 0, for
// cmp non-decreasing in c (the comparison of c with a fixed value).
func intRange(op string, lo, hi int64, cmp func(int64) int) ValueRange {
	// ge is the first c with cmp(c) >= 0, gt the first with cmp(c) > 0;
	// hi+1 (as a flag) when there is none.
	ge, geOK := firstInt(lo, hi, func(c int64) bool { return cmp(c) >= 0 })
	gt, gtOK := firstInt(lo, hi, func(c int64) bool { return cmp(c) > 0 })
	a, b := lo, hi
	switch op {
	case "=":
		if !geOK || (gtOK && gt == ge) {
			return ValueRange{Empty: true}
		}
		a = ge
		if gtOK {
			b = gt - 1
		}
	case ">=":
		if !geOK {
			return ValueRange{Empty: true}
		}
		a = ge
	case ">":
		if !gtOK {
			return ValueRange{Empty: true}
		}
		a = gt
	case "<":
		if geOK {
			if ge == lo {
				return ValueRange{Empty: true}
			}
			b = ge - 1
		}
	case "<=":
		if gtOK {
			if gt == lo {
				return ValueRange{Empty: true}
			}
			b = gt - 1
		}
	default:
		return ValueRange{NoLo: true, NoHi: true}
	}
	return ValueRange{Lo: types.NewInt(a), Hi: types.NewInt(b)}
}

// firstInt returns the smallest c in [lo, hi] with pred(c), pred being
// monotone (false then true); ok is false when pred holds nowhere.
func firstInt(lo, hi int64, pred func(int64) bool) (int64, bool) {
	if !pred(hi) {
		return 0, false
	}
	// Invariant: pred(hi); pred is false below lo (when lo moved).
	for lo < hi {
		mid := int64(uint64(lo) + (uint64(hi)-uint64(lo))/2) // no overflow
		if pred(mid) {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	return lo, true
}

// Floats are searched in key order: a float64 maps to a uint64 that
// orders as the key encoding does (floatOrd maps it back) (-Inf < ... < -0 < +0 < ... <
// +Inf < NaN). The domain is [-Inf, the largest NaN]; -0 and +0 are both
// in it and compare equal, so results are normalized to +0 (the key
// encoding writes -0 as +0).
const (
	ordNegInf = ^uint64(0xfff0000000000000)
	ordMaxNaN = uint64(0x7fffffffffffffff) | 1<<63
)

func floatOrd(o uint64) float64 {
	if o>>63 != 0 {
		return math.Float64frombits(o &^ (1 << 63))
	}
	return math.Float64frombits(^o)
}

// floatRange is the closed interval of floats c with cmp(c) op 0, for cmp
// non-decreasing in key order.
func floatRange(op string, cmp func(float64) int) ValueRange {
	ge, geOK := firstOrd(func(o uint64) bool { return cmp(floatOrd(o)) >= 0 })
	gt, gtOK := firstOrd(func(o uint64) bool { return cmp(floatOrd(o)) > 0 })
	a, b := ordNegInf, ordMaxNaN
	switch op {
	case "=":
		if !geOK || (gtOK && gt == ge) {
			return ValueRange{Empty: true}
		}
		a = ge
		if gtOK {
			b = gt - 1
		}
	case ">=":
		if !geOK {
			return ValueRange{Empty: true}
		}
		a = ge
	case ">":
		if !gtOK {
			return ValueRange{Empty: true}
		}
		a = gt
	case "<":
		if geOK {
			if ge == ordNegInf {
				return ValueRange{Empty: true}
			}
			b = ge - 1
		}
	case "<=":
		if gtOK {
			if gt == ordNegInf {
				return ValueRange{Empty: true}
			}
			b = gt - 1
		}
	default:
		return ValueRange{NoLo: true, NoHi: true}
	}
	return ValueRange{Lo: types.NewFloat(floatOrd(a) + 0), Hi: types.NewFloat(floatOrd(b) + 0)}
}

// firstOrd is firstInt over the float domain in key order.
func firstOrd(pred func(uint64) bool) (uint64, bool) {
	lo, hi := ordNegInf, ordMaxNaN
	if !pred(hi) {
		return 0, false
	}
	for lo < hi {
		mid := lo + (hi-lo)/2
		if pred(mid) {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	return lo, true
}

func cmpInt64(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// cmpIntFloat64 compares an int64 with a float64 exactly (NaN above all).
func cmpIntFloat64(i int64, f float64) int {
	switch {
	case f != f:
		return -1
	case f >= 1<<63:
		return -1
	case f < -(1 << 63):
		return 1
	}
	t := math.Trunc(f)
	if c := cmpInt64(i, int64(t)); c != 0 {
		return c
	}
	switch {
	case f > t:
		return -1
	case f < t:
		return 1
	}
	return 0
}

// cmpIntDecimal compares an int64 with a decimal exactly (NaN above
// every number).
func cmpIntDecimal(i int64, x *apd.Decimal) int {
	if x.Form == apd.NaN || x.Form == apd.NaNSignaling {
		return -1
	}
	var c apd.Decimal
	c.SetInt64(i)
	return c.Cmp(x)
}
