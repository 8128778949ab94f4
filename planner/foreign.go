package planner

import (
	"fmt"
	"math"
	"strings"

	"github.com/kvsql/kvsql/catalog"
	"github.com/kvsql/kvsql/pgerror"
)

// Foreign tables (catalog.Table.Foreign) live in an application's
// key-value store, in the application's own key layout. They enter the
// planner here and nowhere else: chooseScan hands such a table to
// foreignScan, which turns equalities on the key template's leading
// fields into key prefixes and a range on the next field into a key
// range where that field's encoding sorts by value. The scan's Filter
// keeps every conjunct, so prefixes and ranges only narrow what is read.
// A foreign scan has no key order the planner may rely on (decimal
// text keys do not sort by value) and no min/max shortcut. A join into
// a foreign table on its leading key fields is a lookup join
// (join.go's lookupJoin): one prefix scan per outer row.

// maxForeignPrefixes bounds the key prefixes one foreign scan reads
// from IN lists (the product of the lists' lengths).
const maxForeignPrefixes = 4096

// ForeignScan is how a Scan of a foreign table reads keys: one key
// range per span (no spans: the table's whole literal prefix).
type ForeignScan struct {
	Spans []ForeignSpan
	// Notes say why a predicate on a key field did not narrow the
	// scan (EXPLAIN shows them).
	Notes []string
}

// ForeignSpan fixes the leading key fields to Eq (evaluated when the
// scan opens) and bounds the next one by Lo and Hi (nil: unbounded).
type ForeignSpan struct {
	Eq             []Expr
	Lo, Hi         Expr
	LoExcl, HiExcl bool
}

// foreignScan plans the scan of a foreign table.
func (b *binder) foreignScan(t *catalog.Table, alias string, cols []Column, filters []Expr) *Scan {
	sc := &Scan{Table: t, Alias: alias, Cols: cols, Access: FullScan, Foreign: &ForeignScan{}}
	if len(filters) > 0 {
		sc.Filter = andOf(filters)
	}
	preds := keyPreds(t, filters)
	keyFields := t.Foreign.KeyFields()
	var eqLists [][]Expr
	var lo, hi Expr
	var loExcl, hiExcl bool
	for i, col := range keyFields {
		var eq []Expr
		var ranges []keyPred
		for _, p := range preds {
			if p.col != col {
				continue
			}
			switch p.op {
			case "=", "in":
				if eq == nil || len(p.vals) < len(eq) {
					eq = p.vals
				}
			case "<", "<=", ">", ">=":
				ranges = append(ranges, p)
			}
		}
		if eq != nil && spanCount(eqLists)*len(eq) <= maxForeignPrefixes {
			eqLists = append(eqLists, eq)
			continue
		}
		if len(ranges) > 0 {
			name := t.Columns[col].Name
			if !t.Foreign.Sorts(i) {
				enc := t.Foreign.Fields[col].Encoding
				sc.Foreign.Notes = append(sc.Foreign.Notes, fmt.Sprintf("range on %s not used: %s keys do not sort by value", name, enc))
				break
			}
			for _, p := range ranges {
				switch p.op {
				case ">", ">=":
					lo, loExcl = p.vals[0], p.op == ">"
				default:
					hi, hiExcl = p.vals[0], p.op == "<"
				}
			}
		}
		break
	}
	for _, eq := range product(eqLists) {
		sc.Foreign.Spans = append(sc.Foreign.Spans, ForeignSpan{Eq: eq, Lo: lo, Hi: hi, LoExcl: loExcl, HiExcl: hiExcl})
	}
	if len(eqLists) == 0 && (lo != nil || hi != nil) {
		sc.Foreign.Spans = []ForeignSpan{{Lo: lo, Hi: hi, LoExcl: loExcl, HiExcl: hiExcl}}
	}
	total := b.tableRows(t)
	rows := total * math.Pow(0.1, float64(len(eqLists)))
	if lo != nil || hi != nil {
		rows *= 0.3
	}
	if len(eqLists) == len(keyFields) {
		rows = float64(len(sc.Foreign.Spans))
	}
	// The other conjuncts filter what the keys read, as a Filter's
	// estimate does (a join picks its lookups by these rows).
	narrowed := len(eqLists)
	if lo != nil || hi != nil {
		narrowed++
	}
	if extra := len(filters) - narrowed; extra > 0 {
		rows *= math.Pow(0.3, float64(extra))
	}
	sc.Rows = math.Max(1, rows)
	return sc
}

func spanCount(lists [][]Expr) int {
	n := 1
	for _, l := range lists {
		n *= len(l)
	}
	return n
}

// product returns every combination of one value from each list.
func product(lists [][]Expr) [][]Expr {
	if len(lists) == 0 {
		return nil
	}
	out := [][]Expr{nil}
	for _, l := range lists {
		var next [][]Expr
		for _, prefix := range out {
			for _, v := range l {
				next = append(next, append(append([]Expr{}, prefix...), v))
			}
		}
		out = next
	}
	return out
}

// describeForeign is EXPLAIN's line for a foreign scan: the key
// template and what fixes its fields.
func describeForeign(s *Scan, b *strings.Builder) {
	l := s.Table.Foreign
	keyFields := l.KeyFields()
	kind := "full scan"
	if len(s.Foreign.Spans) > 0 {
		kind = "prefix scan"
		if sp := s.Foreign.Spans[0]; sp.Lo != nil || sp.Hi != nil {
			kind = "range scan"
		}
	}
	fmt.Fprintf(b, "foreign %s of %s", kind, l.Key)
	if len(s.Foreign.Spans) > 0 {
		spans := make([]string, len(s.Foreign.Spans))
		for i, sp := range s.Foreign.Spans {
			var parts []string
			for j, e := range sp.Eq {
				parts = append(parts, s.Table.Columns[keyFields[j]].Name+" = "+e.String())
			}
			if sp.Lo != nil || sp.Hi != nil {
				name := s.Table.Columns[keyFields[len(sp.Eq)]].Name
				if sp.Lo != nil {
					parts = append(parts, name+map[bool]string{true: " > ", false: " >= "}[sp.LoExcl]+sp.Lo.String())
				}
				if sp.Hi != nil {
					parts = append(parts, name+map[bool]string{true: " < ", false: " <= "}[sp.HiExcl]+sp.Hi.String())
				}
			}
			spans[i] = "(" + strings.Join(parts, ", ") + ")"
		}
		if len(spans) > 4 {
			spans = append(spans[:4], fmt.Sprintf("… %d prefixes", len(s.Foreign.Spans)))
		}
		b.WriteString(" key " + strings.Join(spans, " | "))
	} else {
		fmt.Fprintf(b, " prefix %q", l.Prefix())
	}
	for _, n := range s.Foreign.Notes {
		b.WriteString("; " + n)
	}
	if s.Filter != nil {
		b.WriteString(" filter " + s.Filter.String())
	}
}

// foreignWritable refuses INSERT, UPDATE and DELETE on a foreign table
// of a read-only attachment (the default; readonly="false" on the
// DataBase element allows them).
func (b *binder) foreignWritable(t *catalog.Table) error {
	if t.Foreign == nil {
		return nil
	}
	if d, err := b.p.Catalog.Database(t.DB); err == nil && d.Foreign != nil && d.Foreign.Writable {
		return nil
	}
	e := pgerror.Newf(pgerror.WrongObjectType, "cannot change foreign table %q", t.Name)
	e.Detail = "Its database is attached read-only to an application's store."
	e.Hint = "readonly=\"false\" on the DataBase element of the catalog document allows writes."
	return e
}
