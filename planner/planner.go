package planner

import (
	"github.com/kvsql/kvsql/catalog"
	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/planner/parse"
	"github.com/kvsql/kvsql/types"
	"vitess.io/vitess/go/vt/sqlparser"
)

// Planner turns parsed statements into physical plans against one
// catalog snapshot and database.
type Planner struct {
	Catalog *catalog.Catalog
	DB      string
	// Modifying holds the RETURNING columns of the statement's
	// data-modifying WITH queries by name (none: no RETURNING), which
	// its table references read as ModifiedRows.
	Modifying map[string][]Column
	// Privilege checks the current user's privileges on the relations a
	// statement uses (privilege.go); nil checks nothing (a superuser).
	// AsRole is the role checked, 0 for the current user (a view's
	// owner while its query is bound).
	Privilege PrivilegeCheck
	AsRole    uint64
	// Bootstrap names the bootstrap superuser (OID 10) in pg_roles and
	// ACLs: the session's login user unless that is a stored role.
	Bootstrap string
	// SearchPath is the session's search_path, parsed (SearchPath):
	// unqualified relation names are looked up in these schemas; nil
	// means public alone.
	SearchPath []string
	// TempSchema is the session's schema of temporary relations
	// (catalog.TempSchemaPrefix), which the qualifier pg_temp names.
	TempSchema string
	// Disabled names optimizer rules to skip (see Rules); differential
	// tests use it to check each rule preserves results.
	Disabled map[string]bool
	// VectorMinRows is the estimated table size from which the vectorize
	// rule runs scans, filters, aggregations and hash joins in batches
	// (vectorize.go): 0 means DefaultVectorMinRows, a negative value
	// every size (tests).
	VectorMinRows float64
	// RowCount estimates a table's rows when no ANALYZE statistics exist;
	// nil means a fixed guess.
	RowCount func(t *catalog.Table) float64
	// WriteMatView lets an INSERT write a materialized view (REFRESH
	// fills one so); statements from clients never may.
	WriteMatView bool
	// Call plans a CALL: its routine must be a procedure (a SELECT's
	// must be a function).
	Call bool
	// ArgNames are the argument names of the SQL function whose body is
	// being planned ("" for an unnamed one), RoutineName its name: a
	// name the query's columns do not have reads the argument ($n).
	ArgNames    []string
	RoutineName string
	// Activity lists the server's sessions for pg_stat_activity; nil
	// means none.
	Activity func() []BackendActivity
	// Cursors lists the session's open cursors for pg_cursors; nil
	// means none.
	Cursors func() []CursorInfo
	// CursorTarget, set by the caller when it plans a cursor's query,
	// is filled in by planning (currentof.go).
	CursorTarget *CursorTarget
	// CurrentOf reads the key of a cursor's current row for WHERE
	// CURRENT OF; nil refuses the clause.
	CurrentOf CurrentRowKey
	// Volatile is set by planning when the plan holds rows that change
	// without the catalog changing (pg_stat_activity's): the caller must
	// not reuse it for another execution.
	Volatile bool

	// comps caches the composite types planning resolved, so every use
	// of one type in a plan shares one *types.Composite (usertype.go).
	comps map[string]*types.Composite
}

// Plan plans a query or DML statement. paramTypes are the types the client
// declared for $1..$n (Unknown where it left them open); the returned
// slice has the inferred type of every parameter.
func (p *Planner) Plan(st *parse.Statement, paramTypes []types.T) (Node, []types.T, error) {
	b := &binder{p: p, params: append([]types.T(nil), paramTypes...)}
	n, err := b.statement(st)
	if err != nil {
		return nil, nil, err
	}
	inferParams(n, b.params)
	n = b.showOIDNames(n)
	for i, t := range b.params {
		if t.Family == types.Unknown {
			b.params[i] = tText
		}
	}
	b.vectorize(n)
	return n, b.params, nil
}

