package session

import (
	"context"
	"errors"
	"strings"

	"github.com/kvsql/kvsql/catalog"
	"github.com/kvsql/kvsql/exec"
	"github.com/kvsql/kvsql/kv"
	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/planner"
	"github.com/kvsql/kvsql/planner/parse"
	"github.com/kvsql/kvsql/types"
	"github.com/kvsql/kvsql/wire/backend"
	"vitess.io/vitess/go/vt/sqlparser"
)

// stmt is one prepared statement. Its plan is cached for the catalog it
// was made against and remade when the catalog changes: this is the
// per-connection plan cache the wire server relies on.
type stmt struct {
	s        *Session
	p        *parse.Statement
	sql      string    // the text it came from (pg_stat_activity.query)
	declared []types.T // parameter types the client declared
	// volatile: the plan holds rows that change between executions
	// (pg_stat_activity's) and is remade every time.
	volatile bool

	planCat *catalog.Catalog
	// planPath is the search path the plan was made under.
	planPath string
	// planRole is the current user the plan was made for (its
	// privileges were checked then).
	planRole string
	plan     planner.Node
	// calls are the user-defined functions plan calls
	// (planner.RoutineCalls), found once per plan.
	calls []uint64
	// shapes keeps what building plan's scans derives from its nodes
	// (exec.ScanShapes); made anew with every plan.
	shapes *exec.ScanShapes
	// trees keeps the plan's operator tree between executions (reuse.go);
	// like shapes it is made with the plan, and a query-cache copy of the
	// statement shares its template's.
	trees   *treeCache
	params  []types.T
	cols    []backend.Column
	planErr error
	// described are the result columns of the first plan: what the client
	// was told (RowDescription) and chose result formats for. Every later
	// plan must produce the same columns, or the statement fails with
	// 0A000 as PostgreSQL's cached plans do; the wire server never encodes
	// rows against columns other than these.
	described []backend.Column
	// paramsFixed: declared holds the parameter types of the first plan.
	paramsFixed bool
	// argNames and routine are set for a statement of a SQL function's
	// body: the function's argument names and its name, which the
	// planner resolves as parameters (planner.Planner.ArgNames).
	argNames []string
	routine  string
	// lifted are the constants of a simple query served from the
	// session's query cache (querycache.go): the statement is its
	// template's copy, and these are its parameters.
	lifted []types.Datum
	// mods are the statement's data-modifying WITH queries as statements
	// of their own (modifying.go), made on first use.
	mods []*stmt
}

var _ backend.Statement = (*stmt)(nil)

// kind classifies what a statement does.
type kind uint8

const (
	kindPlan kind = iota // SELECT, VALUES, set operations, INSERT/UPDATE/DELETE
	kindExplain
	kindTxn
	kindSet
	kindShow
	kindCopy
	kindDDL
	kindEmpty
	kindCursor
	kindPrepared
	kindDiscard
	kindNotify
)

func (st *stmt) kind() kind {
	p := st.p
	switch {
	case p.Empty:
		return kindEmpty
	case p.Compound != nil:
		return kindPlan
	case p.Set != nil:
		return kindSet
	case p.Show != nil:
		return kindShow
	case p.Copy != nil:
		return kindCopy
	case p.Cursor != nil:
		return kindCursor
	case p.Prepare != nil, p.Execute != nil, p.Deallocate != nil:
		return kindPrepared
	case p.Discard != "":
		return kindDiscard
	case p.Notify != nil:
		return kindNotify
	case p.DropIndex != nil, p.Analyze != nil, p.Database != nil, p.Schema != nil, p.SetSchema != nil, p.Reindex != nil, p.Trigger != nil, p.Vacuum != nil, p.Truncate != nil, p.AlterColumn != nil, p.Sequence != nil, p.Comment != nil, p.MatView != nil, p.CreateAs != nil,
		p.Lock != nil, p.Owner != nil, p.Role != nil, p.Grant != nil, p.AddIdentity != nil, p.Routine != nil, p.Aggregate != nil, p.DropConstraint != nil, p.AttachIndex != nil, p.UserType != nil,
		p.ViewDefault != nil:
		return kindDDL
	}
	switch p.AST.(type) {
	case sqlparser.TableStatement, *sqlparser.Insert, *sqlparser.Update, *sqlparser.Delete:
		return kindPlan
	case *sqlparser.ExplainStmt:
		return kindExplain
	case *sqlparser.Begin, *sqlparser.Commit, *sqlparser.Rollback, *sqlparser.Savepoint,
		*sqlparser.Release, *sqlparser.SRollback:
		return kindTxn
	}
	return kindDDL
}

