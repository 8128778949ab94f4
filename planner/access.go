package planner

import (
	"math"
	"slices"

	"github.com/kvsql/kvsql/catalog"
	"github.com/kvsql/kvsql/index"
	"github.com/kvsql/kvsql/types"
)

// maxKeyPrefixes bounds the point lookups one scan makes from IN lists
// and equalities on its key columns (the product of the lists' lengths).
// Beyond it the lists are only a filter. A large bound is cheap: exec
// sorts and de-duplicates the keys once (sortSpans) and reads each with a
// seek, so WHERE k IN (100,000 literals) is 100,000 gets, not a scan of
// the table with the list compared against every row.
const maxKeyPrefixes = 1 << 20

// keyPred is a conjunct usable as an index bound: column op value, with
// value constant for the execution (a literal, a parameter, an outer
// reference), or column IS [NOT] NULL (vals is [nil]: the NULL key value,
// see Span).
type keyPred struct {
	col  int
	op   string // "=", "<", "<=", ">", ">=", "in", "isnull", "notnull"
	vals []Expr
	// src is the filter conjunct the predicate came from (its index in
	// keyPreds' filters).
	src int
}

// keyPreds extracts the index-usable conjuncts of filters (over the
// table's full-width layout).
func keyPreds(t *catalog.Table, filters []Expr) []keyPred {
	var out []keyPred
	flip := map[string]string{"=": "=", "<": ">", "<=": ">=", ">": "<", ">=": "<="}
	for i, f := range filters {
		n := len(out)
		switch e := f.(type) {
		case *BinOp:
			op, ok := flip[e.Op]
			if !ok {
				continue
			}
			if col, v, ok := keyOperand(t, e.L, e.R); ok && isConstant(e.R) {
				out = append(out, keyPred{col: col, op: e.Op, vals: []Expr{v}})
			} else if col, v, ok := keyOperand(t, e.R, e.L); ok && isConstant(e.L) {
				out = append(out, keyPred{col: col, op: op, vals: []Expr{v}})
			}
		case *IsNull:
			ref, ok := e.X.(*ColRef)
			if !ok || ref.Outer != 0 {
				continue
			}
			op := "isnull"
			if e.Not {
				if t.Columns[ref.Index].NotNull {
					continue // bounds nothing
				}
				op = "notnull"
			}
			out = append(out, keyPred{col: ref.Index, op: op, vals: []Expr{nil}})
		case *Func:
			// k = ANY ('{...}') with a constant array is k IN (...).
			if p, ok := anyArrayPred(t, e); ok { // array.go
				out = append(out, p)
			}
		case *In:
			if e.Not || len(e.List) > maxKeyPrefixes {
				continue
			}
			col := -1
			var vals []Expr
			for _, x := range e.List {
				c, v, ok := keyOperand(t, e.X, x)
				if !ok || !isConstant(x) || (col >= 0 && c != col) {
					vals = nil
					break
				}
				col = c
				vals = append(vals, v)
			}
			if vals != nil {
				out = append(out, keyPred{col: col, op: "in", vals: vals})
			}
		}
		for j := n; j < len(out); j++ {
			out[j].src = i
		}
	}
	return out
}

// exactEquality reports whether the key span of p (an equality of a key
// column with one value) holds exactly the rows where p's conjunct is
// true, so the scan need not test the conjunct again: the value has the
// column's own type, whose key encoding keeps equal values equal and
// unequal ones apart (not float, where -0 = 0; not numeric, bpchar,
// arrays, jsonb or intervals, whose equality is not their keys'), and a
// NULL value matches no key (keySpan makes the span empty).
func exactEquality(t *catalog.Table, p keyPred) bool {
	if p.op != "=" || len(p.vals) != 1 || p.vals[0] == nil {
		return false
	}
	ct := t.Columns[p.col].Type
	if p.vals[0].Type().Family != ct.Family {
		return false
	}
	switch ct.Family {
	case types.Bool, types.Int2, types.Int4, types.Int8, types.Text, types.Varchar,
		types.Date, types.Timestamp, types.TimestampTZ, types.UUID:
		return true
	}
	return false
}

