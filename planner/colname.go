package planner

import (
	"strings"

	"github.com/kvsql/kvsql/planner/parse"
	"vitess.io/vitess/go/vt/sqlparser"
)

// Output column names, as PostgreSQL derives them from expressions.

// castColumnName is PostgreSQL's name for a cast column: the type's
// typname ('1.5'::numeric is "numeric", 1::integer "int4").
func castColumnName(name string) string {
	lower := strings.ToLower(name)
	t, err := typeFromName(name, nil, nil)
	if err != nil || strings.HasPrefix(lower, "reg") || lower == "oid" {
		return lower
	}
	if t.IsArray() {
		t = t.ElemType() // '{1}'::int[] is named int4
	}
	if pt, ok := pgTypeByOID(columnTypeOID(t)); ok {
		return pt.name
	}
	return lower
}

// columnName is the output name PostgreSQL gives an unaliased expression.
func columnName(e sqlparser.Expr) string {
	switch e := e.(type) {
	case *sqlparser.ColName:
		return e.Name.String()
	case *sqlparser.FuncExpr:
		switch name := e.Name.Lowered(); name {
		case "||", "~", "~*", "!~", "!~*", "->", "->>", "#>", "#>>", "@>", "<@", "&&", "?", "?|", "?&", "#-", "@?", "@@", "<<=", ">>=":
			return "?column?" // an operator the dialect layer spells as a call
		case parse.MarkerArray, parse.MarkerArraySub:
			return "array"
		case parse.MarkerRow:
			return "row"
		case parse.MarkerJSONObject:
			return "json_object"
		case parse.MarkerSubscript, parse.MarkerSlice, parse.MarkerAggFilter, parse.MarkerWholeRow:
			if len(e.Exprs) > 0 {
				return columnName(e.Exprs[0]) // tags[1] is named tags
			}
		case parse.MarkerExtract:
			return "extract"
		case parse.MarkerField:
			if len(e.Exprs) == 2 {
				if lit, ok := e.Exprs[1].(*sqlparser.Literal); ok {
					return lit.Val // (x).name is named name
				}
			}
		default:
			return name
		}
	case sqlparser.ValTuple:
		if len(e) > 1 {
			return "row"
		}
	case *sqlparser.CountStar, *sqlparser.Count:
		return "count"
	case *sqlparser.Sum:
		return "sum"
	case *sqlparser.Avg:
		return "avg"
	case *sqlparser.Min:
		return "min"
	case *sqlparser.StdDev:
		return "stddev"
	case *sqlparser.Variance:
		return "variance"
	case *sqlparser.Std, *sqlparser.StdSamp, *sqlparser.StdPop, *sqlparser.VarSamp, *sqlparser.VarPop:
		name, _, _ := statAggregate(e)
		return name
	case *sqlparser.Max:
		return "max"
	case *sqlparser.CastExpr:
		// A cast keeps its operand's name; a constant's takes the type's.
		if _, inner := e.Expr.(*sqlparser.CastExpr); !inner {
			if n := columnName(e.Expr); n != "?column?" {
				return n
			}
		} else if n := columnName(e.Expr.(*sqlparser.CastExpr).Expr); n != "?column?" {
			return n
		}
		return castColumnName(e.Type.Type)
	case *sqlparser.CaseExpr:
		// PostgreSQL names a CASE after its ELSE result when that has a
		// name of its own (a column, a function), else "case".
		if n := strongColumnName(e.Else); n != "" {
			return n
		}
		return "case"
	case *sqlparser.GroupConcatExpr:
		// MarkerOrderedAgg is a prefix of MarkerOrderedSet: that first.
		if name, ok := strings.CutPrefix(strings.Trim(e.Separator, "'"), parse.MarkerOrderedSet); ok {
			return name
		}
		if name, ok := strings.CutPrefix(strings.Trim(e.Separator, "'"), parse.MarkerOrderedAgg); ok {
			return name
		}
		return "string_agg"
	case *sqlparser.LocateExpr:
		return "position"
	case *sqlparser.ExistsExpr:
		return "exists"
	case *sqlparser.FirstOrLastValueExpr:
		if name, _, _, ok := windowMarker(e); ok {
			if name == "count(*)" {
				return "count"
			}
			return name
		}
	case *sqlparser.Subquery:
		// A scalar subquery is named after its (first) query's column.
		sel := e.Select
		for {
			u, ok := sel.(*sqlparser.Union)
			if !ok {
				break
			}
			sel = u.Left
		}
		if s, ok := sel.(*sqlparser.Select); ok && len(s.SelectExprs.Exprs) == 1 {
			if ae, ok := s.SelectExprs.Exprs[0].(*sqlparser.AliasedExpr); ok {
				if !ae.As.IsEmpty() {
					return ae.As.String()
				}
				return columnName(ae.Expr)
			}
		}
	}
	return "?column?"
}

// strongColumnName is the name an expression gives a CASE whose ELSE it
// is (PostgreSQL's FigureColname strength 2): a column's, a function's
// (through casts and nested CASEs), or "" for none.
func strongColumnName(e sqlparser.Expr) string {
	switch e := e.(type) {
	case *sqlparser.ColName:
		return e.Name.String()
	case *sqlparser.FuncExpr, *sqlparser.CaseExpr:
		if n := columnName(e); n != "?column?" && n != "case" && n != "array" {
			return n
		}
	case *sqlparser.CastExpr:
		return strongColumnName(e.Expr)
	}
	return ""
}
