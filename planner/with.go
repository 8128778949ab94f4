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
}

// with makes the queries of w visible to table references until the
// returned function is called.
func (b *binder) with(w *sqlparser.With) (func(), error) {
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
		b.ctes = append(b.ctes, cteDef{name: name, cols: c.Columns, sel: c.Subquery, visible: len(b.ctes), recursive: w.Recursive})
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
	return nil, nil
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