// keyOperand matches a comparison between colSide, a column of t, and
// valSide (a value constant for the execution, or a lookup join's probe),
// returning the column and the value as a key bound. colSide may be the
// column cast to float8: that is how an integer (or numeric, or float4)
// column compares with a float (compareType), and the bound is then a
// float8, which tells index.KeyRange to compare in float8.
func keyOperand(t *catalog.Table, colSide, valSide Expr) (int, Expr, bool) {
	switch c := colSide.(type) {
	case *ColRef:
		if c.Outer != 0 || t.Columns[c.Index].Type.Family == types.JSONB {
			// A jsonb key holds its text, whose byte order is not jsonb's
			// order and whose equality is not jsonb's (1.0 = 1).
			return 0, nil, false
		}
		v, ok := keyValue(valSide, t.Columns[c.Index].Type)
		return c.Index, v, ok
	case *Cast:
		ref, ok := c.X.(*ColRef)
		if !ok || ref.Outer != 0 || c.T.Family != types.Float8 || !isNumeric(t.Columns[ref.Index].Type.Family) {
			return 0, nil, false
		}
		v, ok := keyValueFloat8(valSide)
		return ref.Index, v, ok
	}
	return 0, nil, false
}

// keyValueFloat8 returns x as a float8 bound for a numeric column
// compared in float8; kvsql's numeric is a float64, so a numeric x is
// only retyped.
func keyValueFloat8(x Expr) (Expr, bool) {
	switch f := x.Type().Family; {
	case isFloat(f):
		return x, true
	case isNumeric(f) || f == types.Unknown:
		return &Cast{X: x, T: tFloat8}, true
	}
	return nil, false
}

// keyValue returns x as a bound for a key column of type t. A value of
// another numeric type is left as it is, never cast to t (a cast would
// round 2.5 into an int4 column's 2 and fail on 4294967296): exec finds
// the key values that compare with it (index.KeyRange). An untyped
// literal or parameter takes the column's type, as in PostgreSQL.
func keyValue(x Expr, t types.T) (Expr, bool) {
	xt := x.Type()
	switch {
	case xt == t:
		return x, true
	case xt.Family == types.Unknown:
		if t.Family == types.Varchar {
			t.Width = 0 // compared, not stored: no truncation
		}
		v, err := coerce(x, t)
		return v, err == nil
	case isNumeric(xt.Family) && isNumeric(t.Family):
		// An integer column compares with a float in float8, through a
		// cast of the column that keyOperand matches; bare, the pair
		// means an exact comparison that exec does not make.
		return x, !(isInteger(t.Family) && isFloat(xt.Family))
	case isText(xt.Family) && isText(t.Family):
		// bpchar compares without trailing blanks, text with them.
		return x, t.Family != types.Char && xt.Family != types.Char
	case xt.Kind() == t.Kind():
		return &Cast{X: x, T: t}, true
	}
	return nil, false
}

// accessCandidate is one way to read a table.
type accessCandidate struct {
	access    AccessKind
	index     *catalog.Index
	spans     []Span
	rows      float64 // rows the access path produces
	cost      float64
	indexOnly bool
	keyCols   []int // the key columns in order, for ordering
	eqPrefix  int   // leading key columns fixed by equality
	desc      []bool
	// exact holds the filter conjuncts (keyPred.src) the spans decide
	// exactly: equalities of the key prefix (exactEquality).
	exact []int
}

