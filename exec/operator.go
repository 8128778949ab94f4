package exec

import (
	"context"
	"time"

	"github.com/kvsql/kvsql/catalog"
	"github.com/kvsql/kvsql/exec/eval"
	"github.com/kvsql/kvsql/foreign"
	"github.com/kvsql/kvsql/kv"
	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/planner"
	"github.com/kvsql/kvsql/types"
)

// DefaultWorkMem is the per-operator memory budget used when Ctx.WorkMem
// is zero or negative (PostgreSQL's work_mem, generously sized).
const DefaultWorkMem = 64 << 20

// Ctx is everything a running plan needs. One Ctx serves one execution of
// one statement; it is not safe for concurrent use.
type Ctx struct {
	// Context cancels the statement. Operators check it at least every
	// 1024 rows and then fail with SQLSTATE 57014 (or with the context's
	// cause when that carries a SQLSTATE). Nil means context.Background().
	Context context.Context
	// RW is the transaction; reads see its own writes. DML writes through
	// it, and its constraint checks (duplicate keys) read through it, so
	// they see the rows the statement has already written.
	RW kv.ReadWriter
	// Read, if set, is what the statement's scans, lookups and subqueries
	// read: the transaction as of the statement's start (kv.Txn.View), so
	// a statement never sees its own writes (the Halloween problem; an
	// INSERT ... SELECT or an UPDATE's subquery over its own table reads
	// the rows as they were). Nil: they read RW.
	Read kv.Reader
	// Advisory takes and releases the session's advisory locks.
	Advisory eval.Advisory
	// Server answers the functions about the server and the
	// transaction (eval.Server).
	Server eval.Server
	// Modified holds the rows the statement's data-modifying WITH queries
	// returned, by name (planner.ModifiedRows).
	Modified map[string][][]types.Datum
	// Deferred is the transaction's deferred constraint checks: foreign
	// keys whose constraint is deferred add their checks there instead
	// of running them (nil: nothing is deferred).
	Deferred *Deferred
	// Params are the values of $1, $2, ...
	Params []types.Datum
	// Now is the transaction's timestamp (now(), current_timestamp);
	// StmtNow the statement's (statement_timestamp()).
	Now, StmtNow time.Time
	// Loc is the session's time zone (nil: UTC).
	Loc *time.Location
	// IntervalStyle is the IntervalStyle setting: how a cast to text
	// shows an interval.
	IntervalStyle types.IntervalStyle
	// FloatDigits is the extra_float_digits setting as eval.Style's
	// FloatDigits: how a cast to text shows a float.
	FloatDigits int
	// WorkMem is the memory budget of each memory-hungry operator (sort,
	// hash join, hash aggregation, distinct, DML row buffers) in bytes.
	// Past it they spill to temporary files. <= 0 means DefaultWorkMem.
	WorkMem int64
	// MaxQueryMem caps the memory the statement's operators hold at once
	// (queryMem); past it the statement fails with 53200. <= 0 means
	// DefaultMaxQueryMem.
	MaxQueryMem int64
	// MaxValueSize caps one value an expression builds (eval.Env's);
	// <= 0 means eval.DefaultMaxValueSize.
	MaxValueSize int64
	// TempDir is where spill files go ("" = os.TempDir()). Every file is
	// removed when its operator closes, fails, or the query is cancelled.
	TempDir string
	// NextVal returns the next value of the sequence behind column col of
	// t (serial columns and the hidden rowid). Insert calls it for such a
	// column whose input value is NULL.
	NextVal func(t *catalog.Table, col int) (int64, error)
	// Hooks are the session's services for writes: triggers, row locks
	// and foreign stores. Nil: no triggers run, no rows are locked and
	// foreign tables cannot be read or written.
	Hooks Hooks
	// Analyze makes Build wrap every operator to collect actual rows,
	// loops and time into Stats (EXPLAIN ANALYZE).
	Analyze bool
	// Stats receives the per-node statistics when Analyze is set. Build
	// allocates it when it is nil.
	Stats *Stats
	// Database, User and BackendPID are the session's, for
	// current_database(), current_user and pg_backend_pid().
	Database, User string
	BackendPID     int32
	// SessionUser is session_user (User is current_user, which SET ROLE
	// changes); RoleName names a role's OID for pg_get_userbyid (nil: the
	// bootstrap superuser is User).
	SessionUser string
	RoleName    func(oid int64) string
	Privilege   func(fn string, args []types.Datum) (bool, error)
	// Seq runs the sequence functions (nextval, ...); nil: they fail.
	Seq eval.Sequences
	// Backends runs pg_cancel_backend and pg_terminate_backend; nil: they
	// fail.
	Backends eval.Backends
	// Settings answers current_setting and set_config; nil: they fail.
	Settings eval.Settings
	// Routines runs user-defined SQL functions; nil: their calls fail.
	Routines eval.Routines
	// ReadOnly is set for statements that write nothing and whose reads
	// need no validation (autocommit queries): scans may then read master
	// rows through one iterator per scan (index.MasterReader).
	ReadOnly bool
	// Warn raises a WARNING for the client (a foreign scan's skipped
	// keys); nil: warnings are dropped.
	Warn func(format string, args ...any)
	// Shapes, if set, keeps what building the plan's scans derives from
	// its nodes, for the next execution of the same plan (a prepared
	// statement's); nil: derived at every build.
	Shapes *ScanShapes
}

