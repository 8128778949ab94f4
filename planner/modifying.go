package planner

import (
	"github.com/kvsql/kvsql/pgerror"
	"vitess.io/vitess/go/vt/sqlparser"
)

// ModifiedRows reads the rows a data-modifying WITH query returned
// (parse.ModifyingCTE): the session runs that query before the statement
// and hands its RETURNING rows to exec under Name (exec.Ctx.Modified).
type ModifiedRows struct {
	Name string
	Cols []Column
}

func (n *ModifiedRows) Columns() []Column { return n.Cols }
func (n *ModifiedRows) Children() []Node  { return nil }

// modifiedRelation binds a reference to the data-modifying WITH query
// name, or returns nil when the statement has none of that name.
func (b *binder) modifiedRelation(name, alias string, names sqlparser.Columns) (*relation, error) {
	cols, ok := b.p.Modifying[name]
	if !ok {
		return nil, nil
	}
	if len(cols) == 0 {
		return nil, pgerror.Newf(pgerror.FeatureNotSupported, "WITH query %q does not have a RETURNING clause", name)
	}
	r, err := derived(&ModifiedRows{Name: name, Cols: cols}, alias, nil)
	if err != nil {
		return nil, err
	}
	return renameColumns(r, names)
}
