package exec

import (
	"fmt"
	"hash/maphash"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/cockroachdb/apd/v3"
	"github.com/kvsql/kvsql/exec/eval"
	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/planner"
	"github.com/kvsql/kvsql/types"
)

// aggState accumulates one aggregate call over one group. add takes the
// call's evaluated arguments (then its ORDER BY key values) and returns
// how many bytes of memory the state retained for them (only collecting
// states retain anything); result finalizes.
type aggState interface {
	add(args []types.Datum) (int64, error)
	result() (types.Datum, error)
}

// aggStateSize is the estimated fixed memory of one aggregate state.
const aggStateSize = 64

// newAggState returns an empty state for call. The session's env gives
// the cap on the value string_agg builds (Env.MaxValueSize) and the time
// zone the JSON aggregates show timestamptz values in.
func newAggState(call *planner.AggCall, env *eval.Env) (aggState, error) {
	if call.Filtered {
		// FILTER's condition rides as the last argument.
		inner := *call
		inner.Args, inner.Filtered = call.Args[:len(call.Args)-1], false
		s, err := newAggState(&inner, env)
		if err != nil {
			return nil, err
		}
		return &filterState{inner: s, at: len(inner.Args)}, nil
	}
	var s aggState
	switch {
	case call.User != nil:
		u, err := newUserAggState(call, env) // useragg.go
		if err != nil {
			return nil, err
		}
		s = u
	default:
		var err error
		if s, err = newBuiltinAggState(call, env); err != nil {
			return nil, err
		}
	}
	if call.Distinct {
		s = &distinctState{inner: s, seen: make(map[uint64][][]types.Datum)}
	}
	return s, nil
}

// newBuiltinAggState returns an empty state for a built-in aggregate.
func newBuiltinAggState(call *planner.AggCall, env *eval.Env) (aggState, error) {
	var s aggState
	switch call.Func {
	case "count_star", "count":
		s = &countState{star: call.Func == "count_star"}
	case "sum":
		s = &sumState{numeric: call.T.Family == types.Numeric}
	case "avg":
		s = &avgState{}
	case "stddev_samp", "stddev_pop", "var_samp", "var_pop":
		s = &varianceState{
			sample: call.Func == "stddev_samp" || call.Func == "var_samp",
			root:   call.Func == "stddev_samp" || call.Func == "stddev_pop",
		}
	case "corr", "covar_pop", "covar_samp", "regr_count", "regr_sxx", "regr_syy", "regr_sxy",
		"regr_avgx", "regr_avgy", "regr_r2", "regr_slope", "regr_intercept":
		s = &regrState{fn: call.Func}
	case "min":
		s = &minMaxState{sign: 1}
	case "max":
		s = &minMaxState{sign: -1}
	case "bool_and", "every":
		s = &boolState{and: true}
	case "bool_or":
		s = &boolState{}
	case "string_agg":
		s = &stringAggState{orderBy: call.OrderBy, limit: env.MaxValueSize}
	case "array_agg":
		s = &arrayAggState{orderBy: call.OrderBy, ofArrays: call.Args[0].Type().IsArray()}
	case "percentile_cont", "percentile_disc", "mode":
		s = &orderedSetState{fn: call.Func, orderBy: call.OrderBy, width: len(call.Args)}
	case "rank", "dense_rank", "percent_rank", "cume_dist":
		s = &hypotheticalState{fn: call.Func, keys: sortKeys{keys: call.OrderBy, width: len(call.Args)}}
	case "jsonb_agg", "json_agg", "jsonb_object_agg", "json_object_agg":
		argTypes := make([]types.T, len(call.Args))
		for i, a := range call.Args {
			argTypes[i] = a.Type()
		}
		s = &jsonAggState{arrayAggState: arrayAggState{orderBy: call.OrderBy}, name: call.Func, argTypes: argTypes, width: len(call.Args), loc: env.Loc}
	default:
		return nil, pgerror.Newf(pgerror.UndefinedFunction, "function %s does not exist", call.Func)
	}
	return s, nil
}

