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
	return keySpanInto(env, sp, t, keyCols, desc, row, nil, nil)
}

// keySpanInto is keySpan appending the bounds' values to loBuf[:0] and
// hiBuf[:0] (either may be nil): a caller that probes once per row reuses
// them. The returned span's Lo and Hi may share loBuf's and hiBuf's
// arrays, so they hold until the buffers are passed in again.
func keySpanInto(env *eval.Env, sp planner.Span, t *catalog.Table, keyCols []int, desc []bool, row []types.Datum, loBuf, hiBuf []types.Datum) (out index.Span, point, ok bool, err error) {
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
		if lo = loBuf[:0]; cap(lo) < len(sp.Lo) {
			lo = make([]types.Datum, 0, len(sp.Lo))
		}
	}
	if sp.Hi != nil {
		if hi = hiBuf[:0]; cap(hi) < len(sp.Hi) {
			hi = make([]types.Datum, 0, len(sp.Hi))
		}
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
		// Several key values equal the value: the span ends here.
		a, b := r.Lo, r.Hi
		if i < len(desc) && desc[i] {
			a, b = b, a
		}
		return index.Span{Lo: append(lo, a), Hi: append(hi, b)}, false, true, nil
	}
	if len(sp.Lo) == n && len(sp.Hi) == n {
		return index.Span{Lo: lo, Hi: hi, LoExcl: sp.LoExcl, HiExcl: sp.HiExcl}, true, true, nil
	}
	// The range column: its key-order Lo is the value order's lower bound
	// on an ascending column and its upper bound on a descending one.
	isDesc := n < len(desc) && desc[n]
	out = index.Span{Lo: lo, Hi: hi}
	for _, side := range []struct {
		exprs []planner.Expr
		excl  bool
		upper bool // in value order
		dst   *[]types.Datum
		dExcl *bool
	}{{sp.Lo, sp.LoExcl, isDesc, &out.Lo, &out.LoExcl}, {sp.Hi, sp.HiExcl, !isDesc, &out.Hi, &out.HiExcl}} {
		if len(side.exprs) <= n {
			continue
		}
		e := side.exprs[n]
		if e == nil { // the NULL key value: IS NOT NULL
			*side.dst, *side.dExcl = append(*side.dst, types.Null), side.excl
			continue
		}
		r, ok, err := boundRange(env, e, rangeOp(side.upper, side.excl), t, keyCols[n], row)
		if err != nil || !ok || r.Empty {
			return out, false, false, err
		}
		v, excl, none := r.Lo, r.LoExcl, r.NoLo
		if side.upper {
			v, excl, none = r.Hi, r.HiExcl, r.NoHi
		}
		if !none {
			*side.dst, *side.dExcl = append(*side.dst, v), excl
		}
	}
	if out.Lo == nil {
		out.Lo = []types.Datum{}
	}
	if out.Hi == nil {
		out.Hi = []types.Datum{}
	}
	return out, false, true, nil
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
	ct := t.Columns[col].Type.Family
	if ct == types.Array && !e.Type().IsArray() {
		ct = t.Columns[col].Type.Elem // an element index's key is an element
	}
	if ct == types.JSONB && e.Type().Family == types.Text {
		return sameTypeRange(op, d), true, nil // a jsonb element index's key is a leaf
	}
	if f := e.Type().Family; ct != types.Interval && (f == ct || (d.Kind == ct.Kind() && d.Kind != types.KindInt && d.Kind != types.KindFloat)) {

		// A value of the column's own type bounds it as it is.
		return sameTypeRange(op, d), true, nil
	}
	return index.KeyRange(ct, op, d, e.Type().Family), true, nil
}

// sameTypeRange is the range of `col op d` for d of the column's type.
func sameTypeRange(op string, d types.Datum) index.ValueRange {
	switch op {
	case "<":
		return index.ValueRange{NoLo: true, Hi: d, HiExcl: true}
	case "<=":
		return index.ValueRange{NoLo: true, Hi: d}
	case ">":
		return index.ValueRange{Lo: d, LoExcl: true, NoHi: true}
	case ">=":
		return index.ValueRange{Lo: d, NoHi: true}
	}
	return index.ValueRange{Lo: d, Hi: d}
}

// eachElementSpans expands the spans whose equality bounds include
// planner.EachElement(array): one span per distinct non-NULL element, the
// element in the call's place (k = ANY ($1) read as point lookups). Other
// spans are returned as they are.
func eachElementSpans(env *eval.Env, spans []planner.Span) ([]planner.Span, error) {
	var out []planner.Span
	expanded := false
	for i, sp := range spans {
		at := -1
		for j, e := range sp.Lo {
			if f, ok := e.(*planner.Func); ok && f.Name == planner.EachElement {
				at = j
				break
			}
		}
		if at < 0 {
			if expanded {
				out = append(out, sp)
			}
			continue
		}
		if !expanded {
			expanded = true
			out = append(out, spans[:i]...)
		}
		f := sp.Lo[at].(*planner.Func)
		d, err := eval.Eval(env, f.Args[0], nil)
		if err != nil {
			return nil, err
		}
		if d.IsNull() {
			continue
		}
		elems, err := types.ArrayElems(nil, d)
		if err != nil {
			return nil, pgerror.New(pgerror.DataCorrupted, "malformed array value")
		}
		for _, e := range elems {
			if e.IsNull() {
				continue
			}
			c := &planner.Const{Value: e, T: f.T}
			es := sp
			es.Lo = append([]planner.Expr(nil), sp.Lo...)
			es.Lo[at] = c
			if at < len(sp.Hi) && sp.Hi[at] == sp.Lo[at] {
				es.Hi = append([]planner.Expr(nil), sp.Hi...)
				es.Hi[at] = c
			}
			more, err := eachElementSpans(env, []planner.Span{es})
			if err != nil {
				return nil, err
			}
			out = append(out, more...)
		}
	}
	if !expanded {
		return spans, nil
	}
	return out, nil
}
