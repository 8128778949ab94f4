package eval

import (
	"math"
	"strconv"

	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/planner"
	"github.com/kvsql/kvsql/types"
)

// The shape of arrays: building one from sub-arrays, subscripts, slices,
// assignment through either, and concatenation, with PostgreSQL's rules
// for dimensions and lower bounds (arrayfuncs.c).

// shaped decodes an array datum into its elements and shape.
func shaped(d types.Datum) ([]types.Datum, types.ArrayShape, error) {
	xs, err := elems(d)
	return xs, types.ArrayShapeOf(d), err
}

func subscriptError(msg string) *pgerror.Error { return pgerror.New(pgerror.ArraySubscriptError, msg) }

func tooManyDims(n int) error {
	return pgerror.Newf(pgerror.ProgramLimitExceeded, "number of array dimensions (%d) exceeds the maximum allowed (%d)", n, types.MaxArrayDims)
}

// nestArrays is ARRAY[sub, ...] over arrays: each sub-array a row of a
// new first dimension. NULL and empty sub-arrays make the result empty
// when all are so; otherwise every sub-array must have the same shape.
func nestArrays(subs []types.Datum) (types.Datum, error) {
	var out []types.Datum
	var inner types.ArrayShape
	rows, empty := 0, false
	for _, s := range subs {
		if s.IsNull() || types.ArrayLen(s) == 0 {
			empty = true
			continue
		}
		xs, sh, err := shaped(s)
		if err != nil {
			return types.Null, err
		}
		if rows > 0 && !sameShape(sh, inner) {
			return types.Null, subscriptError("multidimensional arrays must have array expressions with matching dimensions")
		}
		inner, rows = sh, rows+1
		out = append(out, xs...)
	}
	if rows == 0 {
		return types.NewArray(nil), nil
	}
	if empty {
		return types.Null, subscriptError("multidimensional arrays must have array expressions with matching dimensions")
	}
	return withRows(out, rows, inner)
}

// AccumArrays is array_agg over arrays and ARRAY(subquery) of an array
// column: each input array a row of a new first dimension; none may be
// NULL or empty, and all must have one shape.
func AccumArrays(subs []types.Datum) (types.Datum, error) {
	var out []types.Datum
	var inner types.ArrayShape
	for i, s := range subs {
		if s.IsNull() {
			return types.Null, pgerror.New(pgerror.NullValueNotAllowed, "cannot accumulate null arrays")
		}
		xs, sh, err := shaped(s)
		if err != nil {
			return types.Null, err
		}
		if len(xs) == 0 {
			return types.Null, subscriptError("cannot accumulate empty arrays")
		}
		if i > 0 && !sameShape(sh, inner) {
			return types.Null, subscriptError("cannot accumulate arrays of different dimensionality")
		}
		inner = sh
		out = append(out, xs...)
	}
	if len(subs) == 0 {
		return types.NewArray(nil), nil
	}
	return withRows(out, len(subs), inner)
}

// withRows is the array of rows sub-arrays of shape inner, their elements
// xs one after another.
func withRows(xs []types.Datum, rows int, inner types.ArrayShape) (types.Datum, error) {
	if len(inner.Lens)+1 > types.MaxArrayDims {
		return types.Null, tooManyDims(len(inner.Lens) + 1)
	}
	sh := types.ArrayShape{
		Lens:  append([]int{rows}, inner.Lens...),
		Lower: append([]int{1}, inner.Lower...),
	}
	if sh.Count() > types.MaxArrayElems {
		return types.Null, arrayTooLarge()
	}
	return types.NewArrayShaped(xs, sh), nil
}

// maxBuiltElems caps the arrays an assignment or array_fill makes from
// little input ('{}' with a[100000000] = 1): PostgreSQL keeps their NULLs
// in a bitmap, kvsql holds a datum per element while building one.
const maxBuiltElems = 1 << 22

func arrayTooLarge() error {
	return pgerror.Newf(pgerror.ProgramLimitExceeded, "array size exceeds the maximum allowed (%d)", types.MaxArrayElems)
}

func sameShape(a, b types.ArrayShape) bool {
	if len(a.Lens) != len(b.Lens) {
		return false
	}
	for i := range a.Lens {
		if a.Lens[i] != b.Lens[i] || a.Lower[i] != b.Lower[i] {
			return false
		}
	}
	return true
}

// offset is the row-major position of the element at subscripts idx, or
// -1 when one is outside its dimension.
func offset(sh types.ArrayShape, idx []int64) int {
	off := 0
	for k, i := range idx {
		lo := int64(sh.Lower[k])
		if i < lo || i >= lo+int64(sh.Lens[k]) {
			return -1
		}
		off = off*sh.Lens[k] + int(i-lo)
	}
	return off
}

