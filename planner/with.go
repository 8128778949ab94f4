package planner

import (
	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/types"
	"vitess.io/vitess/go/vt/sqlparser"
)

// cteDef is a WITH query that table references may name. Each reference
// binds its query again, as a derived table (PostgreSQL inlines such
// queries too; they have no side effects kvsql supports).
type cteDef struct {
	name string
	cols sqlparser.Columns
	sel  sqlparser.TableStatement
	// visible is how many of binder.ctes the query itself may name: those
	// defined before it (a WITH query does not see itself or later ones
	// without RECURSIVE).
	visible int
	// recursive: defined under WITH RECURSIVE, so the query may name
	// itself in the second branch of its UNION [ALL]; work is set while
	// that branch is bound, and references to the query read it.
	recursive bool
	work      *WorkTable
	workUsed  bool
	// shared: the query is evaluated once per statement and every
	// reference reads its stored rows (sharesCTE),
	// as PostgreSQL does; scan is the first reference's plan, whose Query
	// the later ones share.
	shared bool
	scan   *CTEScan
}

// with makes the queries of w visible to table references until the
// returned function is called.
func (b *binder) with(w *sqlparser.With, st sqlparser.TableStatement) (func(), error) {
	saved := len(b.ctes)
	restore := func() { b.ctes = b.ctes[:saved] }
	if w == nil {
		return restore, nil
	}
	seen := map[string]bool{}
	for _, c := range w.CTEs {
		name := c.ID.String()
		if seen[name] {
			restore()
			return restore, pgerror.Newf(pgerror.DuplicateAlias, "WITH query name %q specified more than once", name)
		}
		seen[name] = true
		shared := !w.Recursive && b.sharesCTE(name, c.Subquery, st)
		b.ctes = append(b.ctes, cteDef{name: name, cols: c.Columns, sel: c.Subquery, visible: len(b.ctes), recursive: w.Recursive, shared: shared})
	}
	return restore, nil
}

// cteRelation binds a reference to WITH query name, or returns nil when no
// WITH query of that name is visible.
func (b *binder) cteRelation(name, alias string, names sqlparser.Columns, s *scope) (*relation, error) {
	for i := len(b.ctes) - 1; i >= 0; i-- {
		def := b.ctes[i]
		if def.name != name {
			continue
		}
		if def.work != nil {
			b.ctes[i].workUsed = true
			r, err := derived(def.work, alias, nil)
			if err != nil {
				return nil, err
			}
			return renameColumns(r, names)
		}
		if u, ok := def.sel.(*sqlparser.Union); ok && def.recursive {
			n, err := b.recursiveCTE(i, u, s)
			if err != nil || n == nil {
				return nil, err
			}
			r, err := derived(n, alias, nil)
			if err != nil {
				return nil, err
			}
			return renameColumns(r, names)
		}
		if def.shared {
			r, err := b.sharedCTE(i, alias, s)
			if err != nil || r != nil {
				if err != nil {
					return nil, err
				}
				return renameColumns(r, names)
			}
		}
		saved := b.ctes
		b.ctes = b.ctes[:def.visible:def.visible]
		n, err := b.selectStatement(def.sel, &scope{parent: s.parent, owner: s})
		b.ctes = saved
		if err != nil {
			return nil, err
		}
		if len(def.cols) > len(n.Columns()) {
			return nil, pgerror.Newf(pgerror.InvalidColumnReference, "WITH query %q has %d columns available but %d columns specified", name, len(n.Columns()), len(def.cols))
		}
		r, err := derived(n, alias, def.cols)
		if err != nil {
			return nil, err
		}
		return renameColumns(r, names)
	}
	return b.modifiedRelation(name, alias, names) // modifying.go
}