// ensurePlan plans the statement against cat — the catalog of the
// transaction that will run it (or, to describe it, the session's) — and
// reuses the cached plan while the catalog is the same.
func (st *stmt) ensurePlan(cat *catalog.Catalog) error {
	// A plan holds the relations its names resolved to, so a changed
	// search_path replans too.
	path := st.s.searchPathKey()
	role := st.s.currentRole() // a plan checked the role's privileges
	if st.planCat == cat && st.planPath == path && st.planRole == role && !st.volatile && (st.plan != nil || st.planErr != nil) {
		return st.planErr
	}
	target := st.p
	if st.kind() == kindExplain {
		target = st.p.Explained
		if target == nil {
			return pgerror.New(pgerror.FeatureNotSupported, "EXPLAIN of this statement is not supported")
		}
		if len(target.ModifyingCTEs) > 0 {
			return pgerror.New(pgerror.FeatureNotSupported, "EXPLAIN of a statement with data-modifying WITH queries is not supported")
		}
	}
	pl := st.s.planner(cat)
	pl.ArgNames, pl.RoutineName = st.argNames, st.routine
	if len(st.p.ModifyingCTEs) > 0 {
		mods, err := st.modifyingColumns(cat) // modifying.go
		if err != nil {
			st.planCat, st.planPath, st.planRole, st.planErr, st.plan = cat, path, role, err, nil
			return err
		}
		pl.Modifying = mods
	}
	plan, params, err := pl.Plan(target, st.declared)
	st.planCat, st.planPath, st.planRole, st.planErr, st.volatile = cat, path, role, err, pl.Volatile
	if err != nil {
		st.plan = nil
		return err
	}
	if st.kind() == kindPlan {
		cols := wireColumns(plan.Columns())
		if cols == nil && !isDML(st.p) {
			cols = []backend.Column{} // SELECT FROM t: rows, of no columns
		}
		if st.described != nil && !sameColumns(st.described, cols) {
			st.plan, st.planErr = nil, pgerror.New(pgerror.FeatureNotSupported, "cached plan must not change result type")
			return st.planErr
		}
		st.cols = cols
		if st.described == nil {
			st.described = cols
		}
	}
	st.plan, st.params, st.calls = plan, params, planner.RoutineCalls(plan)
	st.shapes = &exec.ScanShapes{}
	st.trees = &treeCache{}
	if !st.paramsFixed {
		// The parameter types of the first plan are the statement's from
		// now on (ParameterDescription told the client so): replans take
		// them as declared.
		st.paramsFixed = true
		st.declared = append([]types.T(nil), params...)
	}
	return nil
}

func sameColumns(a, b []backend.Column) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !a[i].Type.Same(b[i].Type) {
			return false
		}
	}
	return true
}

func wireColumns(cols []planner.Column) []backend.Column {
	var out []backend.Column
	for _, c := range cols {
		if c.Hidden {
			continue
		}
		out = append(out, backend.Column{Name: c.Name, Type: c.T, TableOID: c.TableID, Attr: c.Attr})
	}
	return out
}

