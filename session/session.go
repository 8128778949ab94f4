package session

import (
	"context"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kvsql/kvsql/catalog"
	"github.com/kvsql/kvsql/exec"
	"github.com/kvsql/kvsql/foreign"
	"github.com/kvsql/kvsql/kv"
	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/planner"
	"github.com/kvsql/kvsql/planner/parse"
	"github.com/kvsql/kvsql/types"
	"github.com/kvsql/kvsql/wire/backend"
)

// Session is one client's connection state: its database, settings and
// open transaction. A Session is used by one goroutine at a time.
type Session struct {
	db       *DB
	database string
	user     string
	pid      uint32
	cur      *txn // the explicit transaction (or the implicit block of a Query), or nil
	// advisory are the session-level advisory locks it holds
	// (pg_advisory_lock; advisory.go), one entry per hold.
	advisory []advisoryHold
	// listener is its LISTEN state (notify.go), nil until needed.
	listener *listener
	// deallocatedAll: a DEALLOCATE ALL ran since the wire last asked
	// (DeallocatedAll).
	deallocatedAll bool
	// retryFloor is the applied seq when the session's last transaction
	// failed with a serialization failure (Fail), else 0: the next
	// transaction begins at a snapshot holding it (DB.beginFrom), so a
	// retry does not meet again the commits its last attempt lost to.
	retryFloor uint64
	// inQuery is set while the statements of a multi-statement Query run
	// (BeginQuery): they share an implicit transaction block.
	inQuery  bool
	cursors  map[string]*cursorState
	prepared map[string]*stmt // PREPARE's statements
	// noSnapRead makes autocommit queries read through their kv.Txn, a
	// new one each, as before snapread.go: the reference path of the
	// differential test (SetSnapshotReads).
	noSnapRead bool
	// spareRead is the ended transaction of the session's last
	// autocommit query, which the next one reuses (snapread.go).
	spareRead *txn

	settings map[string]string
	// settingsGen counts changes of settings (setLocked); queries is the
	// cache of simple-protocol plans, emptied when settingsGen moves.
	settingsGen atomic.Uint64
	queries     queryCache
	// pathOverride is put before search_path while CREATE SCHEMA runs
	// its schema elements, so they are created in the new schema.
	pathOverride []string
	// path is the search path resolved from the settings of settingsGen
	// path.gen (searchPath): every statement's plan check asks for it, and
	// resolving it splits the setting and allocates.
	path struct {
		ok    bool
		gen   uint64
		names []string // never appended to in place (capacity = length)
		key   string   // names joined by NUL: what a plan records (stmt.planPath)
	}
	changed map[string]string
	// nextValFn and warnFn are s.serialNextVal and s.warn as func values
	// for exec.Ctx, made once (execCtx).
	nextValFn func(t *catalog.Table, col int) (int64, error)
	warnFn    func(format string, args ...any)
	// roleNameFn is s.roleNameOf (role.go).
	roleNameFn func(oid int64) string
	// privilegeFn is s.privilegeFunc (privfuncs.go).
	privilegeFn func(fn string, args []types.Datum) (bool, error)
	// fixErrFn is s.db.storageError as a func value, made once for the
	// queryResults of the session's queries.
	fixErrFn func(error) error
	// loc is the timezone setting as a zone (nil: UTC); atomic so that
	// statements read it without s.mu.
	loc atomic.Pointer[time.Location]
	// intervalStyle is the IntervalStyle setting (types.IntervalStyle).
	intervalStyle atomic.Uint32
	// floatDigits is the extra_float_digits setting as eval.Style's
	// FloatDigits.
	floatDigits atomic.Int32
	// triggers holds the parsed triggers this session has fired, with
	// their prepared statements.
	triggers map[*catalog.Trigger]*compiledTrigger
	// routines holds the SQL functions this session has called, their
	// bodies prepared (routine.go); routineDepth counts the calls under
	// way, nested.
	routines     map[routineKey]*compiledRoutine
	plFuncs      map[*catalog.Function]*plCode // plpgsql.go
	routineDepth int
	// triggerDepth counts the triggers running (pg_trigger_depth).
	triggerDepth int
	// currvals are the values nextval (and setval) last gave each
	// sequence in this session, by sequence ID; lastSeq is the sequence
	// of the last nextval (0: none). currval and lastval read them.
	currvals map[uint64]int64
	lastSeq  uint64
	// mu guards nothing but the settings map against the wire server's
	// concurrent Setting reads (statement_timeout) and pg_stat_activity.
	mu sync.Mutex
	// parsed caches the numbers of settings every statement reads.
	// REQUIRES: mu held.
	parsed parsedSettings

	// conn is the client connection (nil in process); start when the
	// session (or its connection) began. act is what pg_stat_activity
	// shows (activity.go). gone is closed by Close; terminated is set by
	// pg_terminate_backend of a session without a connection.
	conn       *backend.ConnInfo
	start      time.Time
	act        activity
	gone       chan struct{}
	notices    []backend.Notice // for the client (Notices); guarded by mu
	goneOnce   sync.Once
	terminated atomic.Bool
}