// Hooks is what a statement calls back into its session for. It is one
// interface value, not a func field per service: a session builds a Ctx
// per statement, and each closure over the statement's transaction was
// an allocation (four of a point select's 36).
type Hooks interface {
	// Fire runs t's triggers of one timing ("before" or "after") and
	// event ("insert", "update" or "delete") for one row an INSERT,
	// UPDATE or DELETE writes: old is nil for an insert, new nil for a
	// delete; set holds the ordinals an UPDATE assigns.
	Fire(t *catalog.Table, timing, event string, old, new []types.Datum, set []int) error
	// LockRow is called with a row's master key before an UPDATE or
	// DELETE writes the row (exclusively, waiting) and for each row a
	// SELECT ... FOR UPDATE / FOR SHARE returns (as the clause says). It
	// takes the row's lock for the transaction, waiting while another
	// transaction holds a conflicting one; false means SKIP LOCKED left
	// the row out. Its error fails the statement (the session then
	// restarts the statement at a newer snapshot, or reports a lock
	// timeout, deadlock or cancel).
	LockRow(t *catalog.Table, key []byte, mode planner.RowLock) (bool, error)
	// Foreign opens the store of a foreign database (catalog
	// Database.Foreign) for foreign scans.
	Foreign(db string) (foreign.Store, error)
	// ForeignWrite opens the store of a foreign database for a write, or
	// refuses it (a read-only attachment, a transaction block).
	ForeignWrite(db string) (foreign.Store, error)
}

// Operator is the one row-iterator protocol of exec. See the package
// documentation for the full contract; in short:
//
//   - Next returns the next row, or (nil, nil) at the end. Calling Next
//     again after the end keeps returning (nil, nil).
//   - The returned slice, and the Datums in it, are owned by the operator
//     and valid only until the next call to Next or Close. A caller that
//     keeps a row copies it (Datums themselves are immutable values, so a
//     shallow copy of the slice is enough).
//   - After Next returns an error, only Close may be called.
//   - Close releases everything the operator holds, temporary files
//     included, and closes its inputs. It may be called once, at any time
//     (before the first Next, mid-stream, or after the end).
type Operator interface {
	Next() ([]types.Datum, error)
	Close() error
}

// DMLOperator is implemented by the operators of INSERT, UPDATE and
// DELETE. RowsAffected is the count for the command tag; it is final once
// Next has returned (nil, nil).
type DMLOperator interface {
	Operator
	RowsAffected() int64
}

// Build turns a physical plan into an operator tree ready to run. Nothing
// is read until the first call to Next.
func Build(ctx *Ctx, n planner.Node) (Operator, error) {
	rs := newRunState(ctx)
	op, err := rs.build(rs.env, n)
	if err != nil || !rs.holdsBuffers {
		return op, err
	}
	return &stmtOp{Operator: op, rs: rs}, nil
}