// ParamOIDs implements backend.Statement.
func (st *stmt) ParamOIDs() []uint32 {
	if st.lifted != nil {
		return []uint32{} // its parameters are its own constants
	}
	var ts []types.T
	switch st.kind() {
	case kindPlan, kindExplain:
		if st.ensurePlan(st.s.catalog()) == nil {
			ts = st.params
		} else if st.paramsFixed {
			ts = st.declared // planned before: the types stay
		}
	}
	if ts == nil {
		ts = st.declared
		for len(ts) < st.p.NumParams {
			ts = append(ts, types.T{Family: types.Text})
		}
	}
	oids := make([]uint32, len(ts))
	for i, t := range ts {
		oids[i] = t.OID()
	}
	return oids
}

// Columns implements backend.Statement.
func (st *stmt) Columns() []backend.Column {
	switch st.kind() {
	case kindPlan:
		if st.ensurePlan(st.s.catalog()) != nil {
			// The catalog changed under the statement (a table dropped):
			// Execute reports it. The client keeps the columns it was
			// told, so its result formats stay consistent.
			return st.described
		}
		return st.cols
	case kindExplain:
		return []backend.Column{{Name: "QUERY PLAN", Type: types.T{Family: types.Text}}}
	case kindShow:
		return []backend.Column{{Name: showName(st.p.Show.Name), Type: types.T{Family: types.Text}}}
	case kindCursor:
		return st.s.cursorColumns(st.p.Cursor)
	case kindPrepared:
		return st.s.preparedColumns(st.p)
	}
	return nil
}

// Copy implements backend.Statement.
func (st *stmt) Copy() *backend.CopySpec {
	if st.kind() != kindCopy {
		return nil
	}
	if st.s.checkReadOnly(st) != nil {
		return nil // Execute reports the 25006
	}
	spec, err := st.s.copySpec(st.p.Copy)
	if err != nil {
		return nil
	}
	st.s.trackCopy(spec, st.p.Copy)
	db := st.s.db
	if insert := spec.Insert; insert != nil {
		spec.Insert = func(ctx context.Context, rows [][]types.Datum) (int64, error) {
			n, err := insert(ctx, rows)
			return n, db.storageError(err)
		}
	}
	if finish := spec.Finish; finish != nil {
		spec.Finish = func(ctx context.Context, err error) error { return db.storageError(finish(ctx, err)) }
	}
	if rows := spec.Rows; rows != nil {
		spec.Rows = func(ctx context.Context) (backend.Result, error) {
			r, err := rows(ctx)
			return r, db.storageError(err)
		}
	}
	return spec
}

// Execute implements backend.Statement. Errors caused by damaged storage
// become XX001 or 25006 (damage.go).
//
// While it runs (until its Result is closed) the session is "active" in
// pg_stat_activity.
func (st *stmt) Execute(ctx context.Context, params []types.Datum) (backend.Result, error) {
	s := st.s
	if st.lifted != nil {
		// A cached simple query: its text has no parameters, so any
		// given would be ignored; its constants are the parameters.
		params = st.lifted
	}
	ctx, id := s.beginStatement(ctx, st.sql)
	if s.terminated.Load() {
		s.endStatement(id)
		return nil, errTerminated
	}
	res, err := st.execute(ctx, params)
	if err != nil || res == nil {
		s.endStatement(id)
		return res, s.db.storageError(err)
	}
	if qr, ok := res.(*queryResult); ok && !qr.active {
		// A query's result ends the activity itself: one allocation
		// fewer per statement than an activeResult around it.
		qr.s, qr.id, qr.active = s, id, true
		return qr, nil
	}
	return &activeResult{Result: res, s: s, id: id}, nil
}

// activeResult ends the statement's activity when it is closed.
type activeResult struct {
	backend.Result
	s      *Session
	id     uint64
	closed bool
}

func (r *activeResult) Close() error {
	err := r.Result.Close()
	if !r.closed {
		r.closed = true
		r.s.endStatement(r.id)
	}
	return err
}

