package planner

import (
	"github.com/kvsql/kvsql/catalog"
	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/types"
	"vitess.io/vitess/go/vt/sqlparser"
)

// Updatable cursors: UPDATE / DELETE ... WHERE CURRENT OF cursor changes
// the row the cursor stands on. A cursor's query is planned with
// Planner.CursorTarget set: when it is a simply updatable scan (one
// table, no grouping, DISTINCT or set operation, as PostgreSQL requires)
// each row carries the table's primary key in hidden columns after the
// select list. WHERE CURRENT OF then becomes a filter on that key, whose
// value Planner.CurrentOf reads from the cursor when the statement is
// planned (the plan is Volatile: the key changes as the cursor moves).

// CursorTarget is what planning a cursor's query found: the table it
// simply scans (nil when it is not such a scan) and the output columns
// holding that table's primary key, in key order.
type CursorTarget struct {
	Table *catalog.Table
	Key   []int
}

// cursorKeyTable is the table of a top-level SELECT that is a simply
// updatable scan when s plans a cursor's query, else nil.
func (b *binder) cursorKeyTable(sel *sqlparser.Select, from *fromResult, grouped bool, s *scope) *catalog.Table {
	if b.p.CursorTarget == nil || s.parent != nil || s.owner != nil || grouped || sel.Distinct {
		return nil
	}
	if len(from.rels) != 1 || from.rels[0].table == nil || from.rels[0].outer != nil {
		return nil
	}
	return from.rels[0].table
}

// currentOfFilter is the filter of WHERE CURRENT OF cursor on t (the
// first relation of its scope): t's key equals the cursor's current
// row's.
func (b *binder) currentOfFilter(t *catalog.Table) ([]Expr, error) {
	if b.p.CurrentOf == nil {
		return nil, pgerror.New(pgerror.FeatureNotSupported, "WHERE CURRENT OF is not supported here")
	}
	b.p.Volatile = true
	key, err := b.p.CurrentOf(b.currentOf, t)
	if err != nil {
		return nil, err
	}
	var out []Expr
	for i, o := range t.PrimaryKey {
		c := t.Columns[o]
		out = append(out, &BinOp{Op: "=", T: tBool,
			L: &ColRef{Index: o, T: c.Type, Name: c.Name},
			R: &Const{Value: key[i], T: c.Type}})
	}
	return out, nil
}

// CurrentRowKey is Planner.CurrentOf's contract spelled for its
// implementers: the key of the row cursor stands on, in t's primary key
// order, or 34000 / 24000 as PostgreSQL reports a missing cursor, one on
// another table or one not on a row.
type CurrentRowKey func(cursor string, t *catalog.Table) ([]types.Datum, error)