// stmtOp is the root of an execution whose operators store rows in the
// runState itself (shared WITH queries' buffers, ctescan.go), which no
// one operator owns: its Close closes the tree, then those buffers and
// their spill files. Build adds it only when such an operator was built,
// so a plain statement pays nothing.
type stmtOp struct {
	Operator
	rs *runState
}

func (o *stmtOp) Close() error {
	err := o.Operator.Close()
	if rerr := o.rs.release(); err == nil {
		err = rerr
	}
	return err
}

// RowsAffected forwards to a DML root (-1 otherwise).
func (o *stmtOp) RowsAffected() int64 {
	if d, ok := unwrapAnalyze(o.Operator).(DMLOperator); ok {
		return d.RowsAffected()
	}
	return -1
}

// release closes the row buffers the execution keeps in its runState:
// shared WITH queries' rows and any WITH RECURSIVE work table an
// operator left behind. It runs once, after the operator tree is closed.
func (rs *runState) release() error {
	var err error
	for id, c := range rs.ctes {
		if cerr := c.buf.close(); err == nil {
			err = cerr
		}
		delete(rs.ctes, id)
	}
	for id, buf := range rs.works {
		if buf != nil {
			if cerr := buf.close(); err == nil {
				err = cerr
			}
		}
		delete(rs.works, id)
	}
	return err
}

// Run drives a plan to completion, discarding its rows, and reports the
// rows affected: for INSERT, UPDATE and DELETE the rows written, for a
// query the rows produced.
func Run(ctx *Ctx, n planner.Node) (int64, error) {
	op, err := Build(ctx, n)
	if err != nil {
		return 0, err
	}
	return Drain(op, nil)
}

// Drain runs op to its end, passing each row to keep (when not nil; the
// row is only valid during the call), closes op, and reports the rows
// affected as Run does.
func Drain(op Operator, keep func(row []types.Datum)) (int64, error) {
	var rows int64
	for {
		row, err := op.Next()
		if err != nil {
			_ = op.Close()
			return 0, err
		}
		if row == nil {
			break
		}
		rows++
		if keep != nil {
			keep(row)
		}
	}
	if d, ok := unwrapAnalyze(op).(DMLOperator); ok {
		rows = d.RowsAffected()
	}
	return rows, op.Close()
}

// runState is shared by every operator of one execution: the Ctx, the
// uncorrelated-subquery cache and the expression environment.
type runState struct {
	ctx      *Ctx
	goctx    context.Context
	workMem  int64
	qmem     *queryMem // the statement's memory account
	env      *eval.Env
	cache    map[*planner.Subquery]*subqueryResult
	subMemos map[*planner.Subquery]*subqueryMemo // correlated subqueries' results by input
	memos    map[*planner.Scan]*memoTable
	works    map[int]*rowBuffer // WITH RECURSIVE's work tables by ID
	ctes     map[int]*cteBuffer // shared WITH queries' rows by ID (ctescan.go)
	// holdsBuffers is set when an operator that stores rows in ctes is
	// built: Build then roots the tree in a stmtOp that releases them.
	holdsBuffers bool
	foreign      *foreignBatch // a DML statement's writes to foreign stores (foreign_write.go)
	// qmemOf and envOf are what qmem and env point at: one allocation
	// per statement for the three.
	qmemOf queryMem
	envOf  eval.Env
	// reuse, while BuildReusable builds the tree, collects its operators.
	reuse *reuseCollector
	// subqueryFn is rs.subquery as the func env.Subquery holds.
	subqueryFn func(env *eval.Env, sq *planner.Subquery, row []types.Datum) (types.Datum, error)
}

func newRunState(ctx *Ctx) *runState {
	rs := &runState{}
	rs.bind(ctx)
	return rs
}