// finalizeAgg converts an aggregate's result to the call's declared type
// when their kinds differ (sum of INT8 declared NUMERIC, avg of INT...).
func finalizeAgg(d types.Datum, t types.T) (types.Datum, error) {
	if d.IsNull() || t.Family == types.Unknown || d.Kind == t.Kind() {
		return d, nil
	}
	return eval.Cast(d, t)
}

type countState struct {
	star bool
	n    int64
}

func (s *countState) add(args []types.Datum) (int64, error) {
	if s.star || !args[0].IsNull() {
		s.n++
	}
	return 0, nil
}
func (s *countState) result() (types.Datum, error) { return types.NewInt(s.n), nil }

// sumState sums integers exactly in an int64, floats as float64 and
// numerics exactly. When the result is NUMERIC (sum of bigint), an int64
// overflow moves the sum on to a decimal as PostgreSQL's does; otherwise
// it is 22003.
type sumState struct {
	numeric      bool // the result type is NUMERIC
	any, isFloat bool
	isDec        bool // dec holds part of the sum
	i            int64
	f            float64
	dec          apd.Decimal
	// fast: fastSum at fastScale holds the numerics that fit an int64.
	fast      bool
	fastSum   int64
	fastScale int
	// isIv: the values are intervals, summed field by field in iv.
	isIv bool
	iv   types.IntervalValue
}

func (s *sumState) add(args []types.Datum) (int64, error) {
	d := args[0]
	switch d.Kind {
	case types.KindNull:
		return 0, nil
	case types.KindInt:
		r := s.i + d.I
		if (r > s.i) != (d.I > 0) {
			if !s.numeric {
				return 0, pgerror.New(pgerror.NumericValueOutOfRange, "bigint out of range")
			}
			s.addDecimal(d)
			break
		}
		s.i = r
	case types.KindFloat:
		if s.isFloat {
			s.f += d.F
		} else {
			s.f = d.F // not 0 + d.F: like PostgreSQL's float8pl from the first value, sum(-0) is -0
		}
		s.isFloat = true
	case types.KindDecimal:
		s.addDecimal(d)
	case types.KindInterval:
		iv, err := eval.AddIntervals(s.iv, d.Interval())
		if err != nil {
			return 0, err
		}
		s.iv, s.isIv = iv, true
	default:
		return 0, pgerror.Newf(pgerror.UndefinedFunction, "function sum(%s) does not exist", d.Kind)
	}
	s.any = true
	return 0, nil
}

func (s *sumState) addDecimal(d types.Datum) {
	s.isDec = true
	if d.Kind == types.KindDecimal && s.fastAdd(d.S) {
		return
	}
	eval.AddDecimal(&s.dec, d)
}

// addDecimalBytes is addDecimal of a numeric's text held in a batch
// vector: it converts the text to a string only when the value leaves the
// integer fast path.
func (s *sumState) addDecimalBytes(text []byte) {
	s.isDec, s.any = true, true
	if coef, scale, ok := types.DecimalInt64(text); ok && s.fastAddCoef(coef, scale) {
		return
	}
	eval.AddDecimal(&s.dec, types.Datum{Kind: types.KindDecimal, S: string(text)})
}

// fastAdd adds a numeric of at most 18 digits to the integer running sum
// fast (coefficient at scale fastScale) and reports whether it could:
// a sum of NUMERIC(12,2) values never leaves integer arithmetic.
func (s *sumState) fastAdd(text string) bool {
	coef, scale, ok := types.DecimalInt64(text)
	return ok && s.fastAddCoef(coef, scale)
}

// fastAddCoef is fastAdd of the coefficient and scale of a numeric.
func (s *sumState) fastAddCoef(coef int64, scale int) bool {
	if !s.fast {
		s.fast, s.fastScale = true, scale
	}
	for scale < s.fastScale {
		if coef > math.MaxInt64/10 || coef < math.MinInt64/10 {
			return false
		}
		coef *= 10
		scale++
	}
	for s.fastScale < scale {
		if s.fastSum > math.MaxInt64/10 || s.fastSum < math.MinInt64/10 {
			return false
		}
		s.fastSum *= 10
		s.fastScale++
	}
	r := s.fastSum + coef
	if (r > s.fastSum) != (coef > 0) {
		return false
	}
	s.fastSum = r
	return true
}