// recursiveCTE binds the WITH RECURSIVE query b.ctes[i], whose body is u:
// the first branch alone, then the second with references to the query
// reading the WorkTable. A second branch that does not name the query
// makes an ordinary UNION.
func (b *binder) recursiveCTE(i int, u *sqlparser.Union, s *scope) (Node, error) {
	def := b.ctes[i]
	if len(u.OrderBy) > 0 || u.Limit != nil {
		return nil, pgerror.Newf(pgerror.FeatureNotSupported, "ORDER BY or LIMIT in a recursive query is not implemented")
	}
	saved := b.ctes
	defer func() { b.ctes = saved }()
	b.ctes = saved[:def.visible:def.visible]
	left, err := b.selectStatement(u.Left, &scope{parent: s.parent, owner: s})
	if err != nil {
		return nil, err
	}
	cols := append([]Column{}, left.Columns()...)
	if len(def.cols) > len(cols) {
		return nil, pgerror.Newf(pgerror.InvalidColumnReference, "WITH query %q has %d columns available but %d columns specified", def.name, len(cols), len(def.cols))
	}
	for k := range cols {
		cols[k].Table, cols[k].Merged = "", false
		if cols[k].T.Family == types.Unknown {
			cols[k].T = tText
		}
		if k < len(def.cols) {
			cols[k].Name = def.cols[k].String()
		}
	}
	b.works++
	work := &WorkTable{ID: b.works, Name: def.name, Cols: cols}
	b.ctes = append(saved[:i:i], saved[i:]...) // a copy: the outer list is not changed
	b.ctes[i].work, b.ctes[i].workUsed = work, false
	b.ctes = b.ctes[:def.visible+1]
	right, err := b.selectStatement(u.Right, &scope{parent: s.parent, owner: s})
	if err != nil {
		return nil, err
	}
	used := b.ctes[i].workUsed
	if !used {
		return setOp(Union, !u.Distinct, left, right)
	}
	n, err := setOp(Union, !u.Distinct, left, right)
	if err != nil {
		return nil, err
	}
	so, ok := n.(*SetOp)
	if !ok {
		return nil, pgerror.New(pgerror.Internal, "recursive query: unexpected union plan")
	}
	for k, c := range so.Cols {
		if c.T != left.Columns()[k].T && left.Columns()[k].T.Family != types.Unknown {
			return nil, pgerror.Newf(pgerror.DatatypeMismatch, "recursive query %q column %d has type %s in non-recursive term but type %s overall", def.name, k+1, left.Columns()[k].T, c.T)
		}
	}
	return &RecursiveUnion{Init: so.Left, Step: so.Right, All: so.All, ID: work.ID, Name: def.name, Cols: cols}, nil
}

// sharedCTE binds a reference to the shared WITH query b.ctes[i] as a
// CTEScan reading the rows the query's single evaluation stores. The
// first reference binds the query without the enclosing queries' columns;
// a query that needs them (a correlated one), or that reads a WITH
// RECURSIVE work table, is not shared: sharedCTE returns nil and the
// reference is inlined as before.
func (b *binder) sharedCTE(i int, alias string, s *scope) (*relation, error) {
	def := b.ctes[i]
	if def.scan == nil {
		saved := b.ctes
		b.ctes = b.ctes[:def.visible:def.visible]
		// A query reading a WITH RECURSIVE work table changes every
		// round, so it cannot be stored once: note which work tables
		// the bind reads.
		was := make([]bool, def.visible)
		for j := range was {
			was[j], b.ctes[j].workUsed = b.ctes[j].workUsed, false
		}
		n, err := b.selectStatement(def.sel, &scope{owner: &scope{}})
		readsWork := false
		for j := range was {
			readsWork = readsWork || b.ctes[j].workUsed
			b.ctes[j].workUsed = b.ctes[j].workUsed || was[j]
		}
		b.ctes = saved
		if err != nil || readsWork {
			b.ctes[i].shared = false
			return nil, nil
		}
		if len(def.cols) > len(n.Columns()) {
			return nil, pgerror.Newf(pgerror.InvalidColumnReference, "WITH query %q has %d columns available but %d columns specified", def.name, len(n.Columns()), len(def.cols))
		}
		b.works++
		b.ctes[i].scan = &CTEScan{ID: b.works, Name: def.name, Query: n, First: true}
		return derived(b.ctes[i].scan, alias, def.cols)
	}
	scan := &CTEScan{ID: def.scan.ID, Name: def.name, Query: def.scan.Query}
	return derived(scan, alias, def.cols)
}

// sharesCTE reports whether the WITH query name, sel, is evaluated once
// and stored, as PostgreSQL decides: always when declared AS
// MATERIALIZED or when it calls a volatile function; otherwise when st
// names it more than once, unless declared AS NOT MATERIALIZED.
func (b *binder) sharesCTE(name string, sel sqlparser.TableStatement, st sqlparser.TableStatement) bool {
	if hasVolatileCall(sel) {
		return true
	}
	if mat, ok := b.cteMat[name]; ok {
		return mat
	}
	return cteReferences(st, name) > 1
}

// cteReferences counts the table references in st that may name the WITH
// query name (an unqualified table name equal to it). A reference to a
// nested WITH query of the same name counts too: sharing then costs a
// stored copy, never a different answer.
func cteReferences(st sqlparser.SQLNode, name string) int {
	n := 0
	_ = sqlparser.Walk(func(node sqlparser.SQLNode) (bool, error) {
		if t, ok := node.(sqlparser.TableName); ok && t.Qualifier.IsEmpty() && t.Name.String() == name {
			n++
		}
		return true, nil
	}, st)
	return n
}

// hasVolatileCall reports whether st calls a volatile function.
func hasVolatileCall(st sqlparser.SQLNode) bool {
	found := false
	_ = sqlparser.Walk(func(node sqlparser.SQLNode) (bool, error) {
		if f, ok := node.(*sqlparser.FuncExpr); ok && volatileFunc(f.Name.Lowered()) {
			found = true
		}
		return !found, nil
	}, st)
	return found
}