func (st *stmt) execute(ctx context.Context, params []types.Datum) (backend.Result, error) {
	s := st.s
	k := st.kind()
	s.startImplicit(k)
	if s.cur != nil && s.cur.failed && k != kindTxn {
		return nil, pgerror.New(pgerror.InFailedSQLTransaction, "current transaction is aborted, commands ignored until end of transaction block")
	}
	if err := s.checkReadOnly(st); err != nil {
		s.Fail(err)
		return nil, err
	}
	for i := range params {
		if int64(len(params[i].S)) > s.db.maxValueSize() {
			err := pgerror.Newf(pgerror.ProgramLimitExceeded, "parameter $%d of %d bytes exceeds the value limit of %d bytes", i+1, len(params[i].S), s.db.maxValueSize())
			s.Fail(err)
			return nil, err
		}
	}
	if s.cur != nil && k != kindTxn && k != kindSet && k != kindShow {
		s.cur.queried = true
	}
	var res backend.Result
	var err error
	switch k {
	case kindEmpty:
		return &staticResult{}, nil
	case kindTxn:
		return s.txnControl(st.p)
	case kindSet:
		res, err = s.set(st.p.Set)
	case kindShow:
		res, err = s.show(st.p.Show)
	case kindCopy:
		if st.p.Copy.From {
			// The wire runs COPY FROM through Copy's spec; here only when
			// there is none: report why (e.g. 42P01), else the protocol.
			if _, err = s.copySpec(st.p.Copy); err == nil {
				err = pgerror.New(pgerror.FeatureNotSupported, "COPY FROM STDIN needs the wire protocol")
			}
			break
		}
		res, err = s.copyTo(ctx, st.p.Copy)
	case kindDDL:
		res, err = s.ddl(ctx, st.p)
	case kindCursor:
		res, err = s.cursorStmt(ctx, st.p.Cursor, st.sql, params)
	case kindPrepared:
		res, err = s.preparedStmt(ctx, st.p)
	case kindDiscard:
		res, err = s.discard(ctx, st.p.Discard)
	case kindNotify:
		res, err = s.notifyStmt(st.p.Notify) // notify.go
	case kindExplain:
		res, err = s.explain(ctx, st, params)
	default:
		res, err = s.run(ctx, st, params)
	}
	if err != nil && s.cur != nil {
		s.cur.failed = true
	}
	return res, err
}

// run executes a planned statement: a query streams its rows; DML runs to
// completion (its RETURNING rows are kept) so its command tag is known.
func (s *Session) run(ctx context.Context, st *stmt, params []types.Datum) (backend.Result, error) {
	if err := checkParams(st, params); err != nil {
		return nil, err
	}
	// Move an explicit transaction's snapshot forward while its reads are still valid (txn.refresh, docs/transactions.md).
	if err := s.refreshTxn(); err != nil {
		return nil, err
	}
	// A locking SELECT runs to completion like DML: it may have to
	// restart after waiting for a row (locks.go), so its rows are sent
	// only once it has them all.
	dml := isDML(st.p) || locksRows(st.p) || s.callsVolatileRoutine(st) || len(st.p.ModifyingCTEs) > 0
	if !dml {
		t, auto := s.cur, false
		if t == nil {
			t, auto = s.beginRead(), true // read-only: a shared snapshot, no commit
		}
		if err := st.ensurePlan(t.cat); err != nil {
			if auto {
				s.endRead(t)
			}
			return nil, err
		}
		var ec *exec.Ctx
		env := st.trees.freeEnv(st.plan, st.volatile)
		if env != nil {
			ec = s.execCtxIn(env, ctx, t, params)
		} else {
			ec = s.execCtx(ctx, t, params)
		}
		ec.ReadOnly = auto // an autocommit query: nothing to validate
		if auto && !s.noSnapRead {
			ec.Read = &t.snapRead // the snapshot itself (snapread.go)
		}
		ec.Shapes = st.shapes
		op, err := st.trees.build(ec, st.plan, st.volatile)
		if err != nil {
			if auto {
				s.endRead(t)
			}
			return nil, err
		}
		if s.fixErrFn == nil {
			s.fixErrFn = s.db.storageError // a method value allocates: once per session
		}
		r := &queryResult{op: op, width: len(st.cols), maxRow: s.db.maxValueSize(), fixErr: s.fixErrFn, ctx: ctx, env: env}
		if auto {
			r.auto, r.autoOf = t, s // read-only: nothing to commit
		}
		return r, nil
	}
	var out *staticResult
	err := s.inTxn(func(t *txn) error {
		// Data-modifying WITH queries run first; the statement reads the
		// state before them, and their RETURNING rows (modifying.go).
		var before kv.Reader
		var modified map[string][][]types.Datum
		if len(st.p.ModifyingCTEs) > 0 {
			before = t.kv.View()
			var err error
			if modified, err = s.runModifying(ctx, t, st, params); err != nil {
				return err
			}
		}
		if err := st.ensurePlan(t.cat); err != nil {
			return err
		}
		// A prepared UPDATE or DELETE reruns its kept tree, as a query
		// does (treeCache); a restarted statement's earlier run is closed.
		var ec *exec.Ctx
		if env := st.trees.freeEnv(st.plan, st.volatile); env != nil {
			ec = s.execCtxIn(env, ctx, t, params)
		} else {
			ec = s.execCtx(ctx, t, params)
		}
		if modified != nil {
			ec.Read, ec.Modified = before, modified
		}
		ec.Shapes = st.shapes
		op, err := st.trees.build(ec, st.plan, st.volatile)
		if err != nil {
			return err
		}
		out = &staticResult{}
		keep := rowCollector{limit: s.queryMemLimit()}
		n, err := exec.Drain(op, func(row []types.Datum) { keep.add(row[:len(st.cols)]) })
		if err == nil {
			err = keep.err
		}
		if err != nil {
			return err
		}
		out.rows = keep.rows
		out.tag = dmlTag(st.p, n)
		trackRows(t, st.plan, n)
		return nil
	})
	return out, err
}

