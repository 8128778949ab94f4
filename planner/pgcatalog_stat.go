package planner

import (
	"strings"
	"time"

	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/types"
)

// BackendActivity is one session as pg_stat_activity shows it; the
// session layer fills it in (Planner.Activity).
type BackendActivity struct {
	PID             int32
	Database, User  string
	ApplicationName string
	// ClientAddr and ClientPort are the client's address; "" and -1 for
	// a session without a connection (in process; PostgreSQL shows a
	// Unix-socket client so).
	ClientAddr string
	ClientPort int
	// The zero time is NULL.
	BackendStart, XactStart, QueryStart, StateChange time.Time
	// State is "active", "idle", "idle in transaction" or "idle in
	// transaction (aborted)"; Query the running statement's text, or the
	// last one's when idle.
	State, Query string
	// Copy and CreateIndex are the progress of the session's running COPY
	// or CREATE INDEX, nil when none runs (pg_stat_progress_copy and
	// pg_stat_progress_create_index).
	Copy        *CopyProgress
	CreateIndex *IndexProgress
	// Vacuum, Cluster and Analyze are the progress of the session's
	// running VACUUM, table rewrite (VACUUM FULL or an ALTER TABLE that
	// rewrites the rows) or ANALYZE, nil when none runs.
	Vacuum  *VacuumProgress
	Cluster *ClusterProgress
	Analyze *AnalyzeProgress
}

// CopyProgress is one running COPY as pg_stat_progress_copy shows it.
type CopyProgress struct {
	RelID   int64  // the table's OID; 0 for COPY (query) TO
	Command string // "COPY FROM" or "COPY TO"
	// Type is where the data comes from or goes to: "PIPE" (STDIN or
	// STDOUT, the only kind kvsql has).
	Type                            string
	BytesProcessed, TuplesProcessed int64
}

// IndexProgress is one running CREATE INDEX or REINDEX as
// pg_stat_progress_create_index shows it. kvsql builds an index in one
// pass over the table, writing each row's entry as it reads the row, so
// the only phase it reports is "building index: loading tuples in tree",
// with the table's live-row estimate as tuples_total; it has no blocks
// and waits for no lockers.
type IndexProgress struct {
	RelID, IndexRelID       int64
	Command, Phase          string
	TuplesTotal, TuplesDone int64
}

// VacuumProgress is one running VACUUM as pg_stat_progress_vacuum shows
// it. kvsql's VACUUM compacts the table's key space ("vacuuming heap")
// and then each index's ("vacuuming indexes", counted in
// IndexVacuumCount); it has no blocks and no dead-tuple array, so those
// columns are 0.
type VacuumProgress struct {
	RelID            int64
	Phase            string
	IndexVacuumCount int64
}

// ClusterProgress is one running table rewrite as
// pg_stat_progress_cluster shows it: VACUUM FULL, and the ALTER TABLE
// forms that rewrite every row (SET DATA TYPE, ADD PRIMARY KEY), with
// Command "ALTER TABLE". PostgreSQL 15 reports its own ALTER TABLE
// rewrites nowhere; kvsql shows them in the view of PostgreSQL's other
// rewrites rather than in a view of its own. Block counts are 0.
type ClusterProgress struct {
	RelID                        int64
	Command, Phase               string
	TuplesScanned, TuplesWritten int64
	IndexRebuildCount            int64
}

// AnalyzeProgress is one running ANALYZE as pg_stat_progress_analyze
// shows it: kvsql reads every row ("acquiring sample rows") and has no
// extended statistics or blocks.
type AnalyzeProgress struct {
	RelID int64
	Phase string
}

