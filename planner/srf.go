package planner

// Set-returning functions in the select list: each becomes a LATERAL
// function in FROM that the select items read (srfSelect), several
// unnest calls one unnest of several arrays (zipUnnests).

import (
	"strconv"
	"strings"

	"vitess.io/vitess/go/vt/sqlparser"

	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/planner/parse"
)

// withLateralSRF returns a copy of sel whose FROM clause (without dual)
// ends with the derived table (SELECT exprs) AS srfAlias, LATERAL when
// other items precede it: how a set-returning function in the select
// list becomes a FROM item.
func withLateralSRF(sel *sqlparser.Select, exprs []sqlparser.SelectExpr) sqlparser.Select {
	inner := &sqlparser.Select{
		SelectExprs: &sqlparser.SelectExprs{Exprs: exprs},
		From:        []sqlparser.TableExpr{&sqlparser.AliasedTableExpr{Expr: sqlparser.NewTableName("dual")}},
	}
	srf := &sqlparser.AliasedTableExpr{Expr: &sqlparser.DerivedTable{Select: inner}, As: sqlparser.NewIdentifierCS(srfAlias)}
	cp := *sel
	cp.From = nil
	for _, f := range sel.From {
		if a, isAliased := f.(*sqlparser.AliasedTableExpr); isAliased {
			if tn, isName := a.Expr.(sqlparser.TableName); isName && tn.Name.String() == "dual" && tn.Qualifier.IsEmpty() {
				continue
			}
		}
		cp.From = append(cp.From, f)
	}
	if len(cp.From) > 0 {
		srf.Expr.(*sqlparser.DerivedTable).Lateral = true
	}
	cp.From = append(cp.From, srf)
	return cp
}

// srfAlias names the lateral unnest srfSelect adds; user text cannot
// spell it (kvsql_ names are the dialect layer's), and * skips it.
const srfAlias = "kvsql_srf"

// srfColumn names the column of srfSelect's lateral function.
const srfColumn = "kvsql_v"

