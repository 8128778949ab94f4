package planner

import (
	"github.com/kvsql/kvsql/catalog"
	"github.com/kvsql/kvsql/types"
)

// Node is a physical plan node. The set of node types is closed (the
// structs in this file); package exec builds one operator per node. Every
// node produces rows whose layout is given by Columns.
type Node interface {
	// Columns describes the rows the node produces, in order.
	Columns() []Column
	// Children returns the node's inputs (for EXPLAIN and rewrites).
	Children() []Node
}

// Column is one column of a node's output.
type Column struct {
	Name   string
	Table  string // the table name or alias it comes from, "" if computed
	T      types.T
	Hidden bool // not expanded by *, e.g. a hidden rowid
	// Key marks a base table's primary-key column (a hidden rowid too),
	// which no stored row has NULL: wholeRow's test for a row an outer
	// join made up.
	Key bool
	// NullExtended marks a column of an outer join's nullable side: a
	// row the join makes up has it NULL.
	NullExtended bool
	// Merged marks a column a USING join merged with another: unqualified
	// names and * see the merged column (scope.using) instead, qualified
	// names and t.* still see this one.
	Merged bool
	// TableOID and Attr identify a base-table column for RowDescription
	// (0 when computed).
	TableID uint32
	Attr    int16
	// Base marks a column of a table its FROM item reads directly (not
	// through a subquery or view), whose system column tableoid is then
	// TableID (scope.resolve).
	Base bool
}

// AccessKind is how a Scan reads its table: the key-value operations that
// EXPLAIN names.
type AccessKind uint8

const (
	// FullScan iterates the whole master file.
	FullScan AccessKind = iota
	// PKGet is a master-file get per span (each span fixes every
	// primary-key column: Lo == Hi, inclusive).
	PKGet
	// PKRange scans the master file over spans of a primary-key prefix.
	PKRange
	// UniqueGet gets a unique index entry per span (every index column
	// fixed), then the master row unless IndexOnly.
	UniqueGet
	// IndexRange scans a key+id (or unique) index over spans, then gets
	// master rows unless IndexOnly.
	IndexRange
	// InvertedGet reads the inverted-list record of each span's search
	// value, then gets master rows unless IndexOnly.
	InvertedGet
)

// Span bounds a scan over a prefix of the key columns of the primary key
// or of Index. Bound expressions are constants or parameters evaluated
// when the scan opens, of the key column's type or of another numeric
// type: they are not cast, exec finds the key values that compare with
// them (index.KeyRange; an equality may become a range there, which ends
// the span). One that evaluates to NULL makes the span empty (no key
// compares true with NULL). Nil Lo or Hi is unbounded on that side. The
// equalities of a span are the leading elements Lo and Hi share.
//
// A nil ELEMENT of Lo or Hi is the NULL key value itself, which sorts
// after every value of an ascending column (before, descending): it is
// how IS NULL and IS NOT NULL bound a key column. col IS NULL is the
// value nil on both sides (EXPLAIN: col IS NULL); col IS NOT NULL on an
// ascending column is Hi = nil with HiExcl, on a descending one Lo = nil
// with LoExcl (EXPLAIN: col IS NOT NULL).
type Span struct {
	Lo, Hi         []Expr
	LoExcl, HiExcl bool
}