func init() {
	// PostgreSQL 15's columns, in its order. kvsql has no oid, name, inet
	// or xid type: oid and xid columns are bigint, name and inet text.
	pgCatalogRelations["pg_stat_activity"] = &vrel{vcols("datid", "o", "datname", "t", "pid", "i4",
		"leader_pid", "i4", "usesysid", "o", "usename", "t", "application_name", "t", "client_addr", "t",
		"client_hostname", "t", "client_port", "i4", "backend_start", "tz", "xact_start", "tz",
		"query_start", "tz", "state_change", "tz", "wait_event_type", "t", "wait_event", "t", "state", "t",
		"backend_xid", "i8", "backend_xmin", "i8", "query_id", "i8", "query", "t", "backend_type", "t"), pgStatActivity}
	pgCatalogRelations["pg_stat_progress_copy"] = &vrel{vcols("pid", "i4", "datid", "o", "datname", "t",
		"relid", "o", "command", "t", "type", "t", "bytes_processed", "i8", "bytes_total", "i8",
		"tuples_processed", "i8", "tuples_excluded", "i8"), pgStatProgressCopy}
	pgCatalogRelations["pg_stat_progress_create_index"] = &vrel{vcols("pid", "i4", "datid", "o", "datname", "t",
		"relid", "o", "index_relid", "o", "command", "t", "phase", "t", "lockers_total", "i8", "lockers_done", "i8",
		"current_locker_pid", "i8", "blocks_total", "i8", "blocks_done", "i8", "tuples_total", "i8", "tuples_done", "i8",
		"partitions_total", "i8", "partitions_done", "i8"), pgStatProgressCreateIndex}
	pgCatalogRelations["pg_stat_progress_vacuum"] = &vrel{vcols("pid", "i4", "datid", "o", "datname", "t",
		"relid", "o", "phase", "t", "heap_blks_total", "i8", "heap_blks_scanned", "i8", "heap_blks_vacuumed", "i8",
		"index_vacuum_count", "i8", "max_dead_tuples", "i8", "num_dead_tuples", "i8"), pgStatProgressVacuum}
	pgCatalogRelations["pg_stat_progress_cluster"] = &vrel{vcols("pid", "i4", "datid", "o", "datname", "t",
		"relid", "o", "command", "t", "phase", "t", "cluster_index_relid", "o", "heap_tuples_scanned", "i8",
		"heap_tuples_written", "i8", "heap_blks_total", "i8", "heap_blks_scanned", "i8", "index_rebuild_count", "i8"),
		pgStatProgressCluster}
	pgCatalogRelations["pg_stat_progress_analyze"] = &vrel{vcols("pid", "i4", "datid", "o", "datname", "t",
		"relid", "o", "phase", "t", "sample_blks_total", "i8", "sample_blks_scanned", "i8", "ext_stats_total", "i8",
		"ext_stats_computed", "i8", "child_tables_total", "i8", "child_tables_done", "i8",
		"current_child_table_relid", "o"), pgStatProgressAnalyze}
}

// pgStatActivity lists every session of the server. Its rows change from
// one execution to the next, so the plan is marked Volatile and never
// reused.
func pgStatActivity(g *vgen) [][]Expr {
	var rows [][]Expr
	for _, a := range g.activity() {
		var datid any
		if a.Database != "" {
			datid = g.databaseOID(a.Database)
		}
		var addr, port any
		if a.ClientAddr != "" {
			addr, port = a.ClientAddr, a.ClientPort
		}
		rows = append(rows, vrow(datid, a.Database, int(a.PID), nil, oidBootstrapRole, a.User,
			a.ApplicationName, addr, nil, port, tsOrNull(a.BackendStart), tsOrNull(a.XactStart),
			tsOrNull(a.QueryStart), tsOrNull(a.StateChange), nil, nil, a.State, nil, nil, nil, a.Query,
			"client backend"))
	}
	return rows
}

// pgStatProgressCopy lists the sessions running a COPY. Volatile, as
// pg_stat_activity is.
func pgStatProgressCopy(g *vgen) [][]Expr {
	var rows [][]Expr
	for _, a := range g.activity() {
		if c := a.Copy; c != nil {
			// bytes_total is 0 for a pipe, as in PostgreSQL: the size is
			// not known in advance.
			rows = append(rows, vrow(int(a.PID), g.databaseOID(a.Database), a.Database, c.RelID, c.Command, c.Type,
				c.BytesProcessed, 0, c.TuplesProcessed, 0))
		}
	}
	return rows
}

// pgStatProgressCreateIndex lists the sessions building an index.
func pgStatProgressCreateIndex(g *vgen) [][]Expr {
	var rows [][]Expr
	for _, a := range g.activity() {
		if c := a.CreateIndex; c != nil {
			rows = append(rows, vrow(int(a.PID), g.databaseOID(a.Database), a.Database, c.RelID, c.IndexRelID,
				c.Command, c.Phase, 0, 0, 0, 0, 0, c.TuplesTotal, c.TuplesDone, 0, 0))
		}
	}
	return rows
}

// pgStatProgressVacuum lists the sessions running a VACUUM.
func pgStatProgressVacuum(g *vgen) [][]Expr {
	var rows [][]Expr
	for _, a := range g.activity() {
		if v := a.Vacuum; v != nil {
			rows = append(rows, vrow(int(a.PID), g.databaseOID(a.Database), a.Database, v.RelID, v.Phase,
				0, 0, 0, v.IndexVacuumCount, 0, 0))
		}
	}
	return rows
}

// pgStatProgressCluster lists the sessions rewriting a table.
func pgStatProgressCluster(g *vgen) [][]Expr {
	var rows [][]Expr
	for _, a := range g.activity() {
		if c := a.Cluster; c != nil {
			rows = append(rows, vrow(int(a.PID), g.databaseOID(a.Database), a.Database, c.RelID, c.Command, c.Phase,
				0, c.TuplesScanned, c.TuplesWritten, 0, 0, c.IndexRebuildCount))
		}
	}
	return rows
}