var _ backend.Session = (*Session)(nil)
var _ backend.Noticer = (*Session)(nil)
var _ backend.Backend = (*DB)(nil)

// NewSession implements backend.Backend.
func (db *DB) NewSession(ctx context.Context, params map[string]string) (backend.Session, error) {
	// psql and libpq name the database after the user when none is given;
	// such a database need not exist: the session gets the default one.
	name := params["database"]
	if name == "" || name == params["user"] {
		if _, err := db.Catalog().Database(name); err != nil {
			name = DefaultDatabase
		}
	}
	return db.openSession(name, connInfo(ctx), params)
}

// DefaultDatabase is the database every store has.
const DefaultDatabase = "kvsql"

// Session opens a session on the named database ("" means the default
// database, which exists in every store; so does "postgres").
func (db *DB) Session(database string) (*Session, error) {
	return db.openSession(database, nil, nil)
}

// openSession opens and registers a session; conn is its client
// connection (nil in process), params the startup parameters (user,
// application_name).
func (db *DB) openSession(database string, conn *backend.ConnInfo, params map[string]string) (*Session, error) {
	if database == "" || database == "postgres" || database == "template1" {
		database = DefaultDatabase
	}
	if database != DefaultDatabase {
		if _, err := db.Catalog().Database(database); err != nil {
			return nil, pgerror.Newf(pgerror.InvalidCatalogName, "database %q does not exist", database)
		}
	} else if err := db.ensureDefaultDatabase(); err != nil {
		return nil, err
	}
	s := &Session{db: db, database: database, user: "kvsql",
		settings: db.defaultSettings(), changed: map[string]string{}, currvals: map[uint64]int64{},
		conn: conn, start: time.Now(), gone: make(chan struct{})}
	if conn != nil && !conn.Start.IsZero() {
		s.start = conn.Start
	}
	if u := params["user"]; u != "" {
		s.user = u
	}
	s.settings["role"], s.settings["session_authorization"] = "none", s.user
	if !s.isSuperuser(db.Catalog(), s.user) {
		s.settings["is_superuser"] = "off"
	}
	if app, ok := params["application_name"]; ok {
		s.settings["application_name"] = app
	}
	db.register(s)
	return s, nil
}

func (db *DB) ensureDefaultDatabase() error {
	if _, err := db.Catalog().Database(DefaultDatabase); err == nil {
		return nil
	}
	t := db.begin()
	cat, err := t.cat.CreateDatabase(t.kv, DefaultDatabase)
	if err != nil {
		db.rollback(t)
		if pgerror.HasCode(err, pgerror.DuplicateDatabase) {
			return nil
		}
		return err
	}
	t.setCatalog(cat)
	if err := db.commit(t); err != nil && !pgerror.HasCode(err, pgerror.SerializationFailure) {
		return err
	}
	return nil
}

// Database is the session's database.
func (s *Session) Database() string { return s.database }

// TxnStatus implements backend.Session: 'I' idle, 'T' in a transaction, 'E'
// in a failed transaction.
func (s *Session) TxnStatus() byte {
	switch {
	case s.cur == nil:
		return 'I'
	case s.cur.failed:
		return 'E'
	}
	return 'T'
}

// Fail implements backend.Session: an error the client was sent, from any
// layer, fails the open transaction block; until ROLLBACK (or ROLLBACK TO
// a savepoint) every statement gets 25P02 and COMMIT rolls back.
func (s *Session) Fail(err error) {
	if pgerror.HasCode(err, pgerror.SerializationFailure) {
		s.retryFloor = s.db.sync.applied.Load()
	}
	if s.cur != nil {
		s.cur.failed = true
		s.failedIdle()
	}
}

// Close implements backend.Session; an open transaction is rolled back.
func (s *Session) Close() error {
	defer s.db.unregister(s)
	if s.cur != nil {
		s.db.rollback(s.cur)
		s.cur = nil
	}
	for _, c := range s.cursors {
		c.close()
	}
	s.db.advisory.releaseAll(s.advisory)
	s.advisory = nil
	s.unlistenAll() // notify.go
	return s.dropTempSchema()
}