// subscriptValue is a[i1][i2]...: NULL when a subscript is NULL, their
// number is not the array's dimensions, or one is out of range.
func subscriptValue(a types.Datum, idx []types.Datum) (types.Datum, error) {
	if a.IsNull() {
		return types.Null, nil
	}
	sh := types.ArrayShapeOf(a)
	if len(idx) != len(sh.Lens) {
		return types.Null, nil
	}
	is := make([]int64, len(idx))
	for k, d := range idx {
		if d.IsNull() {
			return types.Null, nil
		}
		is[k] = d.I
	}
	off := offset(sh, is)
	if off < 0 {
		return types.Null, nil
	}
	xs, err := elems(a)
	if err != nil {
		return types.Null, err
	}
	return xs[off], nil
}

// sliceRange is one dimension's [lo:hi]; an open bound is the
// dimension's own.
type sliceRange struct {
	lo, hi         int64
	openLo, openHi bool
}

// sliceRanges reads the bound pairs of a slice; ok is false when a given
// bound is NULL.
func sliceRanges(bounds []types.Datum) (rs []sliceRange, ok bool) {
	for k := 0; k+1 < len(bounds); k += 2 {
		lo, hi := bounds[k], bounds[k+1]
		if lo.IsNull() || hi.IsNull() {
			return nil, false
		}
		rs = append(rs, sliceRange{lo: lo.I, hi: hi.I, openLo: lo.I == planner.SliceOpen, openHi: hi.I == planner.SliceOpen})
	}
	return rs, true
}

// sliceValue is a[lo1:hi1][lo2:hi2]...: the elements inside the bounds
// (clipped to the array's) as a new array from 1; dimensions without a
// bound are whole. An array with fewer dimensions than bounds, or an
// empty range, is the empty array.
func sliceValue(a types.Datum, bounds []types.Datum) (types.Datum, error) {
	if a.IsNull() {
		return types.Null, nil
	}
	rs, ok := sliceRanges(bounds)
	if !ok {
		return types.Null, nil
	}
	xs, sh, err := shaped(a)
	if err != nil {
		return types.Null, err
	}
	if len(sh.Lens) < len(rs) {
		return types.NewArray(nil), nil
	}
	lo, hi := make([]int64, len(sh.Lens)), make([]int64, len(sh.Lens))
	for k := range sh.Lens {
		lo[k], hi[k] = int64(sh.Lower[k]), int64(sh.Lower[k]+sh.Lens[k]-1)
		if k < len(rs) {
			if !rs[k].openLo {
				lo[k] = max(lo[k], rs[k].lo)
			}
			if !rs[k].openHi {
				hi[k] = min(hi[k], rs[k].hi)
			}
		}
		if lo[k] > hi[k] {
			return types.NewArray(nil), nil
		}
	}
	out := types.ArrayShape{Lens: make([]int, len(lo)), Lower: make([]int, len(lo))}
	for k := range lo {
		out.Lens[k], out.Lower[k] = int(hi[k]-lo[k]+1), 1
	}
	picked := make([]types.Datum, 0, out.Count())
	eachIndex(lo, hi, func(idx []int64) {
		picked = append(picked, xs[offset(sh, idx)])
	})
	return types.NewArrayShaped(picked, out), nil
}

// eachIndex calls f with every subscript tuple from lo to hi (inclusive)
// in row-major order; f must not keep idx.
func eachIndex(lo, hi []int64, f func(idx []int64)) {
	idx := append([]int64(nil), lo...)
	for {
		f(idx)
		k := len(idx) - 1
		for k >= 0 && idx[k] == hi[k] {
			idx[k] = lo[k]
			k--
		}
		if k < 0 {
			return
		}
		idx[k]++
	}
}

// int4Bound reports whether n fits a subscript (int4).
func int4Bound(n int64) bool { return n >= math.MinInt32 && n <= math.MaxInt32 }

