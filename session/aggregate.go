package session

import (
	"fmt"

	"github.com/kvsql/kvsql/catalog"
	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/planner/parse"
)

// aggregateStmt runs CREATE [OR REPLACE] AGGREGATE and DROP AGGREGATE.
// An aggregate is a catalog.Function of kind "a" (pg_proc's prokind)
// whose Agg names its state type and functions; the planner binds those
// where the aggregate is called (planner/useragg.go).
func (s *Session) aggregateStmt(t *txn, as *parse.AggregateStmt) (string, error) {
	if as.Drop {
		return "DROP AGGREGATE", s.dropAggregates(t, as)
	}
	fn := &catalog.Function{Name: as.Name, Kind: "a", Language: "internal", Volatility: "i", Parallel: "u", Cost: 1, Owner: s.userName(),
		Agg: &catalog.Aggregate{SFunc: as.SFunc, SType: as.SType, FinalFunc: as.FinalFunc, InitCond: as.InitCond}}
	for _, a := range as.Args {
		fn.Args = append(fn.Args, catalog.FunctionArg{Name: a.Name, Mode: "i", Type: a.Type})
	}
	ret, err := s.planner(t.cat).CheckAggregate(fn)
	if err != nil {
		return "", err
	}
	fn.Returns = ret
	old := s.findRoutine(t.cat, fn.Name, routineSig(fn.Args))
	var next *catalog.Catalog
	switch {
	case old == nil:
		next, _, err = t.cat.CreateFunction(t.kv, s.database, *fn)
	case !as.OrReplace:
		return "", pgerror.Newf(pgerror.DuplicateFunction, "function %q already exists with same argument types", fn.Name)
	case old.Kind != "a":
		e := pgerror.New(pgerror.WrongObjectType, "cannot change routine kind")
		e.Detail = fmt.Sprintf("%q is a function.", fn.Name)
		return "", e
	default:
		fn.ID, fn.Comment = old.ID, old.Comment
		next, err = t.cat.ReplaceFunction(t.kv, s.database, *fn)
	}
	if err != nil {
		return "", err
	}
	t.setCatalog(next)
	return "CREATE AGGREGATE", nil
}

// dropAggregates runs DROP AGGREGATE.
func (s *Session) dropAggregates(t *txn, as *parse.AggregateStmt) error {
	for _, ref := range as.Targets {
		var sig []catalog.FunctionArg
		for _, a := range ref.Args {
			sig = append(sig, catalog.FunctionArg{Mode: "i", Type: a.Type})
		}
		fn := s.findRoutine(t.cat, ref.Name, routineSig(sig))
		if fn == nil {
			if as.IfExists {
				s.notice(pgerror.Newf(pgerror.SuccessfulCompletion, "aggregate %s(%s) does not exist, skipping", ref.Name, refSig(ref)))
				continue
			}
			return pgerror.Newf(pgerror.UndefinedFunction, "aggregate %s(%s) does not exist", ref.Name, refSig(ref))
		}
		if fn.Kind != "a" {
			return pgerror.Newf(pgerror.WrongObjectType, "function %s is not an aggregate", ref.Name)
		}
		next, err := t.cat.DropFunction(t.kv, s.database, fn.ID)
		if err != nil {
			return err
		}
		t.setCatalog(next)
	}
	return nil
}
