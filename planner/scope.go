package planner

import (
	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/types"
)

// scope is the set of columns an expression can name: the columns of the
// FROM clause, in FROM order, plus the enclosing queries' scopes for
// correlated references.
type scope struct {
	cols []Column
	// using and star are the FROM clause's merged USING columns and the
	// order of an unqualified * (see fromResult); star nil means every
	// visible column in order.
	using  []*usingCol
	star   []starItem
	parent *scope
	// owner, for a query nested in another's FROM, set operation, join
	// condition or LIMIT (bound with the other's parent as its parent),
	// is that other query's scope: what the nested query reads from
	// enclosing queries, its owner reads too.
	owner *scope
	// agg collects aggregate calls while binding a select list, HAVING or
	// ORDER BY of a grouped query; nil where aggregates are not allowed.
	agg *aggCollector
	// win collects window function calls while binding a select list or
	// ORDER BY; nil where window functions are not allowed.
	win *winCollector
	// aggContext names the clause for the "not allowed" error.
	aggContext string
	// insertTarget, in an INSERT's VALUES row, is the type of the column
	// the value is for: what parse.MarkerInsertTarget stands for.
	insertTarget *types.T
	// correlated is set on the subquery scope when a column of an
	// enclosing scope is referenced.
	correlated bool
	// outputAliases are the select list's aliases, visible to ORDER BY and
	// GROUP BY by name.
	aliases map[string]Expr
	// lateralOnly marks the scope of the FROM items before a LATERAL
	// item: the subqueries inside that item may read them, its join
	// conditions may not.
	lateralOnly bool
}

// joinParent is the scope a join condition's enclosing references
// resolve in: s's parent, less the FROM items only LATERAL may read.
func (s *scope) joinParent() *scope {
	p := s.parent
	for p != nil && p.lateralOnly {
		p = p.parent
	}
	return p
}

// resolve finds the column qualifier.name, searching enclosing scopes: a
// column reference, or the expression of a merged USING column.
func (s *scope) resolve(qualifier, name string) (Expr, error) {
	depth := 0
	for sc := s; sc != nil; sc = sc.parent {
		var found Expr
		n := 0
		for _, u := range sc.using {
			if u.name == name && (qualifier == "" || u.alias == qualifier) {
				found, n = u.expr, n+1
			}
		}
		for i, c := range sc.cols {
			if c.Name != name || (qualifier != "" && c.Table != qualifier) {
				continue
			}
			if (c.Hidden || c.Merged) && qualifier == "" && name != "rowid" && name != "tableoid" {
				continue
			}
			found, n = &ColRef{Index: i, T: c.T, Name: qualifiedName(c)}, n+1
		}
		if n == 0 && name == "tableoid" {
			var first string
			if found, n, first = sc.tableoid(qualifier); n > 1 {
				// PostgreSQL's words for an unqualified system column of
				// several tables.
				e := pgerror.New(pgerror.UndefinedColumn, `column "tableoid" does not exist`)
				e.Hint = `There is a column named "tableoid" in table "` + first + `", but it cannot be referenced from this part of the query.`
				return nil, e
			}
		}
		if n > 1 {
			return nil, pgerror.Newf(pgerror.AmbiguousColumn, "column reference %q is ambiguous", name)
		}
		if n == 1 {
			if depth == 0 {
				return found, nil
			}
			s.markCorrelated(sc)
			return mapExpr(found, func(x Expr) (Expr, error) {
				if c, ok := x.(*ColRef); ok && c.Outer == 0 {
					return &ColRef{Index: c.Index, Outer: depth, T: c.T, Name: c.Name}, nil
				}
				return x, nil
			})
		}
		depth++
	}
	if qualifier != "" {
		if !s.hasTable(qualifier) {
			return nil, pgerror.Newf(pgerror.UndefinedTable, "missing FROM-clause entry for table %q", qualifier)
		}
		return nil, pgerror.Newf(pgerror.UndefinedColumn, "column %s.%s does not exist", qualifier, name)
	}
	return nil, pgerror.Newf(pgerror.UndefinedColumn, "column %q does not exist", name)
}

// tableoid resolves the system column tableoid of the tables sc's FROM
// items read directly (Column.Base; a tree of partitions or children
// has a real hidden tableoid column instead, inherit.go): the OID of
// the one such table the qualifier names, or of the only one when there
// is no qualifier. n counts the tables it could be; first is the first
// one's name.
func (sc *scope) tableoid(qualifier string) (found Expr, n int, first string) {
	seen := ""
	for _, c := range sc.cols {
		if !c.Base || qualifier != "" && c.Table != qualifier || n > 0 && c.Table == seen {
			continue
		}
		if n == 0 {
			found, first = oidConst(int64(c.TableID)), c.Table
		}
		n, seen = n+1, c.Table
	}
	return found, n, first
}

// markCorrelated records that s reads the columns of the enclosing scope
// sc: every query between them is correlated.
func (s *scope) markCorrelated(sc *scope) {
	for in := s; in != sc; in = in.parent {
		for o := in; o != nil; o = o.owner {
			o.correlated = true
		}
	}
}

func (s *scope) hasTable(name string) bool {
	for sc := s; sc != nil; sc = sc.parent {
		for _, c := range sc.cols {
			if c.Table == name {
				return true
			}
		}
		for _, u := range sc.using {
			if u.alias == name {
				return true
			}
		}
	}
	return false
}

func qualifiedName(c Column) string {
	if c.Table == "" {
		return c.Name
	}
	return c.Table + "." + c.Name
}

// aggCollector gathers the aggregate calls of a grouped query.
type aggCollector struct {
	calls []AggCall
	keys  []string // String() of each call, to share identical calls
}

// aggRef stands for aggregate i until the grouped query is assembled and
// it is replaced by a ColRef into the Aggregate node's output.
type aggRef struct {
	i int
	t types.T
}

func (e *aggRef) Type() types.T  { return e.t }
func (e *aggRef) String() string { return "agg#" + itoa(e.i) }

func (a *aggCollector) add(call AggCall) *aggRef {
	key := aggString(call)
	for i, k := range a.keys {
		if k == key {
			return &aggRef{i: i, t: call.T}
		}
	}
	a.calls = append(a.calls, call)
	a.keys = append(a.keys, key)
	return &aggRef{i: len(a.calls) - 1, t: call.T}
}