// arraySet is the array a with the element at subscripts idx set to v,
// as UPDATE ... SET a[i] = v stores it: a NULL or empty array becomes a
// one-element array at idx; a one-dimensional array grows (with NULLs)
// to reach i; a multidimensional one must already hold the position.
func arraySet(a, v types.Datum, idx []types.Datum) (types.Datum, error) {
	is := make([]int64, len(idx))
	for k, d := range idx {
		if d.IsNull() {
			return types.Null, pgerror.New(pgerror.NullValueNotAllowed, "array subscript in assignment must not be null")
		}
		is[k] = d.I
	}
	if len(is) > types.MaxArrayDims {
		return types.Null, tooManyDims(len(is))
	}
	var xs []types.Datum
	var sh types.ArrayShape
	if !a.IsNull() {
		var err error
		if xs, sh, err = shaped(a); err != nil {
			return types.Null, err
		}
	}
	if len(xs) == 0 {
		one := types.ArrayShape{Lens: make([]int, len(is)), Lower: make([]int, len(is))}
		for k, i := range is {
			one.Lens[k], one.Lower[k] = 1, int(i)
		}
		return types.NewArrayShaped([]types.Datum{v}, one), nil
	}
	if len(is) != len(sh.Lens) {
		return types.Null, subscriptError("wrong number of array subscripts")
	}
	if len(is) == 1 {
		return setRange(xs, sh, is[0], is[0], []types.Datum{v})
	}
	off := offset(sh, is)
	if off < 0 {
		return types.Null, subscriptError("array subscript out of range")
	}
	xs[off] = v
	return types.NewArrayShaped(xs, sh), nil
}

// setRange stores vs at positions lo..hi of the one-dimensional array xs
// of shape sh, growing it (with NULLs) in either direction as needed.
func setRange(xs []types.Datum, sh types.ArrayShape, lo, hi int64, vs []types.Datum) (types.Datum, error) {
	lb, ub := int64(sh.Lower[0]), int64(sh.Lower[0]+sh.Lens[0]-1)
	newLb, newUb := min(lb, lo), max(ub, hi)
	if !int4Bound(newLb) || !int4Bound(newUb) {
		return types.Null, pgerror.New(pgerror.NumericValueOutOfRange, "array upper bound is too large")
	}
	switch n := newUb - newLb + 1; {
	case n > types.MaxArrayElems:
		return types.Null, arrayTooLarge()
	case n > maxBuiltElems:
		return types.Null, tooLarge()
	}
	out := make([]types.Datum, newUb-newLb+1)
	copy(out[lb-newLb:], xs)
	copy(out[lo-newLb:], vs[:hi-lo+1])
	return types.NewArrayShaped(out, types.ArrayShape{Lens: []int{len(out)}, Lower: []int{int(newLb)}}), nil
}

// arraySetSlice is the array a with the slice at bounds replaced by the
// elements of src (UPDATE ... SET a[lo:hi] = src): a NULL src leaves a
// as it is; a NULL or empty a becomes an array of the slice's shape; a
// one-dimensional array grows to hold the slice; a multidimensional one
// must hold it already.
func arraySetSlice(a, src types.Datum, bounds []types.Datum) (types.Datum, error) {
	for _, b := range bounds {
		if b.IsNull() {
			return types.Null, pgerror.New(pgerror.NullValueNotAllowed, "array subscript in assignment must not be null")
		}
	}
	if len(bounds)/2 > types.MaxArrayDims {
		return types.Null, tooManyDims(len(bounds) / 2)
	}
	if src.IsNull() {
		return a, nil
	}
	vs, err := elems(src)
	if err != nil {
		return types.Null, err
	}
	rs, _ := sliceRanges(bounds)
	var xs []types.Datum
	var sh types.ArrayShape
	if !a.IsNull() {
		if xs, sh, err = shaped(a); err != nil {
			return types.Null, err
		}
	}
	tooSmall := func(n int) error {
		if len(vs) < n {
			return subscriptError("source array too small")
		}
		return nil
	}
	if len(xs) == 0 {
		out := types.ArrayShape{Lens: make([]int, len(rs)), Lower: make([]int, len(rs))}
		for k, r := range rs {
			if r.openLo || r.openHi {
				e := subscriptError("array slice subscript must provide both boundaries")
				e.Detail = "When assigning to a slice of an empty array value, slice boundaries must be fully specified."
				return types.Null, e
			}
			if r.hi < r.lo {
				return types.Null, subscriptError("upper bound cannot be less than lower bound")
			}
			out.Lens[k], out.Lower[k] = int(r.hi-r.lo+1), int(r.lo)
		}
		if n := out.Count(); n > types.MaxArrayElems {
			return types.Null, arrayTooLarge()
		} else if n > maxBuiltElems {
			return types.Null, tooLarge()
		} else if err := tooSmall(n); err != nil {
			return types.Null, err
		}
		return types.NewArrayShaped(vs[:out.Count()], out), nil
	}
	if len(rs) > len(sh.Lens) {
		return types.Null, subscriptError("wrong number of array subscripts")
	}
	lo, hi := make([]int64, len(sh.Lens)), make([]int64, len(sh.Lens))
	for k := range sh.Lens {
		lo[k], hi[k] = int64(sh.Lower[k]), int64(sh.Lower[k]+sh.Lens[k]-1)
		if k < len(rs) {
			if !rs[k].openLo {
				lo[k] = rs[k].lo
			}
			if !rs[k].openHi {
				hi[k] = rs[k].hi
			}
		}
		if lo[k] > hi[k] {
			return types.Null, subscriptError("upper bound cannot be less than lower bound")
		}
	}
	if len(sh.Lens) == 1 {
		if hi[0]-lo[0]+1 > types.MaxArrayElems {
			return types.Null, arrayTooLarge()
		}
		if err := tooSmall(int(hi[0] - lo[0] + 1)); err != nil {
			return types.Null, err
		}
		return setRange(xs, sh, lo[0], hi[0], vs)
	}
	n := 1
	for k := range lo {
		if lo[k] < int64(sh.Lower[k]) || hi[k] >= int64(sh.Lower[k]+sh.Lens[k]) {
			return types.Null, subscriptError("array subscript out of range")
		}
		n *= int(hi[k] - lo[k] + 1)
	}
	if err := tooSmall(n); err != nil {
		return types.Null, err
	}
	i := 0
	eachIndex(lo, hi, func(idx []int64) {
		xs[offset(sh, idx)] = vs[i]
		i++
	})
	return types.NewArrayShaped(xs, sh), nil
}

