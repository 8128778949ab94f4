package planner

import (
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
}

func init() {
	// PostgreSQL 15's columns, in its order. kvsql has no oid, name, inet
	// or xid type: oid and xid columns are bigint, name and inet text.
	pgCatalogRelations["pg_stat_activity"] = &vrel{vcols("datid", "o", "datname", "t", "pid", "i4",
		"leader_pid", "i4", "usesysid", "o", "usename", "t", "application_name", "t", "client_addr", "t",
		"client_hostname", "t", "client_port", "i4", "backend_start", "tz", "xact_start", "tz",
		"query_start", "tz", "state_change", "tz", "wait_event_type", "t", "wait_event", "t", "state", "t",
		"backend_xid", "i8", "backend_xmin", "i8", "query_id", "i8", "query", "t", "backend_type", "t"), pgStatActivity}
}

// pgStatActivity lists every session of the server. Its rows change from
// one execution to the next, so the plan is marked Volatile and never
// reused.
func pgStatActivity(g *vgen) [][]Expr {
	g.b.p.Volatile = true
	if g.b.p.Activity == nil {
		return nil
	}
	var rows [][]Expr
	for _, a := range g.b.p.Activity() {
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