// bind makes rs the state of an execution under ctx, as newRunState
// leaves it: a Reusable tree's runState is bound anew for each run, so
// the operators, which hold rs and rs.env, see the new execution's
// parameters, snapshot and context. The per-execution caches start
// empty (the expression caches keep their maps, emptied).
func (rs *runState) bind(ctx *Ctx) {
	rs.ctx, rs.goctx, rs.workMem = ctx, ctx.Context, ctx.WorkMem
	if rs.goctx == nil {
		rs.goctx = context.Background()
	}
	if rs.workMem <= 0 {
		rs.workMem = DefaultWorkMem
	}
	rs.cache, rs.subMemos, rs.memos, rs.works, rs.ctes = nil, nil, nil, nil, nil
	rs.holdsBuffers, rs.foreign = false, nil
	rs.qmemOf = queryMem{limit: ctx.MaxQueryMem}
	rs.qmem = &rs.qmemOf
	if rs.qmem.limit <= 0 {
		rs.qmem.limit = DefaultMaxQueryMem
	}
	if ctx.Analyze && ctx.Stats == nil {
		ctx.Stats = newStats()
	}
	if rs.subqueryFn == nil {
		rs.subqueryFn = rs.subquery // a method value allocates: once per runState
	}
	// Subqueries run under copies of env: with the caches made now
	// (Rebind), the copies share them, so a constant IN list is sorted
	// once per execution, not once per outer row.
	rs.env = &rs.envOf
	rs.env.Rebind(eval.Env{Ctx: rs.goctx, Params: ctx.Params, Now: ctx.Now, StmtNow: ctx.StmtNow, Loc: ctx.Loc, IntervalStyle: ctx.IntervalStyle, FloatDigits: ctx.FloatDigits, Subquery: rs.subqueryFn,
		Database: ctx.Database, User: ctx.User, SessionUser: ctx.SessionUser, RoleName: ctx.RoleName, Privilege: ctx.Privilege, BackendPID: ctx.BackendPID, Seq: ctx.Seq,
		Backends: ctx.Backends, MaxValueSize: ctx.MaxValueSize, Settings: ctx.Settings, Routines: ctx.Routines, Advisory: ctx.Advisory, Server: ctx.Server})
}

// ticker counts rows so that long loops check for cancellation every 1024
// iterations without paying for ctx.Err on every row.
type ticker struct {
	rs *runState
	n  uint32
}

// tick returns the cancellation error, checking the context every 1024th
// call.
func (t *ticker) tick() error {
	t.n++
	if t.n&1023 != 0 {
		return nil
	}
	return t.rs.canceled()
}

// canceled returns nil, or the statement's cancellation error.
// reader is what query operators read (Ctx.Read, else Ctx.RW).
func (rs *runState) reader() kv.Reader {
	if rs.ctx.Read != nil {
		return rs.ctx.Read
	}
	return rs.ctx.RW
}

func (rs *runState) canceled() error {
	if rs.goctx.Err() == nil {
		return nil
	}
	return eval.CancelError(rs.goctx)
}

// build is Build with an explicit expression environment (subqueries
// build their plans with the enclosing row pushed on env.Outer).
func (rs *runState) build(env *eval.Env, n planner.Node) (Operator, error) {
	op, err := rs.buildNode(env, n)
	if err != nil {
		return nil, err
	}
	if rs.ctx.Analyze {
		op = rs.ctx.Stats.wrap(n, op)
	}
	if rs.reuse != nil {
		rs.reuse.note(n, op)
	}
	return op, nil
}