// Scan reads rows of one table through one access path and produces
// full-width rows (one value per table column, catalog order, hidden rowid
// included; with IndexOnly only the index's key, INCLUDE and primary-key
// columns are filled). Filter, if set, is applied to each row before it is produced.
type Scan struct {
	Table     *catalog.Table
	Alias     string
	Access    AccessKind
	Index     *catalog.Index // nil for FullScan, PKGet, PKRange
	Spans     []Span         // none for FullScan
	IndexOnly bool
	Reverse   bool
	Filter    Expr
	// SpanFilter holds the conjuncts of the WHERE that Spans decide
	// exactly (an equality of a key column with a value of its own type),
	// left out of Filter so the scan does not test them on every row. A
	// plan that reads the table some other way (a lookup join, a new
	// access path after more filters are pushed down) tests
	// WholeFilter.
	SpanFilter Expr
	// Needed lists the table columns (ordinals, ascending) that are
	// decoded; the others are NULL in the produced full-width row. Nil
	// means every column. It holds every column Filter or any node above
	// reads; primary-key columns come from the key and are always filled.
	Needed []int
	Cols   []Column
	// Estimated rows produced, for EXPLAIN and join ordering.
	Rows float64
	// Memo, for a scan in a correlated subquery whose filter equates
	// its columns with the enclosing rows', memoizes the scan: see
	// ScanMemo. Filter stays whole for when the memo is not used.
	Memo *ScanMemo
	// Foreign, on the scan of a foreign table (Table.Foreign), says
	// which of the application's keys it reads (planner/foreign.go);
	// Access is then FullScan and Spans, Index and Needed are unused.
	Foreign *ForeignScan
	// Vectorized: the scan runs in batches of column vectors (the
	// vectorize rule, vectorize.go). Parallel: over a table of at least
	// ParallelMinRows estimated rows, the batches come from goroutines
	// reading parts of the key range; Unordered: nothing above needs
	// the rows in key order (an aggregation), else the parts' rows are
	// delivered in key order.
	Vectorized, Parallel, Unordered bool
	// KeepOrder: a node above relies on the scan's key order (a sort or
	// a streaming aggregation left out for it; scanOrders), so its
	// access path must not change (pushdown.go).
	KeepOrder bool
}

// ScanMemo turns the per-outer-row rescans of a correlated subquery into
// hash lookups: the scan runs once per execution with the Build part of
// its filter into a hash table keyed by Keys (over the scan's row), and
// every later run returns the rows whose keys equal Probes (over the
// enclosing queries' rows; a NULL probe matches nothing) and that pass
// Rest (the conjuncts that read the enclosing rows or hold a subquery).
// Over the work_mem budget, the scan runs as written instead.
type ScanMemo struct {
	Keys, Probes []Expr
	Build, Rest  Expr
}

// Values produces literal rows (VALUES lists, SELECT without FROM).
type Values struct {
	Rows [][]Expr
	Cols []Column
	// Pos, if set, is where the operator keeps the position of the row
	// it produced last, -1 once it has produced them all: COPY names
	// the input line of a row whose write failed.
	Pos *int
}

// Series produces one row per value Start, Start+Step, ... while not past
// Stop (generate_series in FROM). The bounds are integer expressions
// evaluated when the node opens; a zero Step is 22023.
type Series struct {
	Start, Stop, Step Expr
	Cols              []Column
}

// TableFunc produces the rows of a set-returning function in FROM:
// unnest (one row per element of an array, in order),
// jsonb_each[_text] and json_each[_text] (key and value per object
// member), jsonb_array_elements[_text] and json_array_elements[_text]
// (one per array element), jsonb_object_keys and json_object_keys; with
// the row's 1-based position as a last column when Ordinality is set.
// Args are evaluated when the node opens (they may read enclosing rows:
// FROM t, LATERAL unnest(t.tags)).
type TableFunc struct {
	Name       string // the function's SQL name
	Args       []Expr
	Ordinality bool
	Cols       []Column
	// Domains, for jsonb_populate_record[set], holds the constraint of
	// each column whose type is a domain (nil for the others).
	Domains []*DomainConstraint
	// AsRecord, for jsonb_populate_recordset as a select item, makes
	// each row one record value (the only column); RecordDomain is the
	// domain each record must satisfy when the base's type is one.
	AsRecord     bool
	RecordDomain *DomainConstraint
}

// WholeFilter is the scan's filter with the conjuncts its spans decide:
// every condition its rows meet, whichever way the table is read.
func (s *Scan) WholeFilter() Expr {
	switch {
	case s.SpanFilter == nil:
		return s.Filter
	case s.Filter == nil:
		return s.SpanFilter
	}
	return andOf(append(splitAnd(s.Filter), splitAnd(s.SpanFilter)...))
}

// Filter passes the rows for which Pred is true.
type Filter struct {
	Input Node
	Pred  Expr
	// OneTime marks a predicate that reads no column of the input's rows
	// (only constants, parameters and enclosing rows): it is judged once,
	// and the input is not read at all when it fails.
	OneTime bool
	// Vectorized: the filter runs over batches (vectorize.go).
	Vectorized bool
}

// Project computes Exprs over each input row.
type Project struct {
	Input Node
	Exprs []Expr
	Cols  []Column
	// Vectorized: the projection runs over batches (vectorize.go).
	Vectorized bool
}

// JoinType is the logical kind of a join.
type JoinType uint8

