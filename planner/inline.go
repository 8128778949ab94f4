package planner

import (
	"github.com/kvsql/kvsql/catalog"
	"github.com/kvsql/kvsql/planner/parse"
	"github.com/kvsql/kvsql/types"
	"vitess.io/vitess/go/vt/sqlparser"
)

// inlineRoutine replaces a call of a simple SQL function by its body's
// expression with the arguments in place of the parameters, as
// PostgreSQL's inline_function does, so the plan (and EXPLAIN) shows the
// expression and no body runs per call. A function is simple when its
// body is one SELECT of one expression with no FROM or other clause,
// and the expression has no subquery or aggregate. ok is false for any
// other function, and where inlining could change what the call means:
// a STRICT function (its NULL short cut), SECURITY DEFINER, a function
// being inlined already (recursion), or an argument that is not a
// constant, column or parameter but appears twice in the body (it would
// be computed twice).
func (b *binder) inlineRoutine(fn *catalog.Function, args []Expr, ret types.T) (Expr, bool) {
	if fn.Kind != "f" || fn.RetSet || fn.Strict || fn.Definer || len(fn.Config) > 0 || len(fn.OutputArgs()) > 0 || fn.Returns == "record" {
		return nil, false
	}
	if _, _, err := RoutineType(fn.Returns); err != nil {
		return nil, false // a table's row type
	}
	for _, id := range b.inlining {
		if id == fn.ID {
			return nil, false
		}
	}
	body, ok := simpleBody(fn)
	if !ok {
		return nil, false
	}
	argTypes := make([]types.T, len(args))
	names := make([]string, len(args))
	for i, a := range args {
		argTypes[i] = a.Type()
	}
	for i, a := range fn.InputArgs() {
		if i < len(names) {
			names[i] = a.Name
		}
	}
	sub := &binder{p: &Planner{Catalog: b.p.Catalog, DB: b.p.DB, ArgNames: names, RoutineName: fn.Name},
		params: argTypes, inlining: append(b.inlining[:len(b.inlining):len(b.inlining)], fn.ID)}
	x, err := sub.expr(body, &scope{})
	if err != nil || hasSubqueryOrAggregate(x) {
		return nil, false
	}
	uses := make([]int, len(args))
	walkExpr(x, func(e Expr) bool {
		if p, ok := e.(*Param); ok && p.N <= len(uses) {
			uses[p.N-1]++
		}
		return true
	})
	for i, n := range uses {
		if n > 1 && !cheapArg(args[i]) {
			return nil, false
		}
	}
	x, err = mapExpr(x, func(e Expr) (Expr, error) {
		if p, ok := e.(*Param); ok && p.N <= len(args) {
			return args[p.N-1], nil
		}
		return e, nil
	})
	if err != nil {
		return nil, false
	}
	if x.Type() != ret {
		if !Assignable(x.Type(), ret) {
			return nil, false
		}
		x = &Cast{X: x, T: ret}
	}
	return x, true
}

// simpleBody returns the one expression of a body that is SELECT expr
// (or RETURN expr) and nothing else.
func simpleBody(fn *catalog.Function) (sqlparser.Expr, bool) {
	text := fn.Body
	if fn.Form == "return" {
		text = "SELECT " + text
	}
	stmts, err := parse.Parse(text)
	if err != nil || len(stmts) != 1 {
		return nil, false
	}
	sel, ok := stmts[0].AST.(*sqlparser.Select)
	if !ok || len(sel.From) > 0 && !isDualFrom(sel.From) || sel.Where != nil || sel.GroupBy != nil || sel.Having != nil ||
		len(sel.OrderBy) > 0 || sel.Limit != nil || sel.Distinct || sel.With != nil || sel.Lock != sqlparser.NoLock ||
		sel.SelectExprs == nil || len(sel.SelectExprs.Exprs) != 1 || stmts[0].Compound != nil {
		return nil, false
	}
	ae, ok := sel.SelectExprs.Exprs[0].(*sqlparser.AliasedExpr)
	if !ok {
		return nil, false
	}
	return ae.Expr, true
}

func isDualFrom(from []sqlparser.TableExpr) bool {
	if len(from) != 1 {
		return false
	}
	a, ok := from[0].(*sqlparser.AliasedTableExpr)
	if !ok {
		return false
	}
	tn, ok := a.Expr.(sqlparser.TableName)
	return ok && tn.Name.String() == "dual"
}

// hasSubqueryOrAggregate reports whether a bound expression holds a
// subquery, or reads a column (an aggregate's result is one).
func hasSubqueryOrAggregate(x Expr) bool {
	found := false
	walkExpr(x, func(e Expr) bool {
		switch e.(type) {
		case *Subquery, *ColRef:
			found = true
		}
		return !found
	})
	return found
}

// cheapArg reports whether an argument may be computed more than once
// at no cost: a constant, a column or a parameter.
func cheapArg(x Expr) bool {
	switch x.(type) {
	case *Const, *ColRef, *Param:
		return true
	}
	return false
}
