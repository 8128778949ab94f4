package eval

import (
	"slices"

	"github.com/kvsql/kvsql/planner"
	"github.com/kvsql/kvsql/types"
)

// minInSet is the shortest IN list probed through an inSet; a shorter one
// is compared item by item.
const minInSet = 8

// inSet is the items of an IN list that reads nothing of the row (literals,
// parameters, casts of them), evaluated once per statement, sorted and
// de-duplicated: a probe is a binary search, so x IN (100,000 literals)
// costs some 17 comparisons per row instead of up to 100,000. PostgreSQL
// hashes such a list (ScalarArrayOpExpr's hashed path) for the same reason.
type inSet struct {
	// ok is false when the items cannot be probed so (one reads the row,
	// fails to evaluate, or the items are of different comparison
	// classes): the list is then evaluated item by item, as before, which
	// keeps its errors and their order.
	ok      bool
	vals    []types.Datum // the non-NULL items, sorted by Compare, distinct
	hasNull bool
	class   int
}

// rowFree reports whether e is a literal or parameter, possibly cast or
// negated: a value the same for every row of the statement.
func rowFree(e planner.Expr) bool {
	switch e := e.(type) {
	case *planner.Const, *planner.Param:
		return true
	case *planner.Cast:
		return rowFree(e.X)
	case *planner.UnaryOp:
		return rowFree(e.X)
	}
	return false
}

// inSetFor returns e's inSet, building it on first use in this Env.
func (env *Env) inSetFor(e *planner.In) *inSet {
	c := env.patterns()
	if s, ok := c.in[e]; ok {
		return s
	}
	if c.in == nil {
		c.in = map[*planner.In]*inSet{}
	}
	s := buildInSet(env, e)
	c.in[e] = s
	return s
}

func buildInSet(env *Env, e *planner.In) *inSet {
	s := &inSet{class: -1}
	for _, item := range e.List {
		if !rowFree(item) {
			return &inSet{}
		}
	}
	vals := make([]types.Datum, 0, len(e.List))
	for _, item := range e.List {
		d, err := Eval(env, item, nil)
		if err != nil {
			return &inSet{}
		}
		if d.IsNull() {
			s.hasNull = true
			continue
		}
		if cl := classOf(d.Kind); s.class < 0 {
			s.class = cl
		} else if cl != s.class {
			return &inSet{}
		}
		vals = append(vals, d)
	}
	slices.SortFunc(vals, Compare)
	s.vals = slices.CompactFunc(vals, func(a, b types.Datum) bool { return Compare(a, b) == 0 })
	s.ok = true
	return s
}

// probe answers x [NOT] IN the set for a non-NULL x; ok is false when x
// is of another comparison class than the items (the caller then compares
// item by item, which reports the type mismatch as before).
func (s *inSet) probe(x types.Datum, not bool) (types.Datum, bool) {
	if len(s.vals) > 0 && classOf(x.Kind) != s.class {
		return types.Null, false
	}
	if _, found := slices.BinarySearchFunc(s.vals, x, Compare); found {
		return types.NewBool(!not), true
	}
	if s.hasNull {
		return types.Null, true
	}
	return types.NewBool(not), true
}