// catArrays is array_cat(a, b) for two non-empty arrays: of one
// dimensionality, b's rows after a's (their other dimensions equal); or
// one array of a dimension more than the other, the smaller a new row.
func catArrays(a, b types.Datum) (types.Datum, error) {
	xs, sa, err := shaped(a)
	if err != nil {
		return types.Null, err
	}
	ys, sb, err := shaped(b)
	if err != nil {
		return types.Null, err
	}
	incompatible := func(detail string) error {
		e := subscriptError("cannot concatenate incompatible arrays")
		e.Detail = detail
		return e
	}
	out := append(xs, ys...)
	switch na, nb := len(sa.Lens), len(sb.Lens); {
	case na == nb:
		if !equalTail(sa.Lens[1:], sb.Lens[1:]) {
			return types.Null, incompatible("Arrays with differing element dimensions are not compatible for concatenation.")
		}
		sh := types.ArrayShape{Lens: append([]int{sa.Lens[0] + sb.Lens[0]}, sa.Lens[1:]...), Lower: sa.Lower}
		return shapedChecked(out, sh)
	case na == nb-1:
		if !equalTail(sa.Lens, sb.Lens[1:]) {
			return types.Null, incompatible("Arrays with differing dimensions are not compatible for concatenation.")
		}
		sh := types.ArrayShape{Lens: append([]int{sb.Lens[0] + 1}, sb.Lens[1:]...), Lower: sb.Lower}
		return shapedChecked(out, sh)
	case na-1 == nb:
		if !equalTail(sa.Lens[1:], sb.Lens) {
			return types.Null, incompatible("Arrays with differing dimensions are not compatible for concatenation.")
		}
		sh := types.ArrayShape{Lens: append([]int{sa.Lens[0] + 1}, sa.Lens[1:]...), Lower: sa.Lower}
		return shapedChecked(out, sh)
	default:
		return types.Null, incompatible("Arrays of " + strconv.Itoa(na) + " and " + strconv.Itoa(nb) + " dimensions are not compatible for concatenation.")
	}
}

func shapedChecked(xs []types.Datum, sh types.ArrayShape) (types.Datum, error) {
	if sh.Count() > types.MaxArrayElems {
		return types.Null, arrayTooLarge()
	}
	return types.NewArrayShaped(xs, sh), nil
}