// Prepare implements backend.Session: it parses sql and returns one Statement
// per statement in it. A statement of a Parse message (paramOIDs non-nil)
// is planned now, so an unknown table or column is reported at Parse as
// PostgreSQL does; the statements of a simple query are planned when they
// run (an earlier one may create what a later one uses).
func (s *Session) Prepare(ctx context.Context, sql string, paramOIDs []uint32) ([]backend.Statement, error) {
	if paramOIDs == nil && int64(len(sql)) <= s.db.maxValueSize() {
		if st := s.cachedQuery(sql); st != nil {
			return []backend.Statement{st}, nil
		}
	}
	stmts, err := parse.Parse(sql)
	if err != nil {
		return nil, err
	}
	if int64(len(sql)) > s.db.maxValueSize() {
		if err := checkLiterals(stmts, s.db.maxValueSize()); err != nil {
			return nil, err
		}
	}
	out := make([]backend.Statement, 0, len(stmts))
	for i := range stmts {
		for _, n := range stmts[i].Notices {
			s.notice(n)
		}
		st := &stmt{s: s, p: &stmts[i], sql: sql}
		for _, oid := range paramOIDs {
			t, _ := types.TypeByOID(oid)
			st.declared = append(st.declared, t)
		}
		if paramOIDs != nil && len(stmts) == 1 {
			switch st.kind() {
			case kindPlan, kindExplain:
				if err := st.ensurePlan(s.catalog()); err != nil {
					return nil, err
				}
			}
		}
		out = append(out, st)
	}
	return out, nil
}

// catalog is the catalog the session's next statement sees.
func (s *Session) catalog() *catalog.Catalog {
	if s.cur != nil {
		return s.cur.cat
	}
	return s.db.Catalog()
}

func (s *Session) planner(cat *catalog.Catalog) *planner.Planner {
	return &planner.Planner{Catalog: cat, DB: s.database, Bootstrap: s.bootstrapName(cat), Privilege: s.privilegeCheck(cat), SearchPath: s.searchPath(), TempSchema: s.tempSchema(), Disabled: s.db.opts.DisabledRules, VectorMinRows: s.db.opts.VectorMinRows, RowCount: func(t *catalog.Table) float64 {
		return float64(s.db.rowCounter(t.ID).Load())
	}, Activity: s.db.Activity, Cursors: s.cursorList, CurrentOf: s.currentRowKey}
}

// stmtEnv is an executor context with the values its interface fields
// point at, allocated together: one allocation where the context and
// each boxed value were one apiece.
type stmtEnv struct {
	ec       exec.Ctx
	seq      seqOps
	backends backends
	routines routineOps
	hooks    stmtHooks
	advisory advisoryOps
}

// stmtHooks are exec.Hooks for one statement of s in t.
type stmtHooks struct {
	s   *Session
	t   *txn
	ctx context.Context
	// active are the triggers running when the statement is a trigger's
	// step (nil for a client's statement).
	active []*catalog.Trigger
}

var _ exec.Hooks = (*stmtHooks)(nil)

// TriggerDepth implements eval.Server.
func (h *stmtHooks) TriggerDepth() int { return h.s.triggerDepth }

// ConnAddrs implements eval.Server: the connection's two ends, nil in
// process.
func (h *stmtHooks) ConnAddrs() (server, client net.Addr) {
	if c := h.s.conn; c != nil {
		return c.LocalAddr, c.RemoteAddr
	}
	return nil, nil
}

// StartTime implements eval.Server.
func (h *stmtHooks) StartTime() time.Time { return h.s.db.started }

// XactID implements eval.Server: t's id, handed out on first use.
func (h *stmtHooks) XactID(assign bool) (int64, bool) {
	if h.t.xid == 0 && assign {
		h.t.xid = h.s.db.xids.Add(1)
	}
	return h.t.xid, h.t.xid != 0
}

func (h *stmtHooks) Fire(tbl *catalog.Table, timing, event string, old, new []types.Datum, set []int) error {
	return h.s.fire(h.ctx, h.t, h.active, tbl, timing, event, old, new, set)
}

func (h *stmtHooks) LockRow(tbl *catalog.Table, key []byte, mode planner.RowLock) (bool, error) {
	if !h.t.registered {
		return true, nil // a read-only snapshot: it writes nothing
	}
	return h.s.db.acquireLock(h.ctx, h.t, tbl, key, mode, h.s.lockOptions())
}

func (h *stmtHooks) Foreign(name string) (foreign.Store, error) {
	return h.s.db.foreignReadStore(h.t, name)
}

func (h *stmtHooks) ForeignWrite(name string) (foreign.Store, error) {
	return h.s.db.foreignWriteStore(h.t, name)
}

// execCtx is the executor context for one statement in t.
func (s *Session) execCtx(ctx context.Context, t *txn, params []types.Datum) *exec.Ctx {
	return s.execCtxIn(&stmtEnv{}, ctx, t, params)
}

