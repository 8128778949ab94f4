package eval

import (
	"github.com/kvsql/kvsql/planner"
	"github.com/kvsql/kvsql/types"
)

// minHashedIn is the length from which an IN list of constants is
// probed through a hash set instead of compared item by item (PostgreSQL
// hashes from 9 items): a list of 100,000 values over a million rows is
// then a million probes, not 10^11 comparisons.
const minHashedIn = 16

// inSet is the hash set of an IN list whose items are all constants of
// one kind for which equality is identity of I (integers, dates,
// timestamps, booleans) or of S (text, bytea). A left operand of another
// kind (an integer against a list of floats, ...) is compared item by
// item, with SQL's cross-kind rules.
type inSet struct {
	kind    types.Kind
	ints    map[int64]struct{}
	strs    map[string]struct{}
	hasNull bool
}

func (s *inSet) has(x types.Datum) bool {
	if s.ints != nil {
		_, ok := s.ints[x.I]
		return ok
	}
	_, ok := s.strs[x.S]
	return ok
}

// inSetOf returns e's hash set, building it on first use, or nil when
// the list does not qualify.
func (env *Env) inSetOf(e *planner.In) *inSet {
	c := env.patterns()
	if set, ok := c.in[e]; ok {
		return set
	}
	if c.in == nil {
		c.in = make(map[*planner.In]*inSet)
	}
	set := buildInSet(e.List)
	c.in[e] = set
	return set
}

func buildInSet(list []planner.Expr) *inSet {
	set := &inSet{kind: types.KindNull}
	for _, item := range list {
		k, ok := item.(*planner.Const)
		if !ok {
			return nil
		}
		d := k.Value
		if d.IsNull() {
			set.hasNull = true
			continue
		}
		if set.kind == types.KindNull {
			set.kind = d.Kind
			switch d.Kind {
			case types.KindBool, types.KindInt, types.KindDate, types.KindTimestamp:
				set.ints = make(map[int64]struct{}, len(list))
			case types.KindText, types.KindBytes:
				set.strs = make(map[string]struct{}, len(list))
			default:
				return nil
			}
		}
		if d.Kind != set.kind {
			return nil
		}
		if set.ints != nil {
			set.ints[d.I] = struct{}{}
		} else {
			set.strs[d.S] = struct{}{}
		}
	}
	if set.kind == types.KindNull {
		return nil // only NULLs: the item-by-item loop answers
	}
	return set
}