const (
	InnerJoin JoinType = iota
	LeftJoin
	// SemiJoin and AntiJoin produce left rows (only) that have / have no
	// match; used for decorrelated EXISTS and IN.
	SemiJoin
	AntiJoin
	// FullJoin also produces unmatched rows of both sides, padded with
	// NULLs; it runs only as a hash join (PostgreSQL's rule: FULL JOIN
	// needs a hash- or merge-joinable condition).
	FullJoin
)

// JoinAlgo is how a join runs.
type JoinAlgo uint8

const (
	NestedLoop JoinAlgo = iota
	HashJoin
	// Apply runs Right once per Left row, with that row as the
	// innermost enclosing row (ColRef.Outer 1 in Right reads it): a
	// LATERAL subquery. Only Inner and Left joins.
	Apply
)

// Join combines Left and Right rows; output rows are the left row followed
// by the right row (for Semi/Anti joins, the left row only). With
// HashJoin, LeftKeys[i] = RightKeys[i] are the equi-join keys (evaluated
// over left and right rows respectively; NULL keys never match) and
// BuildRight says which side is loaded into the hash table. On is the
// remaining condition, evaluated over the combined row. For a LeftJoin,
// unmatched left rows are produced with NULLs on the right.
type Join struct {
	Type       JoinType
	Algo       JoinAlgo
	Left       Node
	Right      Node
	LeftKeys   []Expr
	RightKeys  []Expr
	BuildRight bool
	On         Expr
	Cols       []Column
	Rows       float64
	// Vectorized: the join runs over batches (vectorize.go).
	Vectorized bool
}

// LookupJoin joins each Left row with the rows of Table found through the
// primary key (Index nil) or Index, whose leading key columns equal Keys
// (expressions over the left row, possibly of another numeric type than
// their column, as Span bounds are; On then repeats the equality). Output
// rows are the left row followed by the full-width table row. Filter
// applies to the table row alone; On to the combined row. For a LeftJoin
// unmatched left rows get NULLs.
type LookupJoin struct {
	Type   JoinType
	Left   Node
	Table  *catalog.Table
	Alias  string
	Index  *catalog.Index
	Keys   []Expr
	Filter Expr
	On     Expr
	Cols   []Column
	Rows   float64
}

// AggStrategy is how an Aggregate groups.
type AggStrategy uint8

const (
	// HashAgg groups in a hash table (spilling past the memory budget).
	HashAgg AggStrategy = iota
	// StreamAgg relies on input ordered by the group keys.
	StreamAgg
	// ScalarAgg has no GROUP BY: exactly one output row.
	ScalarAgg
)

// AggCall is one aggregate: Func is count, count_star, sum, avg, min, max,
// string_agg, bool_and, bool_or. For string_agg Args[1] is the separator.
type AggCall struct {
	Func     string
	Args     []Expr
	Distinct bool
	OrderBy  []SortKey // string_agg(x, ',' ORDER BY y)
	T        types.T
	// Filtered: the last of Args is the condition of FILTER (WHERE ...)
	// on an aggregate that keeps NULL inputs (array_agg, json_agg, ...);
	// the rows it is not true for are skipped.
	Filtered bool
	// User is set on a call of a user-defined aggregate (useragg.go).
	User *UserAgg
}

// Aggregate groups its input by GroupBy and computes Aggs per group. Each
// output row is the group key values followed by the aggregate results.
type Aggregate struct {
	Input    Node
	GroupBy  []Expr
	Aggs     []AggCall
	Strategy AggStrategy
	Cols     []Column
	// Vectorized: the aggregation consumes batches (vectorize.go).
	Vectorized bool
}

// SortKey orders rows by Expr. NullsFirst defaults to Desc (PostgreSQL).
type SortKey struct {
	Expr       Expr
	Desc       bool
	NullsFirst bool
}

// Sort orders its input (spilling past the memory budget).
type Sort struct {
	Input Node
	Keys  []SortKey
}

// TopN keeps the first Offset+Count rows in Keys order with a bounded heap
// and produces rows Offset+1 .. Offset+Count.
type TopN struct {
	Input  Node
	Keys   []SortKey
	Count  Expr
	Offset Expr // nil for none
}