func (s *sumState) result() (types.Datum, error) {
	switch {
	case !s.any:
		return types.Null, nil
	case s.isIv:
		return types.NewInterval(s.iv), nil
	case s.isFloat && s.i == 0:
		return types.NewFloat(s.f), nil
	case s.isFloat:
		return types.NewFloat(s.f + float64(s.i)), nil
	case s.isDec || s.numeric:
		var total apd.Decimal
		total.Set(&s.dec)
		eval.AddDecimal(&total, types.NewInt(s.i))
		if s.fast {
			eval.AddDecimal(&total, types.NewDecimal(apd.New(s.fastSum, int32(-s.fastScale))))
		}
		return eval.DecimalResult(&total)
	}
	return types.NewInt(s.i), nil
}

// avgState averages floats in float64, and integers and numerics exactly
// (the result NUMERIC, the quotient's scale PostgreSQL's division's).
type avgState struct {
	sum sumState
	n   int64
}

func (s *avgState) add(args []types.Datum) (int64, error) {
	d := args[0]
	switch d.Kind {
	case types.KindNull:
		return 0, nil
	case types.KindFloat:
		s.sum.f += d.F // from 0, as PostgreSQL's float8_accum: avg(-0) is 0
		s.sum.isFloat, s.sum.any = true, true
	case types.KindInt, types.KindDecimal:
		s.sum.numeric = true
		if _, err := s.sum.add(args); err != nil {
			return 0, err
		}
	case types.KindInterval:
		if _, err := s.sum.add(args); err != nil {
			return 0, err
		}
	default:
		return 0, pgerror.Newf(pgerror.UndefinedFunction, "function avg(%s) does not exist", d.Kind)
	}
	s.n++
	return 0, nil
}

func (s *avgState) result() (types.Datum, error) {
	if s.n == 0 {
		return types.Null, nil
	}
	if s.sum.isFloat {
		return types.NewFloat(s.sum.f / float64(s.n)), nil
	}
	if s.sum.isIv {
		iv, err := eval.DivInterval(s.sum.iv, float64(s.n))
		return types.NewInterval(iv), err
	}
	total, err := s.sum.result()
	if err != nil {
		return types.Null, err
	}
	return eval.DecimalDiv(total, types.NewInt(s.n))
}

// varianceState computes var_samp, var_pop and the standard deviations
// as PostgreSQL does: exactly in NUMERIC for integers and numerics
// (sums of x and x², then one division at select_div_scale's scale),
// and for floats with the Youngs-Cramer update of float8_accum, so the
// answers agree to the last digit.
type varianceState struct {
	sample, root bool
	n            int64
	numeric      bool
	sumX, sumX2  apd.Decimal // numeric inputs
	fn, fx, fxx  float64     // float inputs: N, Sx, Sxx
}

func (s *varianceState) add(args []types.Datum) (int64, error) {
	d := args[0]
	switch d.Kind {
	case types.KindNull:
		return 0, nil
	case types.KindFloat:
		old := s.fn
		s.fn++
		s.fx += d.F
		if old > 0 {
			tmp := d.F*s.fn - s.fx
			s.fxx += tmp * tmp / (s.fn * old)
		} else if math.IsInf(d.F, 0) || math.IsNaN(d.F) {
			s.fxx = math.NaN()
		}
	case types.KindInt, types.KindDecimal:
		s.numeric = true
		eval.AddDecimal(&s.sumX, d)
		sq, err := eval.DecimalMul(d, d)
		if err != nil {
			return 0, err
		}
		eval.AddDecimal(&s.sumX2, sq)
	default:
		return 0, pgerror.Newf(pgerror.UndefinedFunction, "function variance(%s) does not exist", d.Kind)
	}
	s.n++
	return 0, nil
}

