package planner

import (
	"fmt"
	"strings"

	"github.com/kvsql/kvsql/catalog"
)

// Explain draws a plan as a tree, one node per line, naming the key-value
// operation of every scan: its key space and key range.
//
//	Project a, b
//	└── Scan poi: master get /52/1 (key: poi_id = 1)
//
// annotate, if non-nil, adds text after a node's line (EXPLAIN ANALYZE's
// actual rows and time).
func Explain(n Node, annotate func(Node) string) string {
	var b strings.Builder
	explainNode(&b, n, "", "", annotate)
	return b.String()
}

func explainNode(b *strings.Builder, n Node, first, rest string, annotate func(Node) string) {
	b.WriteString(first)
	b.WriteString(describe(n))
	if s, ok := n.(*Scan); ok && s.Parallel {
		b.WriteString(" (vectorized, parallel)")
	} else if IsVectorized(n) {
		b.WriteString(" (vectorized)")
	}
	if annotate != nil {
		if a := annotate(n); a != "" {
			b.WriteString("  ")
			b.WriteString(a)
		}
	}
	b.WriteString("\n")
	children := n.Children()
	subs := subqueries(n)
	for i, c := range children {
		if i == len(children)-1 && len(subs) == 0 {
			explainNode(b, c, rest+"└── ", rest+"    ", annotate)
		} else {
			explainNode(b, c, rest+"├── ", rest+"│   ", annotate)
		}
	}
	for i, sq := range subs {
		kind := "SubPlan (run once, cached)"
		if sq.Correlated {
			kind = "SubPlan (correlated: run per row)"
		}
		first, next := rest+"├── ", rest+"│   "
		if i == len(subs)-1 {
			first, next = rest+"└── ", rest+"    "
		}
		b.WriteString(first + kind + " for " + sq.String() + "\n")
		explainNode(b, sq.Plan, next+"└── ", next+"    ", annotate)
	}
}

// subqueries lists the subqueries in n's own expressions.
func subqueries(n Node) []*Subquery {
	var out []*Subquery
	for _, e := range nodeExprs(n) {
		walkExpr(e, func(x Expr) bool {
			if sq, ok := x.(*Subquery); ok {
				out = append(out, sq)
			}
			return true
		})
	}
	return out
}