// Limit skips Offset rows then passes at most Count (nil: all).
type Limit struct {
	Input  Node
	Count  Expr
	Offset Expr
	// TiesOn, for FETCH FIRST n ROWS WITH TIES, are the ORDER BY keys
	// over the input's rows: rows after the n-th that equal it on them
	// are passed too.
	TiesOn []SortKey
}

// LockRows locks the master row behind each input row (SELECT ... FOR
// UPDATE / FOR SHARE) and passes the row on; under SKIP LOCKED a row
// another transaction holds is dropped instead. Key holds the input
// ordinals of Table's primary-key columns, in primary-key order. It sits
// above any Sort and below Limit, so only rows that are returned (or
// skipped on the way) are locked.
type LockRows struct {
	Input Node
	Table *catalog.Table
	Key   []int
	Lock  RowLock
}

// RowLock is how a statement locks a row: UPDATE, DELETE and FOR
// [NO KEY] UPDATE exclusively, FOR [KEY] SHARE shared; Wait says what to
// do when another transaction holds a conflicting lock.
type RowLock struct {
	Shared bool
	Wait   LockWait
}

// LockWait is what a locking statement does about a row another
// transaction has locked.
type LockWait uint8

const (
	LockBlock  LockWait = iota // wait for the other transaction to end
	LockNoWait                 // NOWAIT: fail with 55P03
	LockSkip                   // SKIP LOCKED: leave the row out
)

// String renders the clause that asked for the lock.
func (l RowLock) String() string {
	s := "for update"
	if l.Shared {
		s = "for share"
	}
	switch l.Wait {
	case LockNoWait:
		s += " nowait"
	case LockSkip:
		s += " skip locked"
	}
	return s
}

// Distinct removes duplicate rows.
type Distinct struct {
	Input Node
}

// DistinctOn keeps the first row of each run of rows with equal values in
// columns Cols (NULLs equal): SELECT DISTINCT ON over input sorted with
// those columns first.
type DistinctOn struct {
	Input Node
	Cols  []int
}

// SetOpKind is UNION, INTERSECT or EXCEPT.
type SetOpKind uint8

const (
	Union SetOpKind = iota
	Intersect
	Except
)

// SetOp combines two inputs with the same column count. Without All,
// duplicates are removed; with All, multiset semantics.
type SetOp struct {
	Op    SetOpKind
	All   bool
	Left  Node
	Right Node
	Cols  []Column
}

// TreeWrite runs an UPDATE or DELETE of a table with partitions or
// inheritance children: one Update or Delete per member table, in turn;
// it produces their RETURNING rows and counts their rows together.
type TreeWrite struct {
	Writes []Node
	Cols   []Column
}

// Append produces the rows of each input in turn: the read of a
// partitioned table or an inheritance tree, one input per member table
// (planner/inherit.go).
type Append struct {
	Inputs []Node
	Cols   []Column
	Rows   float64 // estimated
}

// RecursiveUnion is a WITH RECURSIVE query: Init's rows, then Step's,
// run again and again, each run reading (through WorkTable ID) the rows
// the previous run produced, until a run produces none. Without All
// (UNION), a row equal to one already produced is dropped.
type RecursiveUnion struct {
	Init, Step Node
	All        bool
	ID         int
	Name       string // the WITH query's name, for EXPLAIN
	Cols       []Column
}

// WorkTable reads the rows the previous run of RecursiveUnion ID
// produced.
type WorkTable struct {
	ID   int
	Name string
	Cols []Column
}

// CTEScan reads the rows of a WITH query evaluated once per statement
// (PostgreSQL's CTE Scan): the first CTEScan of ID to be opened runs Query
// and stores its rows; every reference, and every re-open, reads them.
// First marks the reference that shows Query in EXPLAIN.
type CTEScan struct {
	ID    int
	Name  string
	Query Node
	First bool
}

// OnConflict is what an INSERT does with a row whose key exists.
type OnConflict uint8

const (
	ConflictError   OnConflict = iota // 23505
	ConflictIgnore                    // INSERT OR IGNORE / ON CONFLICT DO NOTHING
	ConflictReplace                   // INSERT OR REPLACE / REPLACE INTO
	ConflictUpdate                    // ON CONFLICT ... DO UPDATE
)

