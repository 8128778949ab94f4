package planner

import (
	"github.com/kvsql/kvsql/pgerror"
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
}

// with makes the queries of w visible to table references until the
// returned function is called.
func (b *binder) with(w *sqlparser.With) (func(), error) {
	saved := len(b.ctes)
	restore := func() { b.ctes = b.ctes[:saved] }
	if w == nil {
		return restore, nil
	}
	if w.Recursive {
		return restore, pgerror.New(pgerror.FeatureNotSupported, "WITH RECURSIVE is not supported")
	}
	seen := map[string]bool{}
	for _, c := range w.CTEs {
		name := c.ID.String()
		if seen[name] {
			restore()
			return restore, pgerror.Newf(pgerror.DuplicateAlias, "WITH query name %q specified more than once", name)
		}
		seen[name] = true
		b.ctes = append(b.ctes, cteDef{name: name, cols: c.Columns, sel: c.Subquery, visible: len(b.ctes)})
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
