package exec

import (
	"github.com/kvsql/kvsql/catalog"
	"github.com/kvsql/kvsql/exec/eval"
	"github.com/kvsql/kvsql/index"
	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/planner"
	"github.com/kvsql/kvsql/types"
)

// keySpan evaluates a planner span over the key columns keyCols (with
// directions desc) into key bounds, row being the input row its
// expressions read (nil for a scan's constants and parameters).
//
// A bound value is never cast to its column's type: index.KeyRange gives
// the column values the comparison holds for, so `k = 2.5` on an integer
// key matches nothing and `k < 4294967296` on an int4 key bounds nothing,
// instead of rounding or failing with 22003. An equality whose values
// form a range (an int8 key equal to a float8) ends the span at that
// column: the later columns' bounds are dropped, which widens the span,
// and the caller's filter keeps deciding which rows match.
//
// point reports that every bound was an equality with one value (the
// span is Lo = Hi, a get when it covers the key); ok is false when no key
// can match (a NULL or an unmatched bound).
func keySpan(env *eval.Env, sp planner.Span, t *catalog.Table, keyCols []int, desc []bool, row []types.Datum) (out index.Span, point, ok bool, err error) {
	if len(sp.Lo) > len(keyCols) || len(sp.Hi) > len(keyCols) {
		return out, false, false, pgerror.Newf(pgerror.Internal, "exec: span of %d values over %d key columns", max(len(sp.Lo), len(sp.Hi)), len(keyCols))
	}
	if sp.Lo == nil && sp.Hi == nil {
		return out, false, true, nil
	}
	// The leading columns that Lo and Hi share are equalities (the planner
	// builds them from the same expressions).
	n := 0
	for n < len(sp.Lo) && n < len(sp.Hi) && sp.Lo[n] == sp.Hi[n] {
		n++
	}
	var lo, hi []types.Datum
	if sp.Lo != nil {
		lo = make([]types.Datum, 0, len(sp.Lo))
	}
	if sp.Hi != nil {
		hi = make([]types.Datum, 0, len(sp.Hi))
	}
	for i := 0; i < n; i++ {
		e := sp.Lo[i]
		if e == nil { // the NULL key value: IS NULL
			lo, hi = append(lo, types.Null), append(hi, types.Null)
			continue
		}
		r, ok, err := boundRange(env, e, "=", t, keyCols[i], row)
		if err != nil || !ok || r.Empty {
			return out, false, false, err
		}
		if r.IsPoint() {
			lo, hi = append(lo, r.Lo), append(hi, r.Lo)
			continue
		}
		out = rangeEnds(lo, hi, r, i < len(desc) && desc[i])
		return out, false, true, nil
	}
	if len(sp.Lo) == n && len(sp.Hi) == n {
		return index.Span{Lo: lo, Hi: hi, LoExcl: sp.LoExcl, HiExcl: sp.HiExcl}, true, true, nil
	}
	// The range column: its key-order Lo is the value order's lower bound
	// on an ascending column and its upper bound on a descending one. A
	// nil bound (IS NOT NULL) adds nothing: rangeEnds keeps NULL out.
	isDesc := n < len(desc) && desc[n]
	r := index.ValueRange{NoLo: true, NoHi: true}
	for _, side := range []struct {
		exprs []planner.Expr
		excl  bool
		upper bool // in value order
	}{{sp.Lo, sp.LoExcl, isDesc}, {sp.Hi, sp.HiExcl, !isDesc}} {
		if len(side.exprs) <= n || side.exprs[n] == nil {
			continue
		}
		b, ok, err := boundRange(env, side.exprs[n], rangeOp(side.upper, side.excl), t, keyCols[n], row)
		if err != nil || !ok {
			return out, false, false, err
		}
		if r = intersect(r, b); r.Empty {
			return out, false, false, nil
		}
	}
	return rangeEnds(lo, hi, r, isDesc), false, true, nil
}

// rangeOp is the comparison a bound stands for.
func rangeOp(upper, excl bool) string {
	switch {
	case upper && excl:
		return "<"
	case upper:
		return "<="
	case excl:
		return ">"
	}
	return ">="
}

// boundRange evaluates e and returns the values of column col for which
// `col op e` holds; ok is false when e is NULL.
func boundRange(env *eval.Env, e planner.Expr, op string, t *catalog.Table, col int, row []types.Datum) (index.ValueRange, bool, error) {
	d, err := eval.Eval(env, e, row)
	if err != nil || d.IsNull() {
		return index.ValueRange{}, false, err
	}
	return index.KeyRange(t.Columns[col].Type.Family, op, d, e.Type().Family), true, nil
}

// intersect is the values in both a and b.
func intersect(a, b index.ValueRange) index.ValueRange {
	if a.Empty || b.Empty {
		return index.ValueRange{Empty: true}
	}
	r := a
	if !b.NoLo {
		if c := eval.Compare(b.Lo, r.Lo); r.NoLo || c > 0 {
			r.Lo, r.LoExcl, r.NoLo = b.Lo, b.LoExcl, false
		} else if c == 0 {
			r.LoExcl = r.LoExcl || b.LoExcl
		}
	}
	if !b.NoHi {
		if c := eval.Compare(b.Hi, r.Hi); r.NoHi || c < 0 {
			r.Hi, r.HiExcl, r.NoHi = b.Hi, b.HiExcl, false
		} else if c == 0 {
			r.HiExcl = r.HiExcl || b.HiExcl
		}
	}
	if !r.NoLo && !r.NoHi {
		if c := eval.Compare(r.Lo, r.Hi); c > 0 || (c == 0 && (r.LoExcl || r.HiExcl)) {
			return index.ValueRange{Empty: true}
		}
	}
	return r
}

// rangeEnds appends the ends of r (in value order) to the key prefixes lo
// and hi in key order. An unbounded upper end stops below the NULL key
// value, which sorts after every value of an ascending column and before
// every value of a descending one.
func rangeEnds(lo, hi []types.Datum, r index.ValueRange, desc bool) index.Span {
	type end struct {
		v    types.Datum
		excl bool
		none bool // no bound: the key prefix alone
	}
	lower := end{r.Lo, r.LoExcl, r.NoLo}
	upper := end{r.Hi, r.HiExcl, false}
	if r.NoHi {
		upper = end{types.Null, true, false}
	}
	keyLo, keyHi := lower, upper
	if desc {
		keyLo, keyHi = upper, lower
	}
	out := index.Span{Lo: lo, Hi: hi}
	if out.Lo == nil {
		out.Lo = []types.Datum{}
	}
	if out.Hi == nil {
		out.Hi = []types.Datum{}
	}
	if !keyLo.none {
		out.Lo, out.LoExcl = append(out.Lo, keyLo.v), keyLo.excl
	}
	if !keyHi.none {
		out.Hi, out.HiExcl = append(out.Hi, keyHi.v), keyHi.excl
	}
	return out
}