// pgStatProgressAnalyze lists the sessions running an ANALYZE.
func pgStatProgressAnalyze(g *vgen) [][]Expr {
	var rows [][]Expr
	for _, a := range g.activity() {
		if an := a.Analyze; an != nil {
			rows = append(rows, vrow(int(a.PID), g.databaseOID(a.Database), a.Database, an.RelID, an.Phase,
				0, 0, 0, 0, 0, 0, 0))
		}
	}
	return rows
}

// activity is the server's sessions (none without Planner.Activity);
// reading them makes the plan Volatile.
func (g *vgen) activity() []BackendActivity {
	g.b.p.Volatile = true
	if g.b.p.Activity == nil {
		return nil
	}
	return g.b.p.Activity()
}

// CursorInfo is one open cursor of the session as pg_cursors shows it;
// the session layer fills it in (Planner.Cursors).
type CursorInfo struct {
	Name string
	// Statement is the text of the query string that declared it.
	Statement                    string
	Holdable, Binary, Scrollable bool
	Created                      time.Time
}

func init() {
	pgCatalogRelations["pg_cursors"] = &vrel{vcols("name", "t", "statement", "t", "is_holdable", "b",
		"is_binary", "b", "is_scrollable", "b", "creation_time", "tz"), pgCursors}
}

// pgCursors lists the session's cursors. They change without the catalog
// changing, so the plan is marked Volatile and never reused.
func pgCursors(g *vgen) [][]Expr {
	g.b.p.Volatile = true
	if g.b.p.Cursors == nil {
		return nil
	}
	var rows [][]Expr
	for _, c := range g.b.p.Cursors() {
		rows = append(rows, vrow(c.Name, c.Statement, c.Holdable, c.Binary, c.Scrollable, tsOrNull(c.Created)))
	}
	return rows
}

// tsOrNull is t as a timestamptz constant, or NULL for the zero time.
func tsOrNull(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return &Const{Value: types.NewTimestamp(t.UnixMicro()), T: tTSTZ}
}

// bindSignal binds pg_cancel_backend(pid int4) and
// pg_terminate_backend(pid int4, timeout int8 DEFAULT 0), both boolean.
func bindSignal(name string, args []Expr) (Expr, error) {
	want := []types.T{tInt4, tInt8}
	if len(args) < 1 || len(args) > 2 || (name == "pg_cancel_backend" && len(args) != 1) {
		return nil, pgerror.Newf(pgerror.UndefinedFunction, "function %s(%s) does not exist", name, argList(args))
	}
	out := make([]Expr, len(args))
	for i, a := range args {
		switch f := a.Type().Family; {
		case f == types.Unknown, f == types.Int2, f == types.Int4, i == 1 && f == types.Int8:
			x, err := coerce(a, want[i])
			if err != nil {
				return nil, err
			}
			out[i] = x
		default:
			e := pgerror.Newf(pgerror.UndefinedFunction, "function %s(%s) does not exist", name, argList(args))
			e.Hint = "No function matches the given name and argument types. You might need to add explicit type casts."
			return nil, e
		}
	}
	if c := foldStrictFunc(name, tBool, out); c != nil {
		return c, nil
	}
	return &Func{Name: name, Args: out, T: tBool}, nil
}

// argList names the types of args as PostgreSQL's "function f(...) does
// not exist" does.
func argList(args []Expr) string {
	s := ""
	for i, a := range args {
		if i > 0 {
			s += ", "
		}
		if a.Type().Family == types.Unknown {
			s += "unknown"
		} else {
			s += a.Type().String()
		}
	}
	return s
}

// bindAdvisory binds an advisory lock function: a bigint key, or two
// integer keys (none for pg_advisory_unlock_all). The locking ones return
// void (empty text here), the trying and unlocking ones a boolean.
func bindAdvisory(name string, args []Expr) (Expr, error) {
	want := []types.T{tInt8}
	switch {
	case name == "pg_advisory_unlock_all":
		want = nil
	case len(args) == 2:
		want = []types.T{tInt4, tInt4}
	}
	if len(args) != len(want) {
		return nil, pgerror.Newf(pgerror.UndefinedFunction, "function %s(%s) does not exist", name, argList(args))
	}
	out := make([]Expr, len(args))
	for i, a := range args {
		f := a.Type().Family
		if f != types.Unknown && !isInteger(f) || f == types.Int8 && want[i].Family == types.Int4 {
			e := pgerror.Newf(pgerror.UndefinedFunction, "function %s(%s) does not exist", name, argList(args))
			e.Hint = "No function matches the given name and argument types. You might need to add explicit type casts."
			return nil, e
		}
		x, err := coerce(a, want[i])
		if err != nil {
			return nil, err
		}
		out[i] = x
	}
	t := tText // void
	if strings.HasPrefix(name, "pg_try_") || strings.HasPrefix(name, "pg_advisory_unlock") && name != "pg_advisory_unlock_all" {
		t = tBool
	}
	return &Func{Name: name, Args: out, T: t}, nil
}