// srfSelect rewrites a query with unnest(...) as a whole select item
// (PostgreSQL's set-returning function in the select list: one output
// row per element of each input row) into the same query over
// FROM ..., LATERAL unnest(...) AS kvsql_srf(kvsql_v), the item reading
// kvsql_v. generate_subscripts(a, 1), alone or beside unnest(a), reads
// the lateral unnest's ordinality. ok is false when the select
// list has no such item. The query's
// tree is not modified: a copy is returned.
func srfSelect(sel *sqlparser.Select) (out *sqlparser.Select, ok bool, err error) {
	if sel.SelectExprs == nil {
		return nil, false, nil
	}
	at, subs := -1, -1
	plainOrd := false
	var arg string
	nested := map[int]*sqlparser.FuncExpr{} // items holding the call inside an expression
	for i, se := range sel.SelectExprs.Exprs {
		ae, isAliased := se.(*sqlparser.AliasedExpr)
		if !isAliased {
			continue
		}
		f, isFunc := ae.Expr.(*sqlparser.FuncExpr)
		if !isFunc || !selectListSRF(f.Name.Lowered()) {
			// unnest(a) + 1: the call inside an expression.
			if f = nestedSRF(ae.Expr); f == nil {
				continue
			}
			nested[i] = f
		}
		if !f.Qualifier.IsEmpty() {
			continue
		}
		switch name := f.Name.Lowered(); {
		case tableFuncs[name] == -2 && !strings.HasSuffix(name, "set"):
			continue // jsonb_populate_record: a scalar function there
		case tableFuncs[name] != 0:
			if n := tableFuncs[name]; n > 1 || n == -1 {
				return nil, true, pgerror.Newf(pgerror.FeatureNotSupported, "%s in a select list is not supported (it returns records): call it in FROM", name)
			}
			if at >= 0 {
				prev := sel.SelectExprs.Exprs[at].(*sqlparser.AliasedExpr).Expr
				if g := nested[at]; g != nil {
					prev = g
				}
				if sqlparser.String(prev) != sqlparser.String(f) {
					return nil, true, pgerror.New(pgerror.FeatureNotSupported, "more than one set-returning function in a select list is not supported")
				}
				continue // the same call again reads the same column
			}
			at = i
		case name == "generate_subscripts", name == parse.MarkerExpandN:
			// generate_subscripts(a, 1) beside unnest(a) (SQLAlchemy's
			// reflection queries): the subscripts of the elements,
			// unnest's ordinality shifted to the array's lower bound;
			// pgjdbc's _pg_expandarray(a).n is the ordinality itself.
			if name == parse.MarkerExpandN {
				plainOrd = true
			} else if len(f.Exprs) != 2 || sqlparser.String(f.Exprs[1]) != "1" {
				return nil, true, pgerror.New(pgerror.FeatureNotSupported, "generate_subscripts is supported only as generate_subscripts(array, 1)")
			}
			if subs >= 0 {
				return nil, true, pgerror.New(pgerror.FeatureNotSupported, "more than one set-returning function in a select list is not supported")
			}
			subs = i
		default:
			continue
		}
		if len(f.Exprs) == 0 {
			return nil, true, pgerror.Newf(pgerror.UndefinedFunction, "function %s() does not exist", f.Name.Lowered())
		}
		if a := sqlparser.String(f.Exprs[0]); arg == "" {
			arg = a
		} else if a != arg {
			return nil, true, pgerror.New(pgerror.FeatureNotSupported, "set-returning functions over different arrays in a select list are not supported")
		}
	}
	if at < 0 && subs < 0 {
		return nil, false, nil
	}
	callAt := func(i int) *sqlparser.FuncExpr {
		if f := nested[i]; f != nil {
			return f
		}
		return sel.SelectExprs.Exprs[i].(*sqlparser.AliasedExpr).Expr.(*sqlparser.FuncExpr)
	}
	if subs >= 0 && at >= 0 && callAt(at).Name.Lowered() != "unnest" {
		return nil, true, pgerror.New(pgerror.FeatureNotSupported, "generate_subscripts goes only with unnest in a select list")
	}
	if sel.GroupBy != nil || sel.Having != nil {
		return nil, true, pgerror.New(pgerror.FeatureNotSupported, "set-returning functions in a grouped query are not supported")
	}
	var call sqlparser.FuncExpr
	if at >= 0 {
		call = *callAt(at)
	} else {
		call = *callAt(subs)
		call.Name = sqlparser.NewIdentifierCI("unnest")
		call.Exprs = call.Exprs[:1]
	}
	fname := call.Name.Lowered()
	call.Name = sqlparser.NewIdentifierCI(parse.MarkerPrefix + fname)
	innerExprs := []sqlparser.SelectExpr{&sqlparser.AliasedExpr{Expr: &call, As: sqlparser.NewIdentifierCI(srfColumn)}}
	if subs >= 0 {
		innerExprs = append(innerExprs, &sqlparser.AliasedExpr{Expr: sqlparser.NewColName(parse.MarkerOrdinality), As: sqlparser.NewIdentifierCI("ordinality")})
	}
	cp := withLateralSRF(sel, innerExprs)
	exprs := append([]sqlparser.SelectExpr(nil), sel.SelectExprs.Exprs...)
	item := func(i int, x sqlparser.Expr, deflt string) {
		ae := sel.SelectExprs.Exprs[i].(*sqlparser.AliasedExpr)
		name := ae.As
		if name.IsEmpty() {
			name = sqlparser.NewIdentifierCI(deflt)
		}
		exprs[i] = &sqlparser.AliasedExpr{Expr: x, As: name}
	}
	if at >= 0 {
		col := sqlparser.NewColNameWithQualifier(srfColumn, sqlparser.NewTableName(srfAlias))
		text := sqlparser.String(callAt(at))
		for i, se := range sel.SelectExprs.Exprs {
			ae, isAliased := se.(*sqlparser.AliasedExpr)
			if !isAliased {
				continue
			}
			f := nested[i]
			if f == nil {
				if g, ok := ae.Expr.(*sqlparser.FuncExpr); ok && i != at && sqlparser.String(g) == text {
					item(i, col, fname) // the same call again
				}
				continue
			}
			if sqlparser.String(f) != text {
				continue
			}
			x := sqlparser.Rewrite(sqlparser.Clone(ae.Expr), func(c *sqlparser.Cursor) bool {
				if g, ok := c.Node().(*sqlparser.FuncExpr); ok && sqlparser.String(g) == text {
					c.Replace(col)
					return false
				}
				_, sub := c.Node().(*sqlparser.Subquery)
				return !sub
			}, nil)
			item(i, x.(sqlparser.Expr), columnName(ae.Expr))
		}
		if nested[at] == nil {
			item(at, col, fname)
		}
	}
	if subs >= 0 {
		// The subscripts start at the array's lower bound: ordinality -
		// 1 + kvsql_lower_bound(a), 0 for a catalog vector (int2vector).
		ord := sqlparser.NewColNameWithQualifier("ordinality", sqlparser.NewTableName(srfAlias))
		if plainOrd {
			item(subs, ord, "n")
		} else {
			arg := sel.SelectExprs.Exprs[subs].(*sqlparser.AliasedExpr).Expr.(*sqlparser.FuncExpr).Exprs[0]
			lower := &sqlparser.FuncExpr{Name: sqlparser.NewIdentifierCI(lowerBoundFunc), Exprs: []sqlparser.Expr{arg}}
			x := &sqlparser.BinaryExpr{Operator: sqlparser.PlusOp,
				Left:  &sqlparser.BinaryExpr{Operator: sqlparser.MinusOp, Left: ord, Right: sqlparser.NewIntLiteral("1")},
				Right: lower}
			item(subs, x, "generate_subscripts")
		}
	}
	cp.SelectExprs = &sqlparser.SelectExprs{Exprs: exprs}
	return &cp, true, nil
}

