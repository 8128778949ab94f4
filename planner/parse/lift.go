package parse

import (
	"math"
	"strconv"
	"strings"
)

// LiftLiterals finds the integer constants of a simple query that can be
// parameters without changing what the query means, for the session's
// cache of simple-protocol plans: pgbench -M simple sends
//
//	SELECT abalance FROM pgbench_accounts WHERE aid = 12345;
//
// with a new number each time, and with the numbers lifted out every such
// text shares one parse and one plan,
//
//	SELECT abalance FROM pgbench_accounts WHERE aid = $1;
//
// It returns that template and the lifted values, in parameter order; ok
// is false when the text is not of the one shape it handles:
//
//   - a single SELECT (a trailing semicolon allowed) with no parameters of
//     its own, no second SELECT (no subquery), no set operation, no INTO
//     and no FOR (row locks);
//   - a lifted constant is a decimal integer in int4's range (so its type,
//     int4, is the parameter's: 1, '1' and 1.0 are three types, and only
//     the first is lifted), written as the right operand of a comparison
//     (=, <>, !=, <, <=, >, >=) whose left operand ends in a name, and
//     followed by the end, ;, ), AND or OR. So ORDER BY 1, LIMIT 10, -5,
//     1 + x and x = 1 / 0 keep their constants.
//
// The caller must still check that the template parses to the same kind of
// statement and plan it with every parameter declared int4; a template
// that fails to parse or plan is no reason to report an error (the text
// itself decides that).
func LiftLiterals(sql string) (template string, args []int64, ok bool) {
	toks, err := lex(sql)
	if err != nil || len(toks) == 0 || !toks[0].is("select") {
		return "", nil, false
	}
	if last := toks[len(toks)-1]; last.isPunct(";") {
		toks = toks[:len(toks)-1]
	}
	var lift []int // indexes into toks
	for i, t := range toks {
		switch t.kind {
		case tkParam:
			return "", nil, false
		case tkPunct:
			if t.val == ";" {
				return "", nil, false
			}
		case tkIdent:
			switch t.val {
			case "select":
				if i > 0 {
					return "", nil, false
				}
			case "union", "intersect", "except", "into", "for":
				return "", nil, false
			}
		case tkNumber:
			if liftable(toks, i) {
				lift = append(lift, i)
			}
		}
	}
	if len(lift) == 0 {
		return "", nil, false
	}
	var b strings.Builder
	b.Grow(len(sql))
	at := 0
	for n, i := range lift {
		v, _ := strconv.ParseInt(toks[i].val, 10, 64)
		args = append(args, v)
		b.WriteString(sql[at:toks[i].pos])
		b.WriteByte('$')
		b.WriteString(strconv.Itoa(n + 1))
		at = toks[i].end
	}
	b.WriteString(sql[at:])
	return b.String(), args, true
}

// liftable reports whether number token i of toks is a constant
// LiftLiterals lifts (see there).
func liftable(toks []token, i int) bool {
	t := toks[i]
	if len(t.val) > 10 || i < 2 {
		return false
	}
	for j := 0; j < len(t.val); j++ {
		if t.val[j] < '0' || t.val[j] > '9' {
			return false // 1.5, 1e3, 1_000
		}
	}
	if v, err := strconv.ParseInt(t.val, 10, 64); err != nil || v > math.MaxInt32 {
		return false
	}
	switch op := toks[i-1]; {
	case op.kind != tkOp:
		return false
	case op.val != "=" && op.val != "<>" && op.val != "!=" && op.val != "<" && op.val != "<=" && op.val != ">" && op.val != ">=":
		return false
	}
	switch left := toks[i-2]; {
	case left.kind == tkQIdent:
	case left.kind != tkIdent, constantWords[left.val]:
		return false
	}
	if i+1 == len(toks) {
		return true
	}
	next := toks[i+1]
	return next.isPunct(")") || next.is("and") || next.is("or")
}

// constantWords are the keywords that are whole constant expressions (or
// end one): a comparison of one with a number is folded by the planner,
// so its constant stays.
var constantWords = map[string]bool{
	"true": true, "false": true, "null": true, "end": true, "user": true,
	"current_date": true, "current_time": true, "current_timestamp": true, "localtime": true, "localtimestamp": true,
	"current_user": true, "session_user": true, "current_role": true, "current_catalog": true, "current_schema": true,
}