func trackRows(t *txn, plan planner.Node, n int64) {
	switch p := plan.(type) {
	case *planner.Insert:
		t.addRows(p.Table.ID, n)
	case *planner.Delete:
		t.addRows(p.Table.ID, -n)
	}
}

func checkParams(st *stmt, params []types.Datum) error {
	if len(params) < st.p.NumParams {
		return pgerror.Newf(pgerror.ProtocolViolation, "statement needs %d parameters, %d given", st.p.NumParams, len(params))
	}
	return nil
}

func isDML(p *parse.Statement) bool {
	switch p.AST.(type) {
	case *sqlparser.Insert, *sqlparser.Update, *sqlparser.Delete:
		return true
	}
	return false
}

// locksRows reports whether p is a SELECT ... FOR UPDATE / FOR SHARE.
func locksRows(p *parse.Statement) bool {
	sel, ok := p.AST.(*sqlparser.Select)
	return ok && sel.Lock != sqlparser.NoLock
}

func dmlTag(p *parse.Statement, n int64) string {
	if n == 1 {
		// The OLTP case, without building the string.
		switch p.AST.(type) {
		case *sqlparser.Insert:
			return "INSERT 0 1"
		case *sqlparser.Update:
			return "UPDATE 1"
		case *sqlparser.Delete:
			return "DELETE 1"
		}
		return "SELECT 1"
	}
	switch p.AST.(type) {
	case *sqlparser.Insert:
		return "INSERT 0 " + itoa(n)
	case *sqlparser.Update:
		return "UPDATE " + itoa(n)
	case *sqlparser.Delete:
		return "DELETE " + itoa(n)
	}
	return "SELECT " + itoa(n)
}