func (s *varianceState) result() (types.Datum, error) {
	if s.n == 0 || (s.sample && s.n == 1) {
		return types.Null, nil
	}
	if !s.numeric {
		den := s.fn
		if s.sample {
			den--
		}
		v := s.fxx / den
		if s.root {
			v = math.Sqrt(v)
		}
		return types.NewFloat(v), nil
	}
	return eval.DecimalVariance(&s.sumX, &s.sumX2, s.n, s.sample, s.root)
}

// minMaxState keeps the least (sign 1) or greatest (sign -1) non-NULL
// value.
type minMaxState struct {
	sign int
	v    types.Datum
}

func (s *minMaxState) add(args []types.Datum) (int64, error) {
	d := args[0]
	if d.IsNull() {
		return 0, nil
	}
	if s.v.IsNull() || s.sign*eval.Compare(d, s.v) < 0 {
		s.v = d
		return int64(len(d.S)), nil
	}
	return 0, nil
}
func (s *minMaxState) result() (types.Datum, error) { return s.v, nil }

type boolState struct {
	and, any, v bool
}

func (s *boolState) add(args []types.Datum) (int64, error) {
	d := args[0]
	if d.IsNull() {
		return 0, nil
	}
	if !s.any {
		s.any, s.v = true, d.Bool()
	} else if s.and {
		s.v = s.v && d.Bool()
	} else {
		s.v = s.v || d.Bool()
	}
	return 0, nil
}

func (s *boolState) result() (types.Datum, error) {
	if !s.any {
		return types.Null, nil
	}
	return types.NewBool(s.v), nil
}

// stringAggState collects (value, separator, order keys) and joins them
// at the end: each value after the first is preceded by its own row's
// separator, as in PostgreSQL.
type stringAggState struct {
	orderBy []planner.SortKey
	items   [][]types.Datum // value, separator, keys...
	bytes   bool
	size    int64 // bytes of the result so far: values and separators
	limit   int64 // the value cap; <= 0: eval.DefaultMaxValueSize
}

func (s *stringAggState) add(args []types.Datum) (int64, error) {
	if args[0].IsNull() {
		return 0, nil
	}
	s.bytes = args[0].Kind == types.KindBytes
	more := int64(len(args[0].S))
	if len(s.items) > 0 && len(args) > 1 {
		more += int64(len(args[1].S))
	}
	limit := s.limit
	if limit <= 0 {
		limit = eval.DefaultMaxValueSize
	}
	if s.size+more > limit {
		// PostgreSQL's StringInfo refuses to grow past its 1 GB cap so.
		e := pgerror.New(pgerror.ProgramLimitExceeded, "out of memory")
		e.Detail = fmt.Sprintf("Cannot enlarge string buffer containing %d bytes by %d more bytes.", s.size, more)
		return 0, e
	}
	s.size += more
	item := copyRow(args)
	s.items = append(s.items, item)
	return rowSize(item), nil
}

func (s *stringAggState) result() (types.Datum, error) {
	if len(s.items) == 0 {
		return types.Null, nil
	}
	if len(s.orderBy) > 0 {
		// The keys follow value and separator: compare them as a sort
		// of extended rows of width 2.
		sk := sortKeys{keys: s.orderBy, width: 2}
		slices.SortStableFunc(s.items, sk.compare)
	}
	var b strings.Builder
	for i, it := range s.items {
		if i > 0 && !it[1].IsNull() {
			b.WriteString(it[1].S)
		}
		b.WriteString(it[0].S)
	}
	if s.bytes {
		return types.Datum{Kind: types.KindBytes, S: b.String()}, nil
	}
	return types.NewText(b.String()), nil
}

// arrayAggState collects array_agg's values, NULLs included, in input
// order or its ORDER BY's.
type arrayAggState struct {
	orderBy  []planner.SortKey
	items    [][]types.Datum // value, keys...
	ofArrays bool            // the values are arrays: the result has a dimension more
}

func (s *arrayAggState) add(args []types.Datum) (int64, error) {
	item := copyRow(args)
	s.items = append(s.items, item)
	return rowSize(item), nil
}