// execCtxIn is execCtx made in env, which it overwrites: a kept operator
// tree's execution reuses the stmtEnv of the tree's previous one, done
// with since that execution's result closed (treeCache.env).
func (s *Session) execCtxIn(env *stmtEnv, ctx context.Context, t *txn, params []types.Datum) *exec.Ctx {
	var read kv.Reader
	if t.registered {
		// A transaction that may write: the statement reads the state at
		// its start, never its own writes (exec.Ctx.Read).
		read = t.kv.View()
	}
	stmt := time.Now()
	if t.start.IsZero() {
		t.start = stmt
	}
	if s.nextValFn == nil {
		// Method values allocate: made once per session.
		s.nextValFn, s.warnFn, s.roleNameFn, s.privilegeFn = s.serialNextVal, s.warn, s.roleNameOf, s.privilegeFunc // sequence.go, role.go
	}
	*env = stmtEnv{seq: seqOps{s: s, cat: t.cat}, backends: backends{db: s.db, s: s}, routines: routineOps{s: s, t: t, ctx: ctx}, hooks: stmtHooks{s: s, t: t, ctx: ctx}, advisory: advisoryOps{s: s, t: t}}
	env.ec = exec.Ctx{
		Context:       ctx,
		RW:            t.kv,
		Read:          read,
		Deferred:      &t.deferred,
		Params:        params,
		Now:           t.start,
		StmtNow:       stmt,
		Loc:           s.Location(),
		IntervalStyle: s.IntervalStyle(),
		FloatDigits:   s.FloatDigits(),
		WorkMem:       s.workMem(),
		MaxQueryMem:   s.queryMemLimit(),
		MaxValueSize:  s.db.maxValueSize(),
		TempDir:       s.db.opts.TempDir,
		NextVal:       s.nextValFn,
		Hooks:         &env.hooks,

		Database:    s.database,
		User:        s.currentRole(),
		SessionUser: s.sessionUser(),
		RoleName:    s.roleNameFn,
		Privilege:   s.privilegeFn,
		BackendPID:  int32(s.pid),
		Seq:         &env.seq,
		Backends:    &env.backends,
		Settings:    settingOps{s: s},
		Routines:    &env.routines,
		Advisory:    &env.advisory,
		Server:      &env.hooks,
		Warn:        s.warnFn,
	}
	return &env.ec
}

func (s *Session) workMem() int64 {
	if n, ok := s.settingNumber(&s.parsed.workMem, "work_mem", parseMemory); ok {
		return n
	}
	if s.db.opts.WorkMem > 0 {
		return s.db.opts.WorkMem
	}
	return exec.DefaultWorkMem
}

// Result is the outcome of one statement run in process.
type Result struct {
	Columns []backend.Column
	Rows    [][]types.Datum
	Tag     string
}

// Exec runs every statement in sql and returns their results; it stops at
// the first error. It is the in-process counterpart of a simple Query.
//
// As over the wire, any error fails an open transaction block (Fail).
func (s *Session) Exec(ctx context.Context, sql string, params ...types.Datum) ([]Result, error) {
	out, err := s.exec(ctx, sql, params)
	if err != nil {
		s.Fail(err)
	}
	return out, err
}

func (s *Session) exec(ctx context.Context, sql string, params []types.Datum) ([]Result, error) {
	stmts, err := s.Prepare(ctx, sql, nil)
	if err != nil {
		return nil, err
	}
	var out []Result
	for _, st := range stmts {
		r := Result{Columns: st.Columns()}
		res, err := st.Execute(ctx, params)
		if err != nil {
			return out, err
		}
		for res.Next() {
			r.Rows = append(r.Rows, append([]types.Datum(nil), res.Row()...))
		}
		if err := res.Err(); err != nil {
			_ = res.Close()
			return out, err
		}
		if err := res.Close(); err != nil {
			return out, err
		}
		r.Tag = res.Tag()
		out = append(out, r)
	}
	return out, nil
}

// begin starts a writing transaction in the session's database, at the
// durable state (DB.begin), or after a serialization failure at one
// holding every commit applied when it failed (DB.beginFrom).
func (s *Session) begin() *txn {
	floor := s.retryFloor
	s.retryFloor = 0
	return s.setupTxn(s.db.beginFrom(floor))
}

// setupTxn gives a new transaction the session's database, process ID
// and transaction defaults.
func (s *Session) setupTxn(t *txn) *txn {
	t.database = s.database
	t.pid = s.pid
	t.readOnly = s.defaultReadOnly()
	t.deferrable = s.defaultDeferrable()
	t.setIsolation(s.defaultIsolation())
	return t
}
