package exec

import (
	"encoding/binary"
	"hash/maphash"
	"math"
	"slices"

	"github.com/kvsql/kvsql/exec/eval"
	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/planner"
	"github.com/kvsql/kvsql/types"
)

// subqueryResult is what an uncorrelated subquery computed, cached for
// the rest of the execution: the scalar or EXISTS value, or the first
// column of every row (for IN / ANY / ALL) with a hash index for IN.
type subqueryResult struct {
	value   types.Datum
	vals    []types.Datum
	set     map[uint64][]types.Datum
	hasNull bool
	held    int64 // bytes charged to the statement's queryMem for vals and set
}

var subquerySeed = maphash.MakeSeed()

// subquery implements eval.Env.Subquery: it runs sq.Plan with row pushed
// on env.Outer (so correlated ColRefs see it) and turns the rows into a
// value. Uncorrelated subqueries run once per execution.
func (rs *runState) subquery(env *eval.Env, sq *planner.Subquery, row []types.Datum) (types.Datum, error) {
	if !sq.Correlated {
		res, ok := rs.cache[sq]
		if !ok {
			var err error
			if res, err = rs.runSubquery(env, sq, row, true); err != nil {
				return types.Null, err
			}
			if rs.cache == nil {
				rs.cache = make(map[*planner.Subquery]*subqueryResult)
			}
			rs.cache[sq] = res
		}
		return rs.subqueryValue(env, sq, row, res)
	}
	m := rs.memoOf(sq)
	var key string
	if m.pure {
		key = m.key(env, row)
		if res, ok := m.results[key]; ok {
			return rs.subqueryValue(env, sq, row, res)
		}
	}
	res, err := rs.runSubquery(env, sq, row, m.pure)
	if err != nil {
		return types.Null, err
	}
	if m.pure && len(m.results) < maxMemoEntries {
		m.results[key] = res
		return rs.subqueryValue(env, sq, row, res)
	}
	defer rs.qmem.release(res.held) // used once, for this row
	return rs.subqueryValue(env, sq, row, res)
}

// subqueryMemo holds a correlated subquery's results by the values of
// the enclosing columns it reads: a subquery run per row of a join
// usually sees few distinct inputs. Only a subquery whose answer depends
// on nothing but those values (no volatile function) is memoized.
type subqueryMemo struct {
	refs    []planner.OuterRef
	pure    bool
	results map[string]*subqueryResult
	buf     []byte
}

// maxMemoEntries bounds one subquery's memo; later inputs just run.
const maxMemoEntries = 10000

func (rs *runState) memoOf(sq *planner.Subquery) *subqueryMemo {
	if m, ok := rs.subMemos[sq]; ok {
		return m
	}
	refs, pure := planner.SubqueryInputs(sq)
	m := &subqueryMemo{refs: refs, pure: pure, results: map[string]*subqueryResult{}}
	if rs.subMemos == nil {
		rs.subMemos = map[*planner.Subquery]*subqueryMemo{}
	}
	rs.subMemos[sq] = m
	return m
}

// key is the exact values (kind and bits: -0 is not 0, 1.50 not 1.5) of
// the enclosing columns the subquery reads, for row and env's enclosing
// rows.
func (m *subqueryMemo) key(env *eval.Env, row []types.Datum) string {
	b := m.buf[:0]
	for _, r := range m.refs {
		var src []types.Datum
		if r.Level == 1 {
			src = row
		} else if i := len(env.Outer) - (r.Level - 1); i >= 0 {
			src = env.Outer[i]
		}
		var d types.Datum
		if r.Index < len(src) {
			d = src[r.Index]
		}
		b = append(b, byte(d.Kind))
		b = binary.LittleEndian.AppendUint64(b, uint64(d.I))
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(d.F))
		b = binary.AppendUvarint(b, uint64(len(d.S)))
		b = append(b, d.S...)
	}
	m.buf = b
	return string(b)
}

// runSubquery runs the plan and gathers what its kind needs. With index,
// IN values are also hashed for repeated probing.
func (rs *runState) runSubquery(env *eval.Env, sq *planner.Subquery, row []types.Datum, hashIn bool) (*subqueryResult, error) {
	sub := *env // shares eval's caches, as intended by eval.Env
	sub.Outer = append(slices.Clip(env.Outer), copyRow(row))
	op, err := rs.build(&sub, sq.Plan)
	if err != nil {
		return nil, err
	}
	res, err := rs.gather(op, sq, hashIn)
	if cerr := op.Close(); err == nil {
		err = cerr
	}
	return res, err
}