func equalTail(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// appendElem is array_append(a, v) (prepend: array_prepend(v, a)) for a
// non-empty one-dimensional a, which keeps its lower bound.
func appendElem(a, v types.Datum, prepend bool) (types.Datum, error) {
	xs, sh, err := shaped(a)
	if err != nil {
		return types.Null, err
	}
	if len(sh.Lens) != 1 {
		return types.Null, pgerror.New(pgerror.DataException, "argument must be empty or one-dimensional array")
	}
	if !prepend && int64(sh.Lower[0])+int64(sh.Lens[0]) > math.MaxInt32 || prepend && sh.Lower[0] == math.MinInt32 {
		return types.Null, pgerror.New(pgerror.NumericValueOutOfRange, "integer out of range")
	}
	if prepend {
		xs = append([]types.Datum{v}, xs...)
	} else {
		xs = append(xs, v)
	}
	return types.NewArrayShaped(xs, types.ArrayShape{Lens: []int{len(xs)}, Lower: sh.Lower}), nil
}

// arrayFill is array_fill(v, dims [, lower]): an array of the shape dims
// (and lower bounds, else 1) with every element v.
func arrayFill(v types.Datum, args []types.Datum) (types.Datum, error) {
	for _, a := range args {
		if a.IsNull() {
			return types.Null, pgerror.New(pgerror.NullValueNotAllowed, "dimension array or low bound array cannot be null")
		}
	}
	dims, dsh, err := shaped(args[0])
	if err != nil {
		return types.Null, err
	}
	if len(dsh.Lens) > 1 {
		e := subscriptError("wrong number of array subscripts")
		e.Detail = "Dimension array must be one dimensional."
		return types.Null, e
	}
	lower := make([]types.Datum, len(dims))
	for i := range lower {
		lower[i] = types.NewInt(1)
	}
	if len(args) > 1 {
		ls, lsh, err := shaped(args[1])
		if err != nil {
			return types.Null, err
		}
		if len(lsh.Lens) > 1 || len(ls) != len(dims) {
			e := subscriptError("wrong number of array subscripts")
			e.Detail = "Low bound array has different size than dimensions array."
			if len(lsh.Lens) > 1 {
				e.Detail = "Dimension array must be one dimensional."
			}
			return types.Null, e
		}
		lower = ls
	}
	if len(dims) == 0 {
		return types.NewArray(nil), nil
	}
	if len(dims) > types.MaxArrayDims {
		return types.Null, tooManyDims(len(dims))
	}
	sh := types.ArrayShape{Lens: make([]int, len(dims)), Lower: make([]int, len(dims))}
	n := int64(1)
	for i := range dims {
		if dims[i].IsNull() || lower[i].IsNull() {
			return types.Null, pgerror.New(pgerror.NullValueNotAllowed, "dimension values cannot be null")
		}
		l := dims[i].I
		if l < 0 {
			return types.Null, arrayTooLarge()
		}
		if n *= l; n > types.MaxArrayElems {
			return types.Null, arrayTooLarge()
		}
		sh.Lens[i], sh.Lower[i] = int(l), int(lower[i].I)
	}
	for i, lb := range sh.Lower {
		if int64(lb)+int64(sh.Lens[i]) > math.MaxInt32 {
			return types.Null, pgerror.Newf(pgerror.ProgramLimitExceeded, "array lower bound is too large: %d", lb)
		}
	}
	if n == 0 {
		return types.NewArray(nil), nil
	}
	if n > maxBuiltElems {
		return types.Null, tooLarge()
	}
	xs := make([]types.Datum, n)
	for i := range xs {
		xs[i] = v
	}
	return types.NewArrayShaped(xs, sh), nil
}

// trimArray is trim_array(a, n): a without the last n elements (rows,
// for a multidimensional a) of its first dimension, subscripted from 1.
func trimArray(a types.Datum, n int64) (types.Datum, error) {
	sh := types.ArrayShapeOf(a)
	have := 0
	if len(sh.Lens) > 0 {
		have = sh.Lens[0]
	}
	if n < 0 || n > int64(have) {
		return types.Null, subscriptError("number of elements to trim must be between 0 and " + strconv.Itoa(have))
	}
	if have == 0 {
		return a, nil
	}
	hi := types.NewInt(int64(sh.Lower[0]+have-1) - n)
	return sliceValue(a, []types.Datum{types.NewInt(int64(sh.Lower[0])), hi})
}

// widthBucket is width_bucket(x, thresholds): the number of thresholds
// not above x, found by PostgreSQL's binary search (so that unsorted
// thresholds give its answer too).
func widthBucket(x, thresholds types.Datum) (types.Datum, error) {
	ts, sh, err := shaped(thresholds)
	if err != nil {
		return types.Null, err
	}
	if len(sh.Lens) > 1 {
		return types.Null, subscriptError("thresholds must be one-dimensional array")
	}
	for _, t := range ts {
		if t.IsNull() {
			return types.Null, pgerror.New(pgerror.NullValueNotAllowed, "thresholds array must not contain NULLs")
		}
	}
	lo, hi := 0, len(ts)
	for lo < hi {
		mid := (lo + hi) / 2
		if Compare(x, ts[mid]) < 0 {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	return types.NewInt(int64(lo)), nil
}