// Insert writes each Input row into Table. Input rows are full-width (one
// value per table column in catalog order; defaults and sequences already
// filled in by the planner's projection). exec casts each value to its
// column type, checks NOT NULL (23502) and widths (22001), then writes the
// master record and index entries. With Returning the node produces one
// row of Returning values (evaluated over the written full-width row) per
// inserted row; otherwise none.
type Insert struct {
	Table     *catalog.Table
	Input     Node
	Conflict  OnConflict
	Returning []Expr
	Cols      []Column
	// ReturningOID: Returning reads the hidden tableoid column, which
	// follows the row (see binder.returningOID).
	ReturningOID bool
	// Arbiter, when set, is the unique key ON CONFLICT names: a row
	// conflicting on it is skipped (ConflictIgnore) or updated
	// (ConflictUpdate); a conflict on another key is still 23505.
	Arbiter *Arbiter
	// ConflictUpdate's SET list and WHERE, over the existing row followed
	// by the row proposed for insertion (EXCLUDED).
	Set         []Assignment
	UpdateWhere Expr
	// Checks are the table's CHECK constraints over a full-width row.
	Checks []CheckExpr
	// Generated computes the table's generated columns (generated.go)
	// over the full-width row, before the checks.
	Generated []Assignment
	// FKs are the table's foreign keys: each new row's key must exist.
	FKs []FKRef
	// Referenced are the foreign keys referencing the table (for ON
	// CONFLICT DO UPDATE).
	Referenced []FKRef
	// Route, for a partitioned table, sends each row to its partition;
	// Bounds, for a partition, are the constraints its bound puts on
	// the rows written into it directly (planner/partition.go).
	Route  *PartitionRoute
	Bounds []BoundCheck
}

// FKRef is a foreign key resolved for a write: Child's columns
// ChildCols reference Parent's ParentCols, which are its primary key
// (ParentIndex nil) or the columns of the unique index ParentIndex.
type FKRef struct {
	Name        string
	Child       *catalog.Table
	ChildCols   []int
	Parent      *catalog.Table
	ParentIndex *catalog.Index
	ParentCols  []int
	OnDelete    string // as catalog.ForeignKey
	OnUpdate    string // as catalog.ForeignKey
	// MatchFull is MATCH FULL: a key mixing NULL and non-NULL values is
	// refused (under MATCH SIMPLE any NULL exempts the row).
	MatchFull bool
	// Deferrable and InitiallyDeferred are the constraint's timing
	// (exec.Deferred decides when a check runs).
	Deferrable, InitiallyDeferred bool
	// SetCols are the child columns ON DELETE SET NULL | SET DEFAULT
	// sets: ChildCols, or the columns its column list names.
	SetCols []int
	// Defaults, for an action SET DEFAULT, are the DEFAULT expressions
	// of Child's columns, by ordinal (nil where not set).
	Defaults []Expr
	// ChildRefs, for ON DELETE or ON UPDATE CASCADE, are the keys
	// referencing Child, whose rows a cascading delete or update
	// releases in turn.
	ChildRefs []FKRef
	// Parts, when Parent is partitioned (and so holds no rows), are its
	// leaf partitions' matching keys, where a referenced row is looked
	// up instead.
	Parts []FKPart
}

// FKPart is a leaf partition's key matching a foreign key's referenced
// key: its primary key (Index nil) or the unique index Index.
type FKPart struct {
	Table *catalog.Table
	Index *catalog.Index
}

// CheckExpr is a bound CHECK constraint: a row for which Expr is false
// is refused (23514); NULL passes. With View set it is the WHERE of the
// view Name, whose CHECK OPTION a row written through it must pass
// (44000); NULL fails it, as PostgreSQL's ExecWithCheckOptions has it.
type CheckExpr struct {
	Name string
	Expr Expr
	View bool
	// Domain, when set, is the constraint of column Col's domain, which
	// that column's value must satisfy (Expr is nil).
	Domain *DomainConstraint
	Col    int
}

// Arbiter is the primary key (Index nil) or a unique index of a table.
type Arbiter struct {
	Index *catalog.Index
}