func (rs *runState) gather(op Operator, sq *planner.Subquery, hashIn bool) (*subqueryResult, error) {
	res := &subqueryResult{}
	t := ticker{rs: rs}
	n := 0
	for {
		r, err := op.Next()
		if err != nil {
			return nil, err
		}
		if r == nil {
			break
		}
		if err := t.tick(); err != nil {
			return nil, err
		}
		n++
		switch sq.Kind {
		case planner.SubExists:
			res.value = types.NewBool(true)
			return res, nil
		case planner.SubScalar:
			if n > 1 {
				return nil, pgerror.New(pgerror.CardinalityViolation, "more than one row returned by a subquery used as an expression")
			}
			if len(r) > 0 {
				res.value = r[0]
			}
		default:
			var d types.Datum
			if len(r) > 0 {
				d = r[0]
			}
			if d.IsNull() {
				res.hasNull = true
			}
			sz := int64(2*datumOverhead + len(d.S)) // the value and its hash entry
			if err := rs.qmem.charge(sz); err != nil {
				rs.qmem.release(res.held)
				return nil, err
			}
			res.held += sz
			res.vals = append(res.vals, d)
		}
	}
	if sq.Kind == planner.SubExists {
		res.value = types.NewBool(false)
	}
	if hashIn && sq.Kind == planner.SubIn {
		res.set = make(map[uint64][]types.Datum)
		for _, d := range res.vals {
			if !d.IsNull() {
				h := hashDatum(d)
				res.set[h] = append(res.set[h], d)
			}
		}
	}
	return res, nil
}

func hashDatum(d types.Datum) uint64 {
	var h maphash.Hash
	h.SetSeed(subquerySeed)
	eval.Hash(&h, d)
	return h.Sum64()
}

// subqueryValue computes the subquery's value for the current row from
// its gathered rows, with SQL's NULL rules for IN, ANY and ALL.
func (rs *runState) subqueryValue(env *eval.Env, sq *planner.Subquery, row []types.Datum, res *subqueryResult) (types.Datum, error) {
	switch sq.Kind {
	case planner.SubScalar, planner.SubExists:
		return res.value, nil
	case planner.SubArray:
		if sq.T == sq.Plan.Columns()[0].T {
			return eval.AccumArrays(res.vals) // of arrays: multidimensional
		}
		return types.NewArray(res.vals), nil
	}
	if len(res.vals) == 0 {
		// Over no rows the answer is known without the left operand,
		// which PostgreSQL does not evaluate then (its errors with it).
		empty := sq.Kind == planner.SubAll || sq.Kind == planner.SubIn && sq.Not
		return types.NewBool(empty), nil
	}
	x, err := eval.Eval(env, sq.X, row)
	if err != nil {
		return types.Null, err
	}
	var v types.Datum // three-valued: Null, or a bool
	switch sq.Kind {
	case planner.SubIn:
		v = inValue(x, res)
		if sq.Not && !v.IsNull() {
			v = types.NewBool(!v.Bool())
		}
	case planner.SubAny, planner.SubAll:
		v, err = quantified(x, sq.Op, sq.Kind == planner.SubAll, res.vals)
	default:
		err = pgerror.Newf(pgerror.Internal, "exec: unknown subquery kind %d", sq.Kind)
	}
	return v, err
}

// inValue is x IN (vals): true on a match, otherwise NULL if x or some
// value is NULL (and there are values), otherwise false.
func inValue(x types.Datum, res *subqueryResult) types.Datum {
	if len(res.vals) == 0 {
		return types.NewBool(false)
	}
	if x.IsNull() {
		return types.Null
	}
	if res.set != nil {
		for _, d := range res.set[hashDatum(x)] {
			if eval.Equal(x, d) {
				return types.NewBool(true)
			}
		}
	} else {
		for _, d := range res.vals {
			if !d.IsNull() && eval.Equal(x, d) {
				return types.NewBool(true)
			}
		}
	}
	if res.hasNull {
		return types.Null
	}
	return types.NewBool(false)
}

// quantified is x op ANY (vals) or x op ALL (vals).
func quantified(x types.Datum, op string, all bool, vals []types.Datum) (types.Datum, error) {
	sawNull := false
	for _, d := range vals {
		if x.IsNull() || d.IsNull() {
			sawNull = true
			continue
		}
		ok, err := compareOp(op, eval.Compare(x, d))
		if err != nil {
			return types.Null, err
		}
		if ok != all { // ANY: a true decides; ALL: a false decides
			return types.NewBool(ok), nil
		}
	}
	if sawNull {
		return types.Null, nil
	}
	return types.NewBool(all), nil
}

func compareOp(op string, c int) (bool, error) {
	switch op {
	case "=":
		return c == 0, nil
	case "<>", "!=":
		return c != 0, nil
	case "<":
		return c < 0, nil
	case "<=":
		return c <= 0, nil
	case ">":
		return c > 0, nil
	case ">=":
		return c >= 0, nil
	}
	return false, pgerror.Newf(pgerror.UndefinedFunction, "operator does not exist: %s", op)
}