// binder holds the state of planning one statement.
type binder struct {
	p      *Planner
	params []types.T
	ctes   []cteDef // the WITH queries in scope, innermost last
	works  int      // WorkTable IDs handed out
	// forceGroup makes the next SELECT block an aggregation even with no
	// GROUP BY or aggregate: the empty grouping set of ROLLUP, CUBE or
	// GROUPING SETS yields one row.
	forceGroup bool
	// setOpBranch marks the next query bound as a branch of a set
	// operation; keepUnknown tells its SELECT block to leave untyped
	// output columns for the operation to resolve.
	setOpBranch, keepUnknown bool
	// frames are the statement's window frame clauses
	// (parse.Statement.Frames).
	frames []parse.WindowFrame
	// currentOf is the cursor of UPDATE / DELETE ... WHERE CURRENT OF.
	currentOf string
	// inlining holds the SQL functions whose bodies are being inlined
	// (inline.go), outermost first: a recursive call is not inlined.
	inlining []uint64
	// aggFilter is the FILTER (WHERE ...) condition of the aggregate call
	// being bound (parse.MarkerAggFilter); aggregateOrdered takes it.
	aggFilter sqlparser.Expr
	// setOps are the statement's hoisted INTERSECT/EXCEPT queries
	// (parse.Statement.SetOps), named in FROM as parse.MarkerSetOp+i.
	setOps []*parse.Statement
	// cteMat are the statement's WITH queries declared [NOT]
	// MATERIALIZED (parse.Statement.CTEMaterialized).
	cteMat map[string]bool
	// lockOf names the tables FOR UPDATE / FOR SHARE OF locks
	// (parse.Statement.LockOf).
	lockOf []string
}

func (b *binder) enabled(rule string) bool { return !b.p.Disabled[rule] }

func (b *binder) statement(st *parse.Statement) (Node, error) {
	b.frames = st.Frames
	b.currentOf = st.CurrentOf
	b.setOps = st.SetOps
	b.cteMat = st.CTEMaterialized
	b.lockOf = st.LockOf
	if st.Compound != nil {
		return b.compound(st.Compound, &scope{})
	}
	switch ast := st.AST.(type) {
	case sqlparser.TableStatement:
		return b.selectStatement(ast, &scope{})
	case *sqlparser.Insert:
		return b.insert(ast, st.Returning, st.Overriding, st.OnConflict, st.TargetAlias)
	case *sqlparser.Update:
		return b.update(ast, st.Returning)
	case *sqlparser.Delete:
		return b.delete(ast, st.Returning, st.TargetAlias)
	}
	return nil, pgerror.Newf(pgerror.FeatureNotSupported, "statement not supported: %s", st.SQL)
}

// compound plans INTERSECT / EXCEPT (and UNION mixed with them).
func (b *binder) compound(c *parse.Compound, s *scope) (Node, error) {
	side := func(st *parse.Statement) (Node, error) {
		if st.Compound != nil {
			return b.compound(st.Compound, s)
		}
		ts, ok := st.AST.(sqlparser.TableStatement)
		if !ok {
			return nil, pgerror.New(pgerror.SyntaxError, "set operation operand is not a query")
		}
		b.setOpBranch = true
		return b.selectStatement(ts, &scope{parent: s.parent, owner: s})
	}
	left, err := side(c.Left)
	if err != nil {
		return nil, err
	}
	right, err := side(c.Right)
	if err != nil {
		return nil, err
	}
	op := Union
	switch c.Op {
	case "INTERSECT":
		op = Intersect
	case "EXCEPT":
		op = Except
	}
	n, err := setOp(op, c.All, left, right)
	if err != nil {
		return nil, err
	}
	return b.orderLimitOutput(n, c.OrderBy, c.Limit, s)
}

// inferParams gives each parameter of unknown type the type it is first
// cast or coerced to.
//
// A subquery's plan is searched too: a parameter only a subquery reads
// (WHERE a = (SELECT max(a) FROM t WHERE id < $1)) gets the type it was
// cast to there, as in PostgreSQL, not text.
func inferParams(n Node, params []types.T) {
	walkPlanExprs(n, func(e Expr) {
		walkExpr(e, func(x Expr) bool {
			switch x := x.(type) {
			case *Cast:
				if p, ok := x.X.(*Param); ok && p.N <= len(params) && params[p.N-1].Family == types.Unknown {
					params[p.N-1] = x.T
				}
			case *Subquery:
				if x.Plan != nil {
					inferParams(x.Plan, params)
				}
			}
			return true
		})
	})
}