func (rs *runState) buildNode(env *eval.Env, n planner.Node) (Operator, error) {
	if planner.IsVectorized(n) {
		return rs.buildVectorized(env, n) // vecbuild.go
	}
	switch n := n.(type) {
	case *planner.Scan:
		if n.Memo != nil {
			return rs.memoScan(env, n)
		}
		return newScan(rs, env, n)
	case *planner.Values:
		return &valuesOp{env: env, node: n}, nil
	case *planner.ModifiedRows:
		return &modifiedRowsOp{sliceSource{rows: rs.ctx.Modified[n.Name]}}, nil
	case *planner.Series:
		return &seriesOp{rs: rs, env: env, node: n}, nil
	case *planner.TableFunc:
		return &tableFuncOp{rs: rs, env: env, node: n}, nil
	case *planner.Filter:
		in, err := rs.build(env, n.Input)
		if err != nil {
			return nil, err
		}
		if n.OneTime {
			return &gateOp{env: env, input: in, pred: n.Pred}, nil
		}
		return &filterOp{env: env, input: in, pred: n.Pred}, nil
	case *planner.Project:
		in, err := rs.build(env, n.Input)
		if err != nil {
			return nil, err
		}
		return &projectOp{env: env, input: in, exprs: n.Exprs, out: make([]types.Datum, len(n.Exprs))}, nil
	case *planner.Join:
		return rs.buildJoin(env, n)
	case *planner.LookupJoin:
		return newLookupJoin(rs, env, n)
	case *planner.Aggregate:
		return newAggregate(rs, env, n)
	case *planner.Sort:
		in, err := rs.buildSortInput(env, n)
		if err != nil {
			return nil, err
		}
		return newSortFrom(rs, env, in, n.Keys, len(n.Input.Columns())), nil
	case *planner.TopN:
		in, err := rs.buildSortInput(env, n)
		if err != nil {
			return nil, err
		}
		return &topNOp{rs: rs, env: env, input: in, src: in, node: n, width: len(n.Input.Columns()), mem: rs.heldAccount()}, nil
	case *planner.LockRows:
		in, err := rs.build(env, n.Input)
		if err != nil {
			return nil, err
		}
		return &lockRowsOp{rs: rs, input: in, node: n}, nil
	case *planner.Limit:
		in, err := rs.build(env, n.Input)
		if err != nil {
			return nil, err
		}
		return &limitOp{env: env, input: in, node: n}, nil
	case *planner.Distinct:
		in, err := rs.build(env, n.Input)
		if err != nil {
			return nil, err
		}
		return newDistinct(rs, in), nil
	case *planner.DistinctOn:
		in, err := rs.build(env, n.Input)
		if err != nil {
			return nil, err
		}
		return &distinctOnOp{input: in, cols: n.Cols}, nil
	case *planner.SetOp:
		return newSetOp(rs, env, n)
	case *planner.TreeWrite:
		return newTreeWrite(rs, env, n)
	case *planner.Append:
		cat := &concatOp{}
		for _, in := range n.Inputs {
			op, err := rs.build(env, in)
			if err != nil {
				_ = closeAll(cat.inputs...)
				return nil, err
			}
			cat.inputs = append(cat.inputs, op)
		}
		return cat, nil
	case *planner.Window:
		in, err := rs.build(env, n.Input)
		if err != nil {
			return nil, err
		}
		return newWindow(rs, env, n, in), nil
	case *planner.RecursiveUnion:
		return newRecursive(rs, env, n), nil
	case *planner.WorkTable:
		return newWorkTable(rs, n)
	case *planner.CTEScan:
		return newCTEScan(rs, env, n), nil
	case *planner.Insert:
		return newInsert(rs, env, n)
	case *planner.Update:
		return newUpdate(rs, env, n)
	case *planner.Delete:
		return newDelete(rs, env, n)
	case nil:
		return nil, pgerror.New(pgerror.Internal, "exec: nil plan node")
	}
	return nil, pgerror.Newf(pgerror.FeatureNotSupported, "exec: unsupported plan node %T", n)
}

// buildJoin builds a Join's inputs and its algorithm's operator.
func (rs *runState) buildJoin(env *eval.Env, n *planner.Join) (Operator, error) {
	left, err := rs.build(env, n.Left)
	if err != nil {
		return nil, err
	}
	if n.Algo == planner.Apply {
		return &applyOp{rs: rs, env: env, n: n, left: left, lw: len(n.Left.Columns()), rw: len(n.Right.Columns())}, nil
	}
	right, err := rs.build(env, n.Right)
	if err != nil {
		_ = left.Close()
		return nil, err
	}
	lw, rw := len(n.Left.Columns()), len(n.Right.Columns())
	if n.Algo == planner.HashJoin && len(n.LeftKeys) > 0 {
		return newHashJoin(rs, env, n, left, right, lw, rw), nil
	}
	return newNestedLoop(rs, env, n, left, right, lw, rw), nil
}

// closeAll closes every operator and returns the first error.
func closeAll(ops ...Operator) error {
	var first error
	for _, op := range ops {
		if op == nil {
			continue
		}
		if err := op.Close(); err != nil && first == nil {
			first = err
		}
	}
	return first
}