func (s *arrayAggState) result() (types.Datum, error) {
	if len(s.items) == 0 {
		return types.Null, nil
	}
	if len(s.orderBy) > 0 {
		sk := sortKeys{keys: s.orderBy, width: 1}
		slices.SortStableFunc(s.items, sk.compare)
	}
	elems := make([]types.Datum, len(s.items))
	for i, it := range s.items {
		elems[i] = it[0]
	}
	if s.ofArrays {
		return eval.AccumArrays(elems)
	}
	return types.NewArray(elems), nil
}

// orderedSetState collects the values of an ordered-set aggregate
// (percentile_cont, percentile_disc, mode) with their direct argument and
// sort keys, and computes over them in their WITHIN GROUP order; NULL
// values are left out, as in PostgreSQL.
type orderedSetState struct {
	fn      string
	orderBy []planner.SortKey
	width   int             // the value and the direct argument, if any
	items   [][]types.Datum // value, fraction, keys...
}

func (s *orderedSetState) add(args []types.Datum) (int64, error) {
	if args[0].IsNull() {
		return 0, nil
	}
	item := copyRow(args)
	s.items = append(s.items, item)
	return rowSize(item), nil
}

func (s *orderedSetState) result() (types.Datum, error) {
	if len(s.items) == 0 {
		return types.Null, nil
	}
	sk := sortKeys{keys: s.orderBy, width: s.width}
	slices.SortStableFunc(s.items, sk.compare)
	if s.fn == "mode" {
		// The most frequent value; among equally frequent ones the first
		// in the sort order.
		best, bestN, run := 0, 0, 0
		for i := range s.items {
			if i > 0 && eval.Equal(s.items[i][0], s.items[i-1][0]) {
				run++
			} else {
				run = 1
			}
			if run > bestN {
				best, bestN = i, run
			}
		}
		return s.items[best][0], nil
	}
	frac := s.items[0][1]
	if frac.Kind != types.KindArray {
		return s.percentile(frac)
	}
	fracs, err := types.ArrayElems(nil, frac)
	if err != nil {
		return types.Null, err
	}
	out := make([]types.Datum, len(fracs))
	for i, f := range fracs {
		if out[i], err = s.percentile(f); err != nil {
			return types.Null, err
		}
	}
	return types.NewArrayShaped(out, types.ArrayShapeOf(frac)), nil // the fractions' dimensions
}

// percentile is percentile_cont's or percentile_disc's value at the
// fraction frac of the sorted items.
func (s *orderedSetState) percentile(frac types.Datum) (types.Datum, error) {
	n := len(s.items)
	if frac.IsNull() {
		return types.Null, nil
	}
	f := frac.F
	if frac.Kind == types.KindInt {
		f = float64(frac.I)
	}
	if f < 0 || f > 1 || math.IsNaN(f) {
		return types.Null, pgerror.Newf(pgerror.NumericValueOutOfRange, "percentile value %s is not between 0 and 1", eval.FormatText(frac, types.T{Family: types.Float8}))
	}
	if s.fn == "percentile_disc" {
		// The first value whose position in the order reaches f.
		i := int(math.Ceil(f*float64(n))) - 1
		return s.items[max(i, 0)][0], nil
	}
	// percentile_cont interpolates linearly between the neighbours.
	pos := f * float64(n-1)
	lo, hi := int(math.Floor(pos)), int(math.Ceil(pos))
	a, b := floatValue(s.items[lo][0]), floatValue(s.items[hi][0])
	if lo == hi {
		return types.NewFloat(a), nil
	}
	return types.NewFloat(a + (pos-float64(lo))*(b-a)), nil
}

// hypotheticalState computes a hypothetical-set aggregate, rank(v)
// WITHIN GROUP (ORDER BY x): where the row v would sort among the x
// (NULLs included, in the ORDER BY's NULLS place). Items are [x, v,
// key]; the hypothetical row is [v, v, v].
type hypotheticalState struct {
	fn    string
	keys  sortKeys
	items [][]types.Datum
}