// describe is one node's line.
func describe(n Node) string {
	switch v := n.(type) {
	case *Scan:
		return describeScan(v)
	case *Values:
		return fmt.Sprintf("Values (%d rows)", len(v.Rows))
	case *ModifiedRows:
		return "CTE Scan on " + v.Name + " (data-modifying)"
	case *Series:
		return fmt.Sprintf("Series %s to %s step %s", v.Start, v.Stop, v.Step)
	case *TableFunc:
		s := "Function Scan " + v.Name + "(" + joinExprs(v.Args, ", ") + ")"
		if v.Name == "unnest" && len(v.Args) == 1 {
			s = "Unnest " + v.Args[0].String()
		}
		if v.Ordinality {
			s += " WITH ORDINALITY"
		}
		return s
	case *Filter:
		if v.OneTime {
			return "One-Time Filter " + v.Pred.String()
		}
		return "Filter " + v.Pred.String()
	case *Project:
		return "Project " + joinExprs(v.Exprs, ", ")
	case *Join:
		return describeJoin(v)
	case *LookupJoin:
		kind := "LookupJoin"
		if v.Type == LeftJoin {
			kind = "LookupJoin (left)"
		}
		target := "master get on " + v.Table.Name
		if v.Table.Foreign != nil {
			target = "foreign prefix scan of " + v.Table.Foreign.Key + " on " + v.Table.Name
		} else if v.Index != nil {
			target = fmt.Sprintf("%s index %s (space %d) on %s", formName(v.Index), v.Index.Name, v.Index.ID, v.Table.Name)
		} else {
			target += fmt.Sprintf(" (space %d)", v.Table.ID)
		}
		s := fmt.Sprintf("%s %s: key (%s)", kind, target, joinExprs(v.Keys, ", "))
		if v.Table.Foreign != nil {
			names := make([]string, len(v.Keys))
			for i, o := range v.Table.PrimaryKey[:len(v.Keys)] {
				names[i] = v.Table.Columns[o].Name + " = " + v.Keys[i].String()
			}
			s = fmt.Sprintf("%s %s: key (%s)", kind, target, strings.Join(names, ", "))
		}
		if v.Filter != nil {
			s += " filter " + v.Filter.String()
		}
		if v.On != nil {
			s += " on " + v.On.String()
		}
		return s
	case *Aggregate:
		kind := map[AggStrategy]string{HashAgg: "HashAggregate", StreamAgg: "StreamAggregate", ScalarAgg: "Aggregate"}[v.Strategy]
		var parts []string
		if len(v.GroupBy) > 0 {
			parts = append(parts, "group by "+joinExprs(v.GroupBy, ", "))
		}
		aggs := make([]string, len(v.Aggs))
		for i, a := range v.Aggs {
			aggs[i] = aggString(a)
		}
		if len(aggs) > 0 {
			parts = append(parts, strings.Join(aggs, ", "))
		}
		return kind + " " + strings.Join(parts, "; ")
	case *Sort:
		return "Sort " + sortKeysString(v.Keys)
	case *TopN:
		s := "TopN " + sortKeysString(v.Keys) + " limit " + v.Count.String()
		if v.Offset != nil {
			s += " offset " + v.Offset.String()
		}
		return s
	case *Limit:
		s := "Limit"
		if v.Count != nil {
			s += " " + v.Count.String()
		}
		if v.Offset != nil {
			s += " offset " + v.Offset.String()
		}
		if len(v.TiesOn) > 0 {
			s += " with ties"
		}
		return s
	case *Window:
		s := "Window"
		if len(v.Partition) > 0 {
			s += " partition by (" + joinExprs(v.Partition, ", ") + ")"
		}
		if len(v.Order) > 0 {
			keys := make([]string, len(v.Order))
			for i, k := range v.Order {
				keys[i] = k.Expr.String()
				if k.Desc {
					keys[i] += " desc"
				}
			}
			s += " order by (" + strings.Join(keys, ", ") + ")"
		}
		fns := make([]string, len(v.Funcs))
		for i, f := range v.Funcs {
			fns[i] = f.Func + "(" + joinExprs(f.Args, ", ") + ")"
			if f.Filter != nil {
				fns[i] += " filter (where " + f.Filter.String() + ")"
			}
			if windowFrameReader(f.Func) && !f.Frame.isDefault() {
				fns[i] += " " + f.Frame.String()
			}
		}
		return s + ": " + strings.Join(fns, ", ")
	case *Distinct:
		return "Distinct (hash)"
	case *DistinctOn:
		cols := make([]string, len(v.Cols))
		for i, c := range v.Cols {
			cols[i] = v.Input.Columns()[c].Name
		}
		return "DistinctOn (" + strings.Join(cols, ", ") + ") first row of each"
	case *LockRows:
		return "LockRows " + v.Table.Name + " " + v.Lock.String()
	case *RecursiveUnion:
		s := "RecursiveUnion " + v.Name
		if v.All {
			s += " all"
		}
		return s
	case *WorkTable:
		return "WorkTable " + v.Name + " (the previous run's rows)"
	case *CTEScan:
		if v.First {
			return "CTE Scan on " + v.Name + " (CTE " + v.Name + " evaluated once, below)"
		}
		return "CTE Scan on " + v.Name + " (the stored rows of CTE " + v.Name + ")"
	case *Append:
		return "Append"
	case *TreeWrite:
		return "TreeWrite"
	case *SetOp:
		s := map[SetOpKind]string{Union: "Union", Intersect: "Intersect", Except: "Except"}[v.Op]
		if v.All {
			s += " All"
		}
		return s
	case *Insert:
		s := fmt.Sprintf("Insert into %s (space %d)", v.Table.Name, v.Table.ID)
		switch v.Conflict {
		case ConflictIgnore:
			s += " on conflict ignore"
		case ConflictUpdate:
			s += " on conflict update"
		case ConflictReplace:
			s += " on conflict replace"
		}
		return s
	case *Update:
		sets := make([]string, len(v.Set))
		for i, a := range v.Set {
			sets[i] = v.Table.Columns[a.Col].Name + " = " + a.Expr.String()
		}
		return fmt.Sprintf("Update %s set %s", v.Table.Name, strings.Join(sets, ", "))
	case *Delete:
		return "Delete from " + v.Table.Name
	}
	return fmt.Sprintf("%T", n)
}

func formName(idx *catalog.Index) string {
	switch idx.Form {
	case catalog.FormUnique:
		return "unique"
	case catalog.FormInverted:
		return "inverted-list"
	}
	return "key+id"
}

