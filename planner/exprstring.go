package planner

import (
	"strconv"
	"strings"

	"github.com/kvsql/kvsql/planner/parse"
	"github.com/kvsql/kvsql/types"
)

func itoa(i int) string { return strconv.Itoa(i) }

func (e *Const) String() string {
	if e.T.Family == types.Enum && e.T.Enum != nil && e.Value.Kind == types.KindBytes {
		if l, ok := e.T.Enum.Label(e.Value.S); ok {
			return "'" + strings.ReplaceAll(l, "'", "''") + "'::" + e.T.String()
		}
	}
	if e.Value.Kind == types.KindText && e.T.Family != types.Text && e.T.Family != types.Unknown {
		return "'" + e.Value.S + "'::" + e.T.String()
	}
	if e.Value.Kind == types.KindText {
		return "'" + strings.ReplaceAll(e.Value.S, "'", "''") + "'"
	}
	return e.Value.String()
}

func (e *ColRef) String() string {
	name := e.Name
	if name == "" {
		name = "#" + itoa(e.Index)
	}
	if e.Outer > 0 {
		return "outer(" + name + ")"
	}
	return name
}

func (e *Param) String() string { return "$" + itoa(e.N) }

func (e *UnaryOp) String() string {
	if e.Op == "NOT" {
		return "NOT " + e.X.String()
	}
	return e.Op + e.X.String()
}

func (e *BinOp) String() string { return "(" + e.L.String() + " " + e.Op + " " + e.R.String() + ")" }

func joinExprs(es []Expr, sep string) string {
	parts := make([]string, len(es))
	for i, x := range es {
		parts[i] = x.String()
	}
	return strings.Join(parts, sep)
}

func (e *And) String() string { return "(" + joinExprs(e.Args, " AND ") + ")" }
func (e *Or) String() string  { return "(" + joinExprs(e.Args, " OR ") + ")" }

func (e *IsNull) String() string {
	if e.Not {
		return e.X.String() + " IS NOT NULL"
	}
	return e.X.String() + " IS NULL"
}

func (e *IsBool) String() string {
	s := e.X.String() + " IS "
	if e.Not {
		s += "NOT "
	}
	if e.Value {
		return s + "TRUE"
	}
	return s + "FALSE"
}

func (e *In) String() string {
	op := " IN ("
	if e.Not {
		op = " NOT IN ("
	}
	return e.X.String() + op + joinExprs(e.List, ", ") + ")"
}

func (e *Like) String() string {
	op := " LIKE "
	if e.CaseInsensitive {
		op = " ILIKE "
	}
	if e.Not {
		op = " NOT" + op
	}
	return e.X.String() + op + e.Pattern.String()
}

func (e *Case) String() string {
	var b strings.Builder
	b.WriteString("CASE")
	if e.Operand != nil {
		b.WriteString(" " + e.Operand.String())
	}
	for _, w := range e.Whens {
		b.WriteString(" WHEN " + w.Cond.String() + " THEN " + w.Val.String())
	}
	if e.Else != nil {
		b.WriteString(" ELSE " + e.Else.String())
	}
	b.WriteString(" END")
	return b.String()
}

func (e *Cast) String() string { return e.X.String() + "::" + e.T.String() }

func (e *Func) String() string {
	if name, ok := RoutineName(e.Name); ok {
		return name + "(" + joinExprs(e.Args[1:], ", ") + ")"
	}
	switch e.Name {
	case parse.MarkerArray:
		return "ARRAY[" + joinExprs(e.Args, ", ") + "]"
	case parse.MarkerSubscript:
		s := e.Args[0].String()
		for _, i := range e.Args[1:] {
			s += "[" + i.String() + "]"
		}
		return s
	case EachElement:
		return "any element of " + e.Args[0].String()
	case parse.MarkerSlice:
		s := e.Args[0].String()
		for k := 1; k+1 < len(e.Args); k += 2 {
			s += "[" + sliceBound(e.Args[k]) + ":" + sliceBound(e.Args[k+1]) + "]"
		}
		return s
	}
	if op, q, ok := strings.Cut(e.Name, " "); ok && (q == "any" || q == "all") && len(e.Args) == 2 {
		return e.Args[0].String() + " " + op + " " + strings.ToUpper(q) + " (" + e.Args[1].String() + ")"
	}
	return e.Name + "(" + joinExprs(e.Args, ", ") + ")"
}

func (e *Subquery) String() string {
	switch e.Kind {
	case SubExists:
		return "EXISTS(subquery)"
	case SubIn:
		if e.Not {
			return e.X.String() + " NOT IN (subquery)"
		}
		return e.X.String() + " IN (subquery)"
	case SubAny:
		return e.X.String() + " " + e.Op + " ANY(subquery)"
	case SubAll:
		return e.X.String() + " " + e.Op + " ALL(subquery)"
	case SubArray:
		return "ARRAY(subquery)"
	}
	return "(subquery)"
}

func aggString(a AggCall) string {
	var b strings.Builder
	b.WriteString(a.Func)
	b.WriteString("(")
	if a.Distinct {
		b.WriteString("DISTINCT ")
	}
	if a.Func == "count_star" {
		b.WriteString("*")
	}
	args := a.Args
	if a.Filtered {
		args = args[:len(args)-1]
	}
	b.WriteString(joinExprs(args, ", "))
	if len(a.OrderBy) > 0 {
		b.WriteString(" ORDER BY ")
		b.WriteString(sortKeysString(a.OrderBy))
	}
	b.WriteString(")")
	if a.Filtered {
		b.WriteString(" FILTER (WHERE " + a.Args[len(a.Args)-1].String() + ")")
	}
	return b.String()
}

func sortKeysString(keys []SortKey) string {
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k.Expr.String()
		if k.Desc {
			parts[i] += " DESC"
		}
		if k.NullsFirst != k.Desc {
			if k.NullsFirst {
				parts[i] += " NULLS FIRST"
			} else {
				parts[i] += " NULLS LAST"
			}
		}
	}
	return strings.Join(parts, ", ")
}

// sliceBound is a slice bound as written: nothing for a missing one.
func sliceBound(x Expr) string {
	if c, ok := x.(*Const); ok && c.Value.Kind == types.KindInt && c.Value.I == SliceOpen {
		return ""
	}
	return x.String()
}