// inTxn runs fn in the session's transaction, or in a new one that commits
// when fn succeeds (autocommit). An autocommit statement that loses a
// serialization conflict is retried from scratch: the client never sees a
// 40001 it could not have avoided.
//
// A statement that met a row changed or locked by another transaction
// (errRestart, see locks.go) runs again in the same transaction
// (runRestarting), at the newest applied state; its outcome reaches the
// client only once that state is durable (txn.awaitDurable): for an
// autocommit statement after its own commit, so the restarted statement
// can join the very group commit that syncs the commit it waited for.
func (s *Session) inTxn(fn func(t *txn) error) error {
	if s.cur != nil {
		err := runRestarting(s.cur, fn)
		s.cur.awaitDurable()
		return err
	}
	for conflicts := 0; ; {
		// A retry begins at the newest state (DB.beginNewest): the first
		// attempt's durable snapshot may have missed the commit it met.
		var t *txn
		if conflicts == 0 {
			t = s.begin()
		} else {
			t = s.setupTxn(s.db.beginNewest())
		}
		if err := runRestarting(t, fn); err != nil {
			s.db.rollback(t)
			t.awaitDurable()
			return err
		}
		err := s.db.commit(t)
		t.awaitDurable() // at once when the commit wrote and synced
		if pgerror.HasCode(err, pgerror.SerializationFailure) && conflicts < 50 {
			conflicts++
			continue
		}
		return err
	}
}

// runRestarting runs one statement (fn) in t; a failed statement leaves
// no trace in t. After errRestart it runs it again, with the attempt's
// writes and reads undone and t's snapshot moved forward (txn.restart);
// the row locks the attempt took stay held, so the next attempt finds the
// row it waited for already its own.
//
// The statement counts as executing (groupSync.gather) across its
// restarts: a restart waits for no sync (txn.moveSnapshot), so a leader
// about to sync the commit the statement waited for gives it the time
// to commit into that same sync.
func runRestarting(t *txn, fn func(t *txn) error) error {
	return t.execute(func(t *txn) error {
		for restarts := 0; ; restarts++ {
			m := t.mark()
			sm := t.deferred.BeginStatement()
			err := fn(t)
			// The statement's NO ACTION foreign-key checks (exec/fk.go).
			if ferr := t.deferred.EndStatement(t.kv, sm, err == nil); err == nil {
				err = ferr
			}
			if err == nil {
				err = t.checkMixedWrites() // foreign.go
			}
			if err == nil {
				return nil
			}
			_ = t.rollbackTo(m)
			if !errors.Is(err, errRestart) || restarts == maxStatementRestarts {
				return err
			}
			t.db.stats.restarts.Add(1)
			t.kv.RollbackReads(m.reads)
			if err := t.restart(); err != nil {
				return err
			}
		}
	})
}

// execute runs fn counted in DB.executing (see groupSync.gather) when t
// may write.
func (t *txn) execute(fn func(t *txn) error) error {
	if !t.registered {
		return fn(t)
	}
	t.db.executing.Add(1)
	defer func() {
		t.db.executing.Add(-1)
		t.db.sync.nudge()
	}()
	return fn(t)
}

// explain renders a plan; with ANALYZE it runs the statement first and
// reports actual rows and time per operator.
func (s *Session) explain(ctx context.Context, st *stmt, params []types.Datum) (backend.Result, error) {
	analyze := false
	if e, ok := st.p.AST.(*sqlparser.ExplainStmt); ok && e.Type == sqlparser.AnalyzeType {
		analyze = true
	}
	var text string
	err := s.inTxn(func(t *txn) error {
		if err := st.ensurePlan(t.cat); err != nil {
			return err
		}
		if !analyze {
			text = planner.Explain(st.plan, nil)
			return nil
		}
		ec := s.execCtx(ctx, t, params)
		ec.Analyze = true
		if _, err := exec.Run(ec, st.plan); err != nil {
			return err
		}
		text = planner.Explain(st.plan, func(n planner.Node) string {
			rows, loops, d := ec.Stats.For(n)
			return "(actual rows=" + itoa(rows) + " loops=" + itoa(loops) + " time=" + d.String() + ")" + foreignActuals(ec.Stats, n)
		})
		return nil
	})
	if err != nil {
		return nil, err
	}
	out := &staticResult{tag: "EXPLAIN"}
	for _, line := range strings.Split(strings.TrimRight(text, "\n"), "\n") {
		out.rows = append(out.rows, []types.Datum{types.NewText(line)})
	}
	return out, nil
}