// Update rewrites the rows Input produces (full-width rows of Table, from a
// Scan): column Set[i].Col gets Set[i].Expr evaluated over the old row.
type Update struct {
	Table     *catalog.Table
	Input     Node
	Set       []Assignment
	Returning []Expr
	Cols      []Column
	// ReturningOID: as Insert's.
	ReturningOID bool
	Checks       []CheckExpr  // the table's CHECK constraints
	Generated    []Assignment // the table's generated columns, as Insert's
	Bounds       []BoundCheck // a partition's bound (see Insert)
	// Move, for an UPDATE through a partitioned table, inserts (routed
	// from the partitioned table) a row whose new key leaves its
	// partition, after deleting it there, as PostgreSQL moves it.
	Move *Insert
	// FKs, the table's foreign keys, are checked for changed keys;
	// Referenced, the keys that reference the table, for a changed
	// referenced key.
	FKs, Referenced []FKRef
}

// Assignment is one SET col = expr.
type Assignment struct {
	Col  int
	Expr Expr
}

// Delete removes the rows Input produces (full-width rows of Table).
type Delete struct {
	Table     *catalog.Table
	Input     Node
	Returning []Expr
	Cols      []Column
	// ReturningOID: as Insert's.
	ReturningOID bool
	// Referenced are the foreign keys referencing the table: their
	// OnDelete says what a deleted row does to the rows referencing it.
	Referenced []FKRef
}

func (n *Scan) Columns() []Column           { return n.Cols }
func (n *Values) Columns() []Column         { return n.Cols }
func (n *Series) Columns() []Column         { return n.Cols }
func (n *TableFunc) Columns() []Column      { return n.Cols }
func (n *Filter) Columns() []Column         { return n.Input.Columns() }
func (n *Project) Columns() []Column        { return n.Cols }
func (n *Join) Columns() []Column           { return n.Cols }
func (n *LookupJoin) Columns() []Column     { return n.Cols }
func (n *Aggregate) Columns() []Column      { return n.Cols }
func (n *Sort) Columns() []Column           { return n.Input.Columns() }
func (n *TopN) Columns() []Column           { return n.Input.Columns() }
func (n *Limit) Columns() []Column          { return n.Input.Columns() }
func (n *Distinct) Columns() []Column       { return n.Input.Columns() }
func (n *DistinctOn) Columns() []Column     { return n.Input.Columns() }
func (n *LockRows) Columns() []Column       { return n.Input.Columns() }
func (n *SetOp) Columns() []Column          { return n.Cols }
func (n *RecursiveUnion) Columns() []Column { return n.Cols }
func (n *Append) Columns() []Column         { return n.Cols }
func (n *TreeWrite) Columns() []Column      { return n.Cols }
func (n *WorkTable) Columns() []Column      { return n.Cols }
func (n *CTEScan) Columns() []Column        { return n.Query.Columns() }
func (n *Insert) Columns() []Column         { return n.Cols }
func (n *Update) Columns() []Column         { return n.Cols }
func (n *Delete) Columns() []Column         { return n.Cols }

func (n *Scan) Children() []Node           { return nil }
func (n *Values) Children() []Node         { return nil }
func (n *Series) Children() []Node         { return nil }
func (n *TableFunc) Children() []Node      { return nil }
func (n *Filter) Children() []Node         { return []Node{n.Input} }
func (n *Project) Children() []Node        { return []Node{n.Input} }
func (n *Join) Children() []Node           { return []Node{n.Left, n.Right} }
func (n *LookupJoin) Children() []Node     { return []Node{n.Left} }
func (n *Aggregate) Children() []Node      { return []Node{n.Input} }
func (n *Sort) Children() []Node           { return []Node{n.Input} }
func (n *TopN) Children() []Node           { return []Node{n.Input} }
func (n *Limit) Children() []Node          { return []Node{n.Input} }
func (n *Distinct) Children() []Node       { return []Node{n.Input} }
func (n *DistinctOn) Children() []Node     { return []Node{n.Input} }
func (n *LockRows) Children() []Node       { return []Node{n.Input} }
func (n *SetOp) Children() []Node          { return []Node{n.Left, n.Right} }
func (n *RecursiveUnion) Children() []Node { return []Node{n.Init, n.Step} }
func (n *Append) Children() []Node         { return n.Inputs }
func (n *TreeWrite) Children() []Node      { return n.Writes }
func (n *WorkTable) Children() []Node      { return nil }
func (n *CTEScan) Children() []Node {
	if n.First {
		return []Node{n.Query}
	}
	return nil
}
func (n *Insert) Children() []Node { return []Node{n.Input} }
func (n *Update) Children() []Node { return []Node{n.Input} }
func (n *Delete) Children() []Node { return []Node{n.Input} }
