package parse

import (
	"strconv"
	"strings"

	"vitess.io/vitess/go/vt/sqlparser"
)

// FullJoin is the JoinTableExpr.Join of a FULL [OUTER] JOIN, which vitess
// has no grammar for: the rewrite spells it LEFT JOIN with a marker in its
// condition, and the fix-up removes the marker and sets this join type.
const FullJoin sqlparser.JoinType = 100

// fixup undoes the markers the rewriter wrote, turning the vitess tree
// into the contract documented in doc.go.
func (r *rewriter) fixup(node sqlparser.SQLNode) sqlparser.SQLNode {
	post := func(c *sqlparser.Cursor) bool {
		switch n := c.Node().(type) {
		case *sqlparser.CastExpr:
			if n.Type == nil {
				break
			}
			if tn, ok := r.markedType(n.Type.Type, n.Type.Length); ok {
				n.Type.Type, n.Type.Length, n.Type.Scale = tn.spelled(), tn.Length, tn.Scale
			}
		case *sqlparser.ColumnType:
			if tn, ok := r.markedType(n.Type, n.Length); ok {
				n.Type, n.Length, n.Scale = tn.spelled(), tn.Length, tn.Scale
			}
		case *sqlparser.BinaryExpr:
			if n.Operator == sqlparser.BitOrOp {
				c.Replace(concatOrRegex(n))
			}
		case *sqlparser.ComparisonExpr:
			switch n.Operator {
			case sqlparser.RegexpOp, sqlparser.NotRegexpOp:
				if f, ok := n.Right.(*sqlparser.FuncExpr); ok && (f.Name.Lowered() == MarkerAny || f.Name.Lowered() == MarkerAll) {
					break // ILIKE ANY|ALL (array): the planner matches each pattern
				}
				op := sqlparser.LikeOp
				if n.Operator == sqlparser.NotRegexpOp {
					op = sqlparser.NotLikeOp
				}
				c.Replace(&sqlparser.ComparisonExpr{Operator: op, Left: lower(n.Left), Right: lower(n.Right), Escape: n.Escape})
			case sqlparser.InOp, sqlparser.NotInOp:
				if tup, ok := n.Right.(sqlparser.ValTuple); ok && len(tup) == 1 && isMarkerCol(tup[0], markerEmptyList) {
					n.Right = sqlparser.ValTuple{}
				}
			case sqlparser.NullSafeEqualOp:
				if stripped, ok := stripBinaryMarker(n.Right); ok {
					n.Right = stripped
					c.Replace(&sqlparser.NotExpr{Expr: n})
				}
			}
		case *sqlparser.FuncExpr:
			if name := n.Name.String(); strings.HasPrefix(name, markerFunc) {
				n.Name = sqlparser.NewIdentifierCI(strings.TrimPrefix(name, markerFunc))
			}
		case *sqlparser.JoinTableExpr:
			if n.Join == sqlparser.LeftJoinType && n.Condition != nil && stripFullJoinMarker(n.Condition) {
				n.Join = FullJoin
			}
		case *sqlparser.Limit:
			if isMarkerCol(n.Rowcount, markerNoLimit) {
				n.Rowcount = nil
			}
		case *sqlparser.Argument:
			// $n was written as :pn; ? arrives as :vn from vitess.
		}
		return true
	}
	return sqlparser.Rewrite(node, nil, post)
}

// markedType returns the recorded type a char(markerBase+i) stands for.
func (r *rewriter) markedType(name string, length *int) (typeName, bool) {
	if name != "char" || length == nil || *length < markerBase {
		return typeName{}, false
	}
	k := *length - markerBase
	if k >= len(r.types) {
		return typeName{}, false
	}
	return r.types[k], true
}

// concatOrRegex turns a `|` written for `||` into the concat function, or,
// when its left side is `x | marker`, into the regular-expression operator
// the marker names.
func concatOrRegex(n *sqlparser.BinaryExpr) sqlparser.Expr {
	if f, ok := n.Left.(*sqlparser.FuncExpr); ok && f.Name.String() == "||" && len(f.Exprs) == 2 {
		if col, ok := f.Exprs[1].(*sqlparser.ColName); ok && col.Qualifier.IsEmpty() {
			if op, ok := regexMarkers[col.Name.String()]; ok {
				return funcExpr(op, f.Exprs[0], n.Right)
			}
		}
	}
	return funcExpr("||", n.Left, n.Right)
}

func funcExpr(name string, args ...sqlparser.Expr) *sqlparser.FuncExpr {
	return &sqlparser.FuncExpr{Name: sqlparser.NewIdentifierCI(name), Exprs: args}
}

func lower(e sqlparser.Expr) sqlparser.Expr { return funcExpr("lower", e) }

func isMarkerCol(e sqlparser.Expr, name string) bool {
	col, ok := e.(*sqlparser.ColName)
	return ok && col.Qualifier.IsEmpty() && col.Name.String() == name
}

// stripBinaryMarker removes the BINARY written before the right operand
// of IS DISTINCT FROM. BINARY binds tighter than any binary operator, so
// it sits on the leftmost leaf of the operand.
func stripBinaryMarker(e sqlparser.Expr) (sqlparser.Expr, bool) {
	switch n := e.(type) {
	case *sqlparser.ConvertExpr:
		if n.Type != nil && strings.EqualFold(n.Type.Type, "binary") && n.Type.Length == nil {
			return n.Expr, true
		}
	case *sqlparser.BinaryExpr:
		if l, ok := stripBinaryMarker(n.Left); ok {
			n.Left = l
			return n, true
		}
	case *sqlparser.FuncExpr:
		if len(n.Exprs) > 0 && isOperatorName(n.Name.String()) {
			if l, ok := stripBinaryMarker(n.Exprs[0]); ok {
				n.Exprs[0] = l
				return n, true
			}
		}
	}
	return e, false
}

func isOperatorName(s string) bool {
	switch s {
	case "||", "~", "~*", "!~", "!~*", "->", "->>", "#>", "#>>", "@>", "<@", "?", "?|", "?&", "#-", "@?", "@@":
		return true
	}
	return false
}

// paramIndex returns the 1-based parameter number of a vitess argument
// produced by this package, or 0.
func paramIndex(a *sqlparser.Argument) int {
	if len(a.Name) < 2 || (a.Name[0] != 'p' && a.Name[0] != 'v') {
		return 0
	}
	n, err := strconv.Atoi(a.Name[1:])
	if err != nil {
		return 0
	}
	return n
}

// stripFullJoinMarker removes the marker fullJoins put first in a join
// condition and reports whether it was there. In ON, `kvsql_full_join AND
// cond` binds the marker to the leftmost AND of the condition (every
// operator but OR binds tighter), and AND with TRUE is the identity, so
// dropping that AND's left operand leaves the written condition.
func stripFullJoinMarker(c *sqlparser.JoinCondition) bool {
	if len(c.Using) > 0 && c.Using[0].String() == markerFullJoin {
		c.Using = c.Using[1:]
		return true
	}
	var strip func(e sqlparser.Expr) (sqlparser.Expr, bool)
	strip = func(e sqlparser.Expr) (sqlparser.Expr, bool) {
		switch n := e.(type) {
		case *sqlparser.AndExpr:
			if isMarkerCol(n.Left, markerFullJoin) {
				return n.Right, true
			}
			if l, ok := strip(n.Left); ok {
				n.Left = l
				return n, true
			}
		case *sqlparser.OrExpr:
			if l, ok := strip(n.Left); ok {
				n.Left = l
				return n, true
			}
		}
		return e, false
	}
	on, ok := strip(c.On)
	c.On = on
	return ok
}