func (s *hypotheticalState) add(args []types.Datum) (int64, error) {
	item := copyRow(args)
	s.items = append(s.items, item)
	return rowSize(item), nil
}

func (s *hypotheticalState) result() (types.Datum, error) {
	n := len(s.items)
	if n == 0 {
		if s.fn == "percent_rank" {
			return types.NewFloat(0), nil
		}
		if s.fn == "cume_dist" {
			return types.NewFloat(1), nil
		}
		return types.NewInt(1), nil
	}
	v := s.items[0][1]
	hypo := []types.Datum{v, v, v}
	slices.SortStableFunc(s.items, s.keys.compare)
	before, peers, distinct := 0, 0, 0
	for i, it := range s.items {
		switch c := s.keys.compare(it, hypo); {
		case c < 0:
			before++
			if i == 0 || s.keys.compare(s.items[i-1], it) != 0 {
				distinct++
			}
		case c == 0:
			peers++
		}
	}
	switch s.fn {
	case "rank":
		return types.NewInt(int64(before + 1)), nil
	case "dense_rank":
		return types.NewInt(int64(distinct + 1)), nil
	case "percent_rank":
		return types.NewFloat(float64(before) / float64(n)), nil
	}
	return types.NewFloat(float64(before+peers+1) / float64(n+1)), nil // cume_dist
}

// floatValue is a number as a float64.
func floatValue(d types.Datum) float64 {
	switch d.Kind {
	case types.KindInt:
		return float64(d.I)
	case types.KindDecimal:
		return types.DecimalFloat(d)
	}
	return d.F
}

// jsonAggState collects the JSON aggregates' arguments as arrayAggState
// does; eval.JSONAgg builds the document.
type jsonAggState struct {
	arrayAggState
	name     string
	argTypes []types.T
	width    int            // arguments per item before the ORDER BY keys
	loc      *time.Location // the session's TimeZone, for timestamptz values
}

func (s *jsonAggState) result() (types.Datum, error) {
	if len(s.orderBy) > 0 {
		sk := sortKeys{keys: s.orderBy, width: s.width}
		slices.SortStableFunc(s.items, sk.compare)
	}
	return eval.JSONAgg(s.name, s.items, s.argTypes, s.loc)
}

// filterState feeds inner the rows whose FILTER condition, the argument
// at position at, is true, without it.
type filterState struct {
	inner aggState
	at    int
	buf   []types.Datum
}

func (s *filterState) add(args []types.Datum) (int64, error) {
	if c := args[s.at]; c.IsNull() || !c.Bool() {
		return 0, nil
	}
	s.buf = append(append(s.buf[:0], args[:s.at]...), args[s.at+1:]...)
	return s.inner.add(s.buf)
}

func (s *filterState) result() (types.Datum, error) { return s.inner.result() }

// distinctState feeds inner only the first occurrence of each argument
// list (DISTINCT aggregates).
type distinctState struct {
	inner aggState
	seen  map[uint64][][]types.Datum
}

var distinctSeed = maphash.MakeSeed()

func (s *distinctState) add(args []types.Datum) (int64, error) {
	var h maphash.Hash
	h.SetSeed(distinctSeed)
	for _, d := range args {
		eval.Hash(&h, d)
	}
	k := h.Sum64()
	for _, prev := range s.seen[k] {
		if rowsIdentical(prev, args) {
			return 0, nil
		}
	}
	kept := copyRow(args)
	s.seen[k] = append(s.seen[k], kept)
	n, err := s.inner.add(kept)
	return n + rowSize(kept), err
}

func (s *distinctState) result() (types.Datum, error) { return s.inner.result() }

// rowsIdentical compares rows for grouping: NULL equals NULL here, unlike
// in the = operator.
func rowsIdentical(a, b []types.Datum) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		an, bn := a[i].IsNull(), b[i].IsNull()
		if an || bn {
			if an != bn {
				return false
			}
			continue
		}
		if !eval.Equal(a[i], b[i]) {
			return false
		}
	}
	return true
}