// zipUnnests rewrites a select list with two or more different
// unnest(array) calls (SELECT unnest($1::int[]), unnest($2::text[]), a
// common way to insert many rows) into the query over FROM ..., LATERAL
// unnest(a1, a2, ...) AS kvsql_srf(kvsql_v0, kvsql_v1, ...), each call
// reading its column: the arrays side by side, the shorter ones padded
// with NULLs, as PostgreSQL runs set-returning functions of one select
// list in step. ok is false when the list has fewer than two such calls
// or other set-returning functions (srfSelect's cases).
func zipUnnests(sel *sqlparser.Select) (out *sqlparser.Select, ok bool, err error) {
	if sel.SelectExprs == nil {
		return nil, false, nil
	}
	var calls []*sqlparser.FuncExpr
	index := map[string]int{}
	for _, se := range sel.SelectExprs.Exprs {
		ae, isAliased := se.(*sqlparser.AliasedExpr)
		if !isAliased {
			continue
		}
		for _, f := range srfCalls(ae.Expr) {
			if f.Name.Lowered() != "unnest" || len(f.Exprs) != 1 {
				return nil, false, nil
			}
			if _, seen := index[sqlparser.String(f)]; !seen {
				index[sqlparser.String(f)] = len(calls)
				calls = append(calls, f)
			}
		}
	}
	if len(calls) < 2 {
		return nil, false, nil
	}
	if sel.GroupBy != nil || sel.Having != nil {
		return nil, true, pgerror.New(pgerror.FeatureNotSupported, "set-returning functions in a grouped query are not supported")
	}
	zip := &sqlparser.FuncExpr{Name: sqlparser.NewIdentifierCI(unnestFunc)}
	var names sqlparser.Columns
	for i, f := range calls {
		zip.Exprs = append(zip.Exprs, f.Exprs[0])
		names = append(names, sqlparser.NewIdentifierCI(srfColumn+strconv.Itoa(i)))
	}
	cp := withLateralSRF(sel, []sqlparser.SelectExpr{&sqlparser.AliasedExpr{Expr: zip, As: sqlparser.NewIdentifierCI(srfColumn)}})
	cp.From[len(cp.From)-1].(*sqlparser.AliasedTableExpr).Columns = names
	exprs := append([]sqlparser.SelectExpr(nil), sel.SelectExprs.Exprs...)
	for i, se := range exprs {
		ae, isAliased := se.(*sqlparser.AliasedExpr)
		if !isAliased {
			continue
		}
		x := sqlparser.Rewrite(sqlparser.Clone(ae.Expr), func(c *sqlparser.Cursor) bool {
			if f, isFunc := c.Node().(*sqlparser.FuncExpr); isFunc {
				if k, found := index[sqlparser.String(f)]; found {
					c.Replace(sqlparser.NewColNameWithQualifier(srfColumn+strconv.Itoa(k), sqlparser.NewTableName(srfAlias)))
					return false
				}
			}
			_, sub := c.Node().(*sqlparser.Subquery)
			return !sub
		}, nil)
		name := ae.As
		if name.IsEmpty() {
			name = sqlparser.NewIdentifierCI(columnName(ae.Expr))
		}
		exprs[i] = &sqlparser.AliasedExpr{Expr: x.(sqlparser.Expr), As: name}
	}
	cp.SelectExprs = &sqlparser.SelectExprs{Exprs: exprs}
	return &cp, true, nil
}

// srfCalls are the set-returning calls in the select item e, whole or
// inside its expression (not in a subquery, CASE or COALESCE).
func srfCalls(e sqlparser.Expr) []*sqlparser.FuncExpr {
	var out []*sqlparser.FuncExpr
	_ = sqlparser.Walk(func(n sqlparser.SQLNode) (bool, error) {
		switch n := n.(type) {
		case *sqlparser.Subquery, *sqlparser.CaseExpr:
			return false, nil
		case *sqlparser.FuncExpr:
			name := n.Name.Lowered()
			if name == "coalesce" || name == "nullif" {
				return false, nil
			}
			if n.Qualifier.IsEmpty() && selectListSRF(name) && !(tableFuncs[name] == -2 && !strings.HasSuffix(name, "set")) {
				out = append(out, n)
				return false, nil
			}
		}
		return true, nil
	}, e)
	return out
}

// selectListSRF reports whether name is a call srfSelect plans as a
// select item of its own: a set-returning function, or
// generate_subscripts beside unnest.
func selectListSRF(name string) bool {
	return tableFuncs[name] != 0 || name == "generate_subscripts" || name == parse.MarkerExpandN
}

// nestedSRF finds a one-column set-returning call inside the select item
// e (unnest(a) + 1, 'x' || generate_series(1, 3)): not in a subquery, and
// not under CASE or COALESCE, where PostgreSQL refuses it.
func nestedSRF(e sqlparser.Expr) *sqlparser.FuncExpr {
	for _, f := range srfCalls(e) {
		if tableFuncs[f.Name.Lowered()] == 1 {
			return f
		}
	}
	return nil
}