// chooseScan picks the cheapest access path for a table given its local
// filters (full-width layout) and the columns the query needs (nil: all).
func (b *binder) chooseScan(t *catalog.Table, alias string, cols []Column, filters []Expr, needed map[int]bool) *Scan {
	if t.Foreign != nil {
		return b.foreignScan(t, alias, cols, filters) // foreign.go
	}
	total := b.tableRows(t)
	sc := &Scan{Table: t, Alias: alias, Cols: cols, Access: FullScan}
	filters = b.useGenerated(t, filters) // generated.go
	if len(filters) > 0 {
		sc.Filter = andOf(filters)
	}
	best := accessCandidate{access: FullScan, rows: total, cost: total}
	if b.enabled("index_select") {
		preds := keyPreds(t, filters)
		try := func(c accessCandidate) {
			if c.cost < best.cost {
				best = c
			}
		}
		if c, ok := b.keyAccess(t, nil, t.PrimaryKey, t.PrimaryKeyDesc, preds, total); ok {
			try(c)
		}
		var elemPreds []keyPred
		for _, idx := range t.Indexes {
			if idx.Predicate != "" && !b.implies(t, filters, idx) {
				continue // a partial index lacks the rows its predicate rejects
			}
			if idx.Elements {
				if elemPreds == nil {
					elemPreds = elementPreds(t, filters) // array.go
				}
				if c, ok := b.keyAccess(t, idx, idx.Columns, idx.Desc, elemPreds, total); ok {
					c.keyCols, c.desc = nil, nil // entries are in element order, not the array's
					c.exact = nil                // an element's key is not the column's
					try(c)
				}
				continue
			}
			if c, ok := b.keyAccess(t, idx, idx.Columns, idx.Desc, preds, total); ok {
				if needed != nil && b.enabled("index_only") && covers(t, idx, needed) {
					c.indexOnly = true
					c.cost = c.rows * 1.1
				}
				try(c)
			}
		}
	}
	sc.Access, sc.Index, sc.Spans, sc.IndexOnly = best.access, best.index, best.spans, best.indexOnly
	if len(best.exact) > 0 {
		// The spans already hold only the rows these conjuncts accept:
		// the scan does not decode their columns to test them again.
		var rest, decided []Expr
		for i, f := range filters {
			if slices.Contains(best.exact, i) {
				decided = append(decided, f)
			} else {
				rest = append(rest, f)
			}
		}
		sc.Filter, sc.SpanFilter = nil, andOf(decided)
		if len(rest) > 0 {
			sc.Filter = andOf(rest)
		}
	}
	sc.Needed = scanNeeded(t, needed, sc.Filter)
	sel := 1.0
	for range filters {
		sel *= 0.3
	}
	sc.Rows = math.Max(1, math.Min(best.rows, total*sel))
	if best.access == PKGet || best.access == UniqueGet {
		sc.Rows = float64(len(best.spans))
	}
	return sc
}

// scanNeeded returns the columns a scan of t must decode: needed (the
// columns the plan above reads, nil: all) plus those filter reads, in
// ascending order; nil when that is every column, so that a scan which
// prunes nothing keeps the all-columns fast path.
func scanNeeded(t *catalog.Table, needed map[int]bool, filter Expr) []int {
	if needed == nil {
		return nil
	}
	set := make(map[int]bool, len(needed))
	for c := range needed {
		set[c] = true
	}
	colRefs(filter, set)
	out := make([]int, 0, len(set))
	for c := range t.Columns {
		if set[c] {
			out = append(out, c)
		}
	}
	if len(out) == len(t.Columns) {
		return nil
	}
	return out
}

// covers reports whether idx (with the primary key and the INCLUDE
// columns it stores) holds every needed column. A NUMERIC key column
// never does: a key keeps its number, not its display scale; an
// included column's value is stored as the master row stores it.
func covers(t *catalog.Table, idx *catalog.Index, needed map[int]bool) bool {
	have := map[int]bool{}
	for _, c := range idx.Columns {
		have[c] = t.Columns[c].Type.KeyExact()
	}
	for _, c := range t.PrimaryKey {
		have[c] = t.Columns[c].Type.KeyExact()
	}
	for _, c := range idx.Include {
		have[c] = true
	}
	for c := range needed {
		if !have[c] {
			return false
		}
	}
	return true
}

