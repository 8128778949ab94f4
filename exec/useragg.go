package exec

import (
	"slices"

	"github.com/kvsql/kvsql/exec/eval"
	"github.com/kvsql/kvsql/planner"
	"github.com/kvsql/kvsql/types"
)

// userAggState runs a user-defined aggregate (planner.UserAgg): its
// transition expression over (state, inputs...) per row, its final one
// over (state) at the end.
type userAggState struct {
	agg   *planner.UserAgg
	env   *eval.Env
	state types.Datum
	// noValue: no INITCOND and no input yet (PostgreSQL's noTransValue).
	noValue bool
	row     []types.Datum // (state, inputs...), reused
}

func newUserAggState(call *planner.AggCall, env *eval.Env) (aggState, error) {
	init, err := eval.Eval(env, call.User.Init, nil)
	if err != nil {
		return nil, err
	}
	s := &userAggState{agg: call.User, env: env, state: init, noValue: init.IsNull(), row: make([]types.Datum, 1+len(call.Args))}
	if len(call.OrderBy) > 0 {
		return &orderedUserAgg{inner: s, keys: sortKeys{keys: call.OrderBy, width: len(call.Args)}}, nil
	}
	return s, nil
}

// orderedUserAgg feeds a user aggregate its rows in the order of its
// ORDER BY: it collects (inputs, keys...) and sorts them at the end.
type orderedUserAgg struct {
	inner *userAggState
	keys  sortKeys
	rows  [][]types.Datum
}

func (s *orderedUserAgg) add(args []types.Datum) (int64, error) {
	row := copyRow(args)
	s.rows = append(s.rows, row)
	return rowSize(row), nil
}

func (s *orderedUserAgg) result() (types.Datum, error) {
	slices.SortStableFunc(s.rows, s.keys.compare)
	for _, row := range s.rows {
		if _, err := s.inner.add(row[:s.keys.width]); err != nil {
			return types.Null, err
		}
	}
	return s.inner.result()
}

func (s *userAggState) add(args []types.Datum) (int64, error) {
	if s.agg.TransStrict {
		for _, a := range args {
			if a.IsNull() {
				return 0, nil
			}
		}
		if s.noValue && len(args) > 0 { // the binder refuses a strict one without inputs or INITCOND
			// The first input is the state (PostgreSQL requires the
			// input and state types to match here).
			st, err := eval.Cast(args[0], s.agg.SType)
			s.state, s.noValue = st, false
			return 0, err
		}
		if s.state.IsNull() {
			return 0, nil // a strict function is not called with a NULL state
		}
	}
	s.row[0] = s.state
	copy(s.row[1:], args)
	st, err := eval.Eval(s.env, s.agg.Trans, s.row)
	if err != nil {
		return 0, err
	}
	s.state = st
	return 0, nil
}

func (s *userAggState) result() (types.Datum, error) {
	if s.agg.Final == nil {
		return s.state, nil
	}
	if s.agg.FinalStrict && s.state.IsNull() {
		return types.Null, nil
	}
	s.row[0] = s.state
	return eval.Eval(s.env, s.agg.Final, s.row)
}
