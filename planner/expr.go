package planner

import (
	"github.com/kvsql/kvsql/types"
)

// Expr is a bound scalar expression: every column reference is resolved
// to a position in the input row, every literal has a type, and every
// node knows its result type. The set of node types is closed; package
// exec evaluates them. Nodes are immutable once built.
type Expr interface {
	// Type is the SQL type of the expression's value.
	Type() types.T
	String() string
}

// Const is a literal value.
type Const struct {
	Value types.Datum
	T     types.T
}

// ColRef reads column Index of the current input row. Outer > 0 reads from
// an enclosing query's row instead (a correlated reference): Outer=1 is the
// row of the query immediately enclosing the subquery, and so on.
type ColRef struct {
	Index int
	Outer int
	T     types.T
	Name  string // for EXPLAIN only
	// Agg marks an outer-level aggregate while the enclosing query is
	// bound: aggregate Index of the query Outer levels out, which its
	// grouping turns into a reference to the Aggregate's output
	// (outerAggregate, groupOuterRefs).
	Agg bool
}

// Param is the query parameter $N (1-based).
type Param struct {
	N int
	T types.T
}

// UnaryOp is -x, +x, NOT x, or ~x (bitwise not).
type UnaryOp struct {
	Op string // "-", "+", "NOT", "~"
	X  Expr
	T  types.T
}

// BinOp is an arithmetic, bitwise, string or comparison operator.
//
// Arithmetic: "+", "-", "*", "/", "%" (PostgreSQL semantics: integer
// overflow is 22003, integer division truncates, division by zero is
// 22012). "||" concatenates. Bitwise: "&", "|", "#", "<<", ">>".
// Comparisons: "=", "<>", "<", "<=", ">", ">=" yield BOOL with NULL
// propagation; "IS DISTINCT FROM" and "IS NOT DISTINCT FROM" never yield
// NULL. Operands have already been coerced to a common type by the planner
// (Cast nodes), except that int and float may meet: exec promotes to float.
type BinOp struct {
	Op   string
	L, R Expr
	T    types.T
}

// And, Or are n-ary with SQL's three-valued logic.
type And struct{ Args []Expr }
type Or struct{ Args []Expr }

// IsNull is x IS NULL (Not: IS NOT NULL).
type IsNull struct {
	X   Expr
	Not bool
}

// IsBool is x IS [NOT] TRUE / FALSE.
type IsBool struct {
	X     Expr
	Value bool
	Not   bool
}

// In is x [NOT] IN (list). SQL's NULL rules: if x is NULL, or no element
// equals x and some element is NULL, the result is NULL.
type In struct {
	X    Expr
	List []Expr
	Not  bool
}

// Like is x [NOT] LIKE pattern [ESCAPE e]; CaseInsensitive for ILIKE.
type Like struct {
	X, Pattern      Expr
	Escape          Expr // nil for the default backslash
	Not             bool
	CaseInsensitive bool
}

// Case is CASE [operand] WHEN ... THEN ... [ELSE ...] END. With an
// Operand, each When is compared for equality with it.
type Case struct {
	Operand Expr
	Whens   []When
	Else    Expr // nil means NULL
	T       types.T
}

// When is one arm of a Case.
type When struct{ Cond, Val Expr }

// Cast converts X to type T (22P02 on bad text, 22003 on overflow).
type Cast struct {
	X Expr
	T types.T
	// Domain, for a cast to a domain, is the domain's constraint, which
	// the cast's result must satisfy (T is the domain's base type).
	Domain *DomainConstraint
}

// Func is a call of a scalar function by its lower-case name (abs,
// coalesce, nullif, length, lower, upper, substr, trim, ...). exec owns the
// list of functions; the planner checks arity and types through
// FuncType.
type Func struct {
	Name string
	Args []Expr
	T    types.T
}

// SubqueryKind says how a subquery's rows become a value.
type SubqueryKind uint8

const (
	// SubScalar yields the single column of the single row (NULL for no
	// rows; 21000 for more than one).
	SubScalar SubqueryKind = iota
	// SubExists yields whether the subquery returns any row.
	SubExists
	// SubIn yields X IN (subquery) with SQL's NULL rules (Not: NOT IN).
	SubIn
	// SubAny / SubAll: X op ANY|ALL (subquery).
	SubAny
	SubAll
	// SubArray yields ARRAY(subquery): the single column of every row,
	// in order, as an array (empty for no rows).
	SubArray
)

// Subquery is a nested query used as a value. Correlated subqueries refer
// to enclosing rows through ColRef.Outer and are re-run per outer row;
// uncorrelated ones run once per execution and are cached.
type Subquery struct {
	Kind       SubqueryKind
	Plan       Node
	X          Expr   // for SubIn/SubAny/SubAll
	Op         string // comparison for SubAny/SubAll
	Not        bool   // NOT IN
	Correlated bool
	T          types.T
}

// AggRef reads aggregate result Index of the Aggregate node below (used in
// the projection and HAVING above an Aggregate). It is a ColRef in all but
// name: exec evaluates it as a column read.
// (Aggregates are planned as output columns of Aggregate nodes; the
// expressions above refer to them with ColRef.)

func (e *Const) Type() types.T    { return e.T }
func (e *ColRef) Type() types.T   { return e.T }
func (e *Param) Type() types.T    { return e.T }
func (e *UnaryOp) Type() types.T  { return e.T }
func (e *BinOp) Type() types.T    { return e.T }
func (e *And) Type() types.T      { return types.T{Family: types.Bool} }
func (e *Or) Type() types.T       { return types.T{Family: types.Bool} }
func (e *IsNull) Type() types.T   { return types.T{Family: types.Bool} }
func (e *IsBool) Type() types.T   { return types.T{Family: types.Bool} }
func (e *In) Type() types.T       { return types.T{Family: types.Bool} }
func (e *Like) Type() types.T     { return types.T{Family: types.Bool} }
func (e *Case) Type() types.T     { return e.T }
func (e *Cast) Type() types.T     { return e.T }
func (e *Func) Type() types.T     { return e.T }
func (e *Subquery) Type() types.T { return e.T }
