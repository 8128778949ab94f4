package eval

import (
	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/planner"
	"github.com/kvsql/kvsql/types"
)

// evalRoutine calls a user-defined SQL function (planner.RoutinePrefix):
// its arguments are evaluated here, its body runs in the session.
func evalRoutine(env *Env, e *planner.Func, row []types.Datum) (types.Datum, error) {
	if env.Routines == nil {
		name, _ := planner.RoutineName(e.Name)
		return types.Null, pgerror.Newf(pgerror.FeatureNotSupported, "function %s cannot be called here", name)
	}
	argTypes, args, err := RoutineArgs(env, e.Args, row)
	if err != nil {
		return types.Null, err
	}
	return env.Routines.Call(planner.RoutineID(e.Args), argTypes, args, e.T)
}

// RoutineArgs evaluates a routine call's arguments (args[0] is the
// function's OID) and returns them with their types.
func RoutineArgs(env *Env, args []planner.Expr, row []types.Datum) ([]types.T, []types.Datum, error) {
	ts := make([]types.T, len(args)-1)
	ds := make([]types.Datum, len(args)-1)
	for i, a := range args[1:] {
		d, err := Eval(env, a, row)
		if err != nil {
			return nil, nil, err
		}
		ts[i], ds[i] = a.Type(), d
	}
	return ts, ds, nil
}