// keyAccess builds the access through a key (the primary key when idx is
// nil): equality, IN and IS NULL on a prefix of its columns, then at most
// one range (IS NOT NULL is a range up to the NULL key value).
func (b *binder) keyAccess(t *catalog.Table, idx *catalog.Index, keyCols []int, desc []bool, preds []keyPred, total float64) (accessCandidate, bool) {
	c := accessCandidate{index: idx, keyCols: keyCols, desc: desc}
	prefixes := [][]Expr{{}}
	sel := 1.0
	nullKey := false // some prefix value is the NULL key value
	for _, col := range keyCols {
		var eq *keyPred
		for i := range preds {
			p := &preds[i]
			if p.col == col && (p.op == "=" || p.op == "in" || p.op == "isnull") {
				if eq == nil || len(p.vals) < len(eq.vals) {
					eq = p
				}
			}
		}
		if eq == nil || len(prefixes)*len(eq.vals) > maxKeyPrefixes {
			break
		}
		var next [][]Expr
		for _, pre := range prefixes {
			for _, v := range eq.vals {
				next = append(next, append(append([]Expr{}, pre...), v))
			}
		}
		prefixes = next
		c.eqPrefix++
		if exactEquality(t, *eq) {
			c.exact = append(c.exact, eq.src)
		}
		if eq.op == "isnull" {
			nullKey = true
			sel *= 0.1
		} else {
			sel *= b.eqSelectivity(t, col)
		}
	}
	full := c.eqPrefix == len(keyCols)
	inverted := idx != nil && idx.Form == catalog.FormInverted
	if inverted && !full {
		return c, false // an inverted list answers equality on all its columns only
	}
	if inverted {
		for _, pre := range prefixes {
			for i, v := range pre {
				if v != nil && !index.PointImage(t.Columns[keyCols[i]].Type.Family, v.Type().Family) {
					return c, false // an equality that is a range of keys
				}
			}
		}
	}
	// A range on the next column, in value order (NULL is the largest
	// value: the key order of an ascending column); hasLo/hasHi tell a
	// bound that is the NULL key value (nil) from no bound.
	var lo, hi Expr
	hasLo, hasHi, loExcl, hiExcl := false, false, false, false
	notNull := false
	if !full {
		col := keyCols[c.eqPrefix]
		for _, p := range preds {
			if p.col != col {
				continue
			}
			switch p.op {
			case ">", ">=":
				if !hasLo {
					lo, hasLo, loExcl = p.vals[0], true, p.op == ">"
				}
			case "<", "<=":
				if !hasHi {
					hi, hasHi, hiExcl = p.vals[0], true, p.op == "<"
				}
			case "notnull":
				notNull = true
			}
		}
		if notNull && !hasHi {
			hi, hasHi, hiExcl = nil, true, true // below the NULL key value
		}
		if c.eqPrefix < len(desc) && desc[c.eqPrefix] {
			lo, hi = hi, lo
			hasLo, hasHi = hasHi, hasLo
			loExcl, hiExcl = hiExcl, loExcl
		}
	}
	if c.eqPrefix == 0 && !hasLo && !hasHi {
		return c, false
	}
	for _, pre := range prefixes {
		sp := Span{Lo: pre, Hi: pre}
		if hasLo {
			sp.Lo = append(append([]Expr{}, pre...), lo)
			sp.LoExcl = loExcl
		}
		if hasHi {
			sp.Hi = append(append([]Expr{}, pre...), hi)
			sp.HiExcl = hiExcl
		}
		c.spans = append(c.spans, sp)
	}
	// Estimate: a range keeps a quarter of the rows, IS NOT NULL alone
	// most of them.
	switch {
	case (hasLo && lo != nil) || (hasHi && hi != nil):
		sel *= 0.25
	case notNull:
		sel *= 0.9
	}
	unique := (idx == nil || idx.Unique) && !nullKey // NULLs repeat in a unique index
	switch {
	case full && unique && idx == nil:
		c.access, c.rows = PKGet, float64(len(prefixes))
	case full && unique:
		c.access, c.rows = UniqueGet, float64(len(prefixes))
	case idx == nil:
		c.access, c.rows = PKRange, math.Max(1, total*sel*float64(len(prefixes)))
	case inverted:
		c.access, c.rows = InvertedGet, math.Max(1, total*sel*float64(len(prefixes)))
	default:
		c.access, c.rows = IndexRange, math.Max(1, total*sel*float64(len(prefixes)))
	}
	c.cost = c.rows
	if idx != nil {
		c.cost = c.rows * 2.5 // the index entry, then the master get
	}
	c.cost += float64(len(c.spans)) * 0.5
	return c, true
}