func describeScan(s *Scan) string {
	var b strings.Builder
	b.WriteString("Scan ")
	b.WriteString(s.Table.Name)
	if s.Alias != "" && s.Alias != s.Table.Name {
		b.WriteString(" AS " + s.Alias)
	}
	b.WriteString(": ")
	if s.Foreign != nil {
		describeForeign(s, &b) // foreign.go
		return b.String()
	}
	switch s.Access {
	case FullScan:
		fmt.Fprintf(&b, "master full scan (space %d)", s.Table.ID)
	case PKGet:
		fmt.Fprintf(&b, "master get (space %d)", s.Table.ID)
	case PKRange:
		fmt.Fprintf(&b, "master range scan (space %d)", s.Table.ID)
	case UniqueGet:
		fmt.Fprintf(&b, "unique index get %s (space %d)", s.Index.Name, s.Index.ID)
	case IndexRange:
		if s.IndexOnly {
			// PostgreSQL's "Index Only Scan": no master row is read.
			fmt.Fprintf(&b, "%s index only scan %s (space %d)", formName(s.Index), s.Index.Name, s.Index.ID)
			break
		}
		fmt.Fprintf(&b, "%s index range scan %s (space %d)", formName(s.Index), s.Index.Name, s.Index.ID)
	case InvertedGet:
		fmt.Fprintf(&b, "inverted-list get %s (space %d)", s.Index.Name, s.Index.ID)
	}
	if s.Access != FullScan && s.Access != PKGet && s.Access != PKRange && !(s.Access == IndexRange && s.IndexOnly) {
		if s.IndexOnly {
			b.WriteString(" index-only")
		} else {
			b.WriteString(" then master get")
		}
	}
	if s.Reverse {
		b.WriteString(" reverse")
	}
	if len(s.Spans) > 0 {
		b.WriteString(" key ")
		keyCols, desc := s.Table.PrimaryKey, s.Table.PrimaryKeyDesc
		if s.Index != nil {
			keyCols, desc = s.Index.Columns, s.Index.Desc
		}
		spans := make([]string, len(s.Spans))
		for i, sp := range s.Spans {
			spans[i] = spanString(sp, s.Table, keyCols, desc)
		}
		if len(spans) > 4 {
			spans = append(spans[:4], fmt.Sprintf("… %d spans", len(s.Spans)))
		}
		b.WriteString(strings.Join(spans, " | "))
	}
	if s.Needed != nil && !s.IndexOnly {
		names := make([]string, len(s.Needed))
		for i, c := range s.Needed {
			names[i] = s.Table.Columns[c].Name
		}
		b.WriteString(" cols (" + strings.Join(names, ", ") + ")")
	}
	if s.Filter != nil {
		b.WriteString(" filter " + s.Filter.String())
	}
	if m := s.Memo; m != nil {
		b.WriteString(" memo on (" + joinExprs(m.Keys, ", ") + ") = (" + joinExprs(m.Probes, ", ") + ")")
	}
	return b.String()
}

// spanString renders a span in value order: on a descending column the
// key-order Lo bound is the upper value bound.
func spanString(sp Span, t *catalog.Table, keyCols []int, desc []bool) string {
	name := func(i int) string {
		if i < len(keyCols) {
			return t.Columns[keyCols[i]].Name
		}
		return "?"
	}
	var parts []string
	n := len(sp.Lo)
	if len(sp.Hi) > n {
		n = len(sp.Hi)
	}
	for i := 0; i < n; i++ {
		var lo, hi Expr
		if i < len(sp.Lo) {
			lo = sp.Lo[i]
		}
		if i < len(sp.Hi) {
			hi = sp.Hi[i]
		}
		loNull := i < len(sp.Lo) && lo == nil // the NULL key value
		hiNull := i < len(sp.Hi) && hi == nil
		switch {
		case loNull && hiNull:
			parts = append(parts, name(i)+" IS NULL")
		case lo != nil && hi != nil && lo == hi:
			parts = append(parts, name(i)+" = "+lo.String())
		default:
			if loNull || hiNull { // the other side, if any, is a value
				parts = append(parts, name(i)+" IS NOT NULL")
			}
			geOp, gtOp, leOp, ltOp := " >= ", " > ", " <= ", " < "
			if i < len(desc) && desc[i] {
				geOp, gtOp, leOp, ltOp = leOp, ltOp, geOp, gtOp
			}
			if lo != nil {
				op := geOp
				if sp.LoExcl && i == len(sp.Lo)-1 {
					op = gtOp
				}
				parts = append(parts, name(i)+op+lo.String())
			}
			if hi != nil {
				op := leOp
				if sp.HiExcl && i == len(sp.Hi)-1 {
					op = ltOp
				}
				parts = append(parts, name(i)+op+hi.String())
			}
		}
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

func describeJoin(j *Join) string {
	kind := map[JoinType]string{InnerJoin: "inner", LeftJoin: "left", SemiJoin: "semi", AntiJoin: "anti", FullJoin: "full"}[j.Type]
	switch j.Algo {
	case HashJoin:
		build := "right"
		if !j.BuildRight {
			build = "left"
		}
		parts := make([]string, len(j.LeftKeys))
		for i := range j.LeftKeys {
			parts[i] = j.LeftKeys[i].String() + " = " + j.RightKeys[i].String()
		}
		s := fmt.Sprintf("HashJoin (%s, build %s) on %s", kind, build, strings.Join(parts, " AND "))
		if j.On != nil {
			s += " filter " + j.On.String()
		}
		return s
	}
	if j.Algo == Apply {
		s := fmt.Sprintf("Apply (%s): right side runs per left row", kind)
		if j.On != nil {
			s += " on " + j.On.String()
		}
		return s
	}
	s := fmt.Sprintf("NestedLoopJoin (%s)", kind)
	if j.On != nil {
		s += " on " + j.On.String()
	}
	return s
}