// eqSelectivity estimates the fraction of rows where col equals a value.
func (b *binder) eqSelectivity(t *catalog.Table, col int) float64 {
	if st := b.p.Catalog.Stats(t.ID); st != nil && st.Distinct != nil {
		if d := st.Distinct[t.Columns[col].ID]; d > 0 {
			return 1 / float64(d)
		}
	}
	if len(t.PrimaryKey) == 1 && t.PrimaryKey[0] == col {
		return 1 / math.Max(1, b.tableRows(t))
	}
	for _, idx := range t.Indexes {
		if idx.Unique && idx.Predicate == "" && len(idx.Columns) == 1 && idx.Columns[0] == col {
			return 1 / math.Max(1, b.tableRows(t))
		}
	}
	return 0.05
}

// tableRows estimates the table's row count.
func (b *binder) tableRows(t *catalog.Table) float64 {
	if st := b.p.Catalog.Stats(t.ID); st != nil && st.RowCount > 0 {
		return float64(st.RowCount)
	}
	if b.p.RowCount != nil {
		if n := b.p.RowCount(t); n > 0 {
			return n
		}
	}
	return 1000
}

// providesOrder reports whether n already delivers rows in keys' order, so
// no sort is needed: a single-table scan through a key whose column order
// (after the equality-fixed prefix) matches the ORDER BY.
func providesOrder(n Node, keys []SortKey) bool {
	// Walk down through order-preserving nodes to the scan, mapping key
	// columns to the scan's columns.
	cols := make([]int, len(keys))
	for i, k := range keys {
		ref, ok := k.Expr.(*ColRef)
		if !ok || ref.Outer != 0 {
			return false
		}
		cols[i] = ref.Index
	}
	for {
		switch v := n.(type) {
		case *Project:
			for i, c := range cols {
				ref, ok := v.Exprs[c].(*ColRef)
				if !ok || ref.Outer != 0 {
					return false
				}
				cols[i] = ref.Index
			}
			n = v.Input
			continue
		case *Filter:
			n = v.Input
			continue
		case *Scan:
			return scanOrders(v, cols, keys)
		}
		return false
	}
}

func scanOrders(s *Scan, cols []int, keys []SortKey) bool {
	var keyCols []int
	var desc []bool
	if s.Foreign != nil {
		return false // no key order: decimal text keys do not sort by value
	}
	switch s.Access {
	case FullScan, PKGet, PKRange:
		keyCols, desc = s.Table.PrimaryKey, s.Table.PrimaryKeyDesc
	case IndexRange:
		if s.Index.Form == catalog.FormInverted {
			return false
		}
		keyCols, desc = s.Index.Columns, s.Index.Desc
	default:
		return false
	}
	if len(s.Spans) > 1 {
		return false
	}
	eq := 0
	if len(s.Spans) == 1 {
		sp := s.Spans[0]
		for eq < len(sp.Lo) && eq < len(sp.Hi) && sp.Lo[eq] == sp.Hi[eq] {
			if f, ok := sp.Lo[eq].(*Func); ok && f.Name == EachElement {
				break // several values, one span each: not one equality
			}
			eq++
		}
	}
	// Keys must follow key columns eq, eq+1, ... all in the stored
	// direction, or all reversed.
	reverse := false
	for i, c := range cols {
		pos := eq + i
		if pos >= len(keyCols) || keyCols[pos] != c || s.Table.Columns[c].Type.Family == types.JSONB {
			return false
		}
		stored := pos < len(desc) && desc[pos]
		want := keys[i].Desc
		if keys[i].NullsFirst != keys[i].Desc {
			return false
		}
		r := stored != want
		if i == 0 {
			reverse = r
		} else if r != reverse {
			return false
		}
	}
	s.Reverse, s.KeepOrder = reverse, true
	return true
}
