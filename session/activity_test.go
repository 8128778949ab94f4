package session_test

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/kvsql/kvsql/internal/testkit"
	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/types"
)

// Issue 22, item 7 (Operations): pg_stat_activity, pg_cancel_backend,
// pg_terminate_backend, and a statement of a vanished client stopped at
// once, each over the wire as PostgreSQL 15 answers them.

const longQuery = "SELECT count(*) FROM generate_series(1, 10000000000)"

// activityState returns pid's state and query in pg_stat_activity, as
// seen by conn; found is false when pid is not listed.
func activityState(t *testing.T, conn *pgx.Conn, pid uint32) (state, query string, found bool) {
	t.Helper()
	err := conn.QueryRow(context.Background(), "SELECT state, query FROM pg_stat_activity WHERE pid = $1", int32(pid)).Scan(&state, &query)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", "", false
	}
	if err != nil {
		t.Fatal(err)
	}
	return state, query, true
}

// waitFor polls cond every 10 ms for up to 5 s.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if cond() {
			return
		}
	}
	t.Fatalf("after 5 s: %s", what)
}

// TestStatActivity: pg_stat_activity has PostgreSQL 15's columns, lists
// every connected session under the pid of BackendKeyData and
// pg_backend_pid(), follows each one's state, and forgets a session that
// disconnected. Its rows are read anew at every execution, also of a
// prepared statement.
func TestStatActivity(t *testing.T) {
	ts := testkit.StartServer(t, nil, nil)
	ctx := context.Background()
	a := ts.Connect(t, pgx.QueryExecModeSimpleProtocol)
	b := ts.Connect(t, pgx.QueryExecModeCacheStatement)

	var pid int32
	if err := a.QueryRow(ctx, "SELECT pg_backend_pid()").Scan(&pid); err != nil {
		t.Fatal(err)
	}
	if uint32(pid) != a.PgConn().PID() {
		t.Fatalf("pg_backend_pid() = %d, BackendKeyData said %d", pid, a.PgConn().PID())
	}

	rows, err := b.Query(ctx, "SELECT * FROM pg_stat_activity")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	oids := map[string]uint32{}
	for _, f := range rows.FieldDescriptions() {
		names = append(names, f.Name)
		oids[f.Name] = f.DataTypeOID
	}
	rows.Close()
	want := "datid datname pid leader_pid usesysid usename application_name client_addr client_hostname client_port backend_start xact_start query_start state_change wait_event_type wait_event state backend_xid backend_xmin query_id query backend_type"
	if got := strings.Join(names, " "); got != want {
		t.Fatalf("columns\n%s\nwant\n%s", got, want)
	}
	for col, oid := range map[string]uint32{"pid": types.Int4.OID(), "client_port": types.Int4.OID(), "backend_start": types.TimestampTZ.OID(), "state": types.Text.OID(), "query": types.Text.OID()} {
		if oids[col] != oid {
			t.Errorf("column %s has type OID %d, want %d", col, oids[col], oid)
		}
	}

	// b sees itself active, running the very query, and a idle.
	var self string
	var user, addr, backendType string
	var port int32
	err = b.QueryRow(ctx, "SELECT state, usename, client_addr, client_port, backend_type FROM pg_stat_activity WHERE pid = pg_backend_pid()").Scan(&self, &user, &addr, &port, &backendType)
	if err != nil || self != "active" || user != "tester" || addr != "127.0.0.1" || port <= 0 || backendType != "client backend" {
		t.Fatalf("own row: %q %q %q %d %q %v", self, user, addr, port, backendType, err)
	}
	check := func(wantState, wantQuery string) {
		t.Helper()
		state, query, found := activityState(t, b, uint32(pid))
		if !found || state != wantState || query != wantQuery {
			t.Fatalf("a: found %v state %q query %q, want %q %q", found, state, query, wantState, wantQuery)
		}
	}
	check("idle", "SELECT pg_backend_pid()")
	mustExec(t, a, "BEGIN")
	check("idle in transaction", "BEGIN")
	if _, err := a.Exec(ctx, "SELECT 1/0"); err == nil {
		t.Fatal("1/0: no error")
	}
	check("idle in transaction (aborted)", "SELECT 1/0")
	mustExec(t, a, "ROLLBACK")
	check("idle", "ROLLBACK")
	mustExec(t, a, "SET application_name = 'reporting'")
	var app string
	if err := b.QueryRow(ctx, "SELECT application_name FROM pg_stat_activity WHERE pid = $1", pid).Scan(&app); err != nil || app != "reporting" {
		t.Fatalf("application_name %q (%v), want reporting", app, err)
	}

	var xactNull, queryStartNull bool
	if err := b.QueryRow(ctx, "SELECT xact_start IS NULL, query_start IS NULL FROM pg_stat_activity WHERE pid = $1", pid).Scan(&xactNull, &queryStartNull); err != nil || !xactNull || queryStartNull {
		t.Fatalf("idle session: xact_start IS NULL %v, query_start IS NULL %v (%v); want true, false", xactNull, queryStartNull, err)
	}

	if err := a.Close(ctx); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "a closed session still in pg_stat_activity", func() bool {
		_, _, found := activityState(t, b, uint32(pid))
		return !found
	})
}

// TestCancelBackend: pg_cancel_backend(pid) makes that session's running
// statement fail with 57014 and answers true; a pid that is no session
// answers false; the session stays usable.
func TestCancelBackend(t *testing.T) {
	ts := testkit.StartServer(t, nil, nil)
	ctx := context.Background()
	a := ts.Connect(t, pgx.QueryExecModeSimpleProtocol)
	b := ts.Connect(t, pgx.QueryExecModeSimpleProtocol)
	pid := a.PgConn().PID()

	done := make(chan error, 1)
	go func() { _, err := a.Exec(ctx, longQuery); done <- err }()
	waitFor(t, "the long query is not active", func() bool {
		state, query, _ := activityState(t, b, pid)
		return state == "active" && query == longQuery
	})
	var ok bool
	if err := b.QueryRow(ctx, "SELECT pg_cancel_backend($1)", int32(pid)).Scan(&ok); err != nil || !ok {
		t.Fatalf("pg_cancel_backend: %v %v", ok, err)
	}
	select {
	case err := <-done:
		var pe *pgconn.PgError
		if !errors.As(err, &pe) || pe.Code != "57014" || pe.Message != "canceling statement due to user request" {
			t.Fatalf("cancelled statement: %v, want 57014", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the statement still runs 5 s after pg_cancel_backend")
	}
	mustExec(t, a, "SELECT 1")

	// Cancelling oneself fails the very statement, as in PostgreSQL.
	if _, err := a.Exec(ctx, "SELECT pg_cancel_backend(pg_backend_pid())"); !hasCode(err, "57014") {
		t.Fatalf("self-cancel: %v, want 57014", err)
	}
	mustExec(t, a, "SELECT 1")

	var none, null *bool
	if err := b.QueryRow(ctx, "SELECT pg_cancel_backend(0), pg_cancel_backend(NULL)").Scan(&none, &null); err != nil || none == nil || *none || null != nil {
		t.Fatalf("pg_cancel_backend of no session: %v, of NULL: %v (%v); want false, NULL", none, null, err)
	}
	if _, err := b.Exec(ctx, "SELECT pg_cancel_backend(1::bigint)"); !hasCode(err, "42883") {
		t.Fatalf("pg_cancel_backend(bigint): %v, want 42883", err)
	}

	// The answer for no session comes with PostgreSQL's WARNING.
	cfg, err := pgconn.ParseConfig(ts.URL())
	if err != nil {
		t.Fatal(err)
	}
	var notices []string
	cfg.OnNotice = func(_ *pgconn.PgConn, n *pgconn.Notice) {
		notices = append(notices, n.Severity+" "+n.Code+" "+n.Message)
	}
	pc, err := pgconn.ConnectConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer pc.Close(ctx)
	if _, err := pc.Exec(ctx, "SELECT pg_cancel_backend(12345); SELECT pg_terminate_backend(12346)").ReadAll(); err != nil {
		t.Fatal(err)
	}
	want := "[WARNING 01000 PID 12345 is not a PostgreSQL backend process WARNING 01000 PID 12346 is not a PostgreSQL backend process]"
	if got := fmt.Sprint(notices); got != want {
		t.Fatalf("notices %s, want %s", got, want)
	}
}

// TestTerminateBackend: pg_terminate_backend(pid, timeout) ends that
// connection: its running statement stops, the client gets FATAL 57P01,
// its transaction is rolled back and the session leaves
// pg_stat_activity before the call returns true.
func TestTerminateBackend(t *testing.T) {
	ts := testkit.StartServer(t, nil, nil)
	ctx := context.Background()
	a := ts.Connect(t, pgx.QueryExecModeSimpleProtocol)
	b := ts.Connect(t, pgx.QueryExecModeSimpleProtocol)
	pid := a.PgConn().PID()
	mustExec(t, b, "CREATE TABLE term (x INT)")
	mustExec(t, a, "BEGIN", "INSERT INTO term VALUES (1)")

	done := make(chan error, 1)
	go func() { _, err := a.Exec(ctx, longQuery); done <- err }()
	waitFor(t, "the long query is not active", func() bool {
		state, _, _ := activityState(t, b, pid)
		return state == "active"
	})
	var ok bool
	if err := b.QueryRow(ctx, "SELECT pg_terminate_backend($1, 5000)", int32(pid)).Scan(&ok); err != nil || !ok {
		t.Fatalf("pg_terminate_backend: %v %v", ok, err)
	}
	if _, _, found := activityState(t, b, pid); found {
		t.Fatal("terminated session still in pg_stat_activity")
	}
	select {
	case err := <-done:
		var pe *pgconn.PgError
		if !errors.As(err, &pe) || pe.Code != "57P01" || pe.Severity != "FATAL" || pe.Message != "terminating connection due to administrator command" {
			t.Fatalf("terminated statement: %v, want FATAL 57P01", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the statement still runs 5 s after pg_terminate_backend")
	}
	if !a.IsClosed() {
		if _, err := a.Exec(ctx, "SELECT 1"); err == nil {
			t.Fatal("terminated connection still answers")
		}
	}
	var n int
	if err := b.QueryRow(ctx, "SELECT count(*) FROM term").Scan(&n); err != nil || n != 0 {
		t.Fatalf("terminated transaction's row: count %d (%v), want 0", n, err)
	}

	// An idle connection is ended too.
	c := ts.Connect(t, pgx.QueryExecModeSimpleProtocol)
	if err := b.QueryRow(ctx, "SELECT pg_terminate_backend($1, 5000)", int32(c.PgConn().PID())).Scan(&ok); err != nil || !ok {
		t.Fatalf("pg_terminate_backend of an idle session: %v %v", ok, err)
	}
	if _, err := c.Exec(ctx, "SELECT 1"); err == nil {
		t.Fatal("terminated idle connection still answers")
	}

	// A session terminating itself gets no result, only the FATAL.
	d := ts.Connect(t, pgx.QueryExecModeSimpleProtocol)
	var self bool
	err := d.QueryRow(ctx, "SELECT pg_terminate_backend(pg_backend_pid())").Scan(&self)
	var pe *pgconn.PgError
	if !errors.As(err, &pe) || pe.Code != "57P01" || pe.Severity != "FATAL" {
		t.Fatalf("self-termination: %v (result %v), want FATAL 57P01", err, self)
	}

	var none bool
	if err := b.QueryRow(ctx, "SELECT pg_terminate_backend(0)").Scan(&none); err != nil || none {
		t.Fatalf("pg_terminate_backend(0): %v %v, want false", none, err)
	}
	if _, err := b.Exec(ctx, "SELECT pg_terminate_backend(1, -1)"); !hasCode(err, "22003") {
		t.Fatalf("negative timeout: %v, want 22003", err)
	}
}

// TestVanishedClient: a client that disconnects while its statement runs
// (a count over ten billion rows, which sends nothing until it ends) has
// the statement stopped and its session closed within seconds; it used to
// keep a core busy until the statement ended by itself.
func TestVanishedClient(t *testing.T) {
	ts := testkit.StartServer(t, nil, nil)
	ctx := context.Background()
	b := ts.Connect(t, pgx.QueryExecModeSimpleProtocol)

	nc, pid := rawConnect(t, ts)
	nc.Write(queryMsg(longQuery))
	waitFor(t, "the long query is not active", func() bool {
		state, _, _ := activityState(t, b, pid)
		return state == "active"
	})
	nc.Close()
	waitFor(t, "the vanished client's session is still in pg_stat_activity", func() bool {
		_, _, found := activityState(t, b, pid)
		return !found
	})
	var n int
	if err := b.QueryRow(ctx, "SELECT count(*) FROM pg_stat_activity").Scan(&n); err != nil || n != 1 {
		t.Fatalf("sessions left: %d (%v), want 1", n, err)
	}
}

// TestWatchKeepsPipelinedQueries: the watch reads ahead while a
// statement runs; queries the client sent meanwhile, in the same write or
// later, are still answered, in order.
func TestWatchKeepsPipelinedQueries(t *testing.T) {
	ts := testkit.StartServer(t, nil, nil)
	nc, _ := rawConnect(t, ts)
	defer nc.Close()
	slow := "SELECT count(*) FROM generate_series(1, 2000000)"
	nc.Write(append(queryMsg(slow), queryMsg("SELECT 'second'")...))
	time.Sleep(100 * time.Millisecond) // the first statement is being watched
	nc.Write(queryMsg("SELECT 'third'"))
	var got []string
	for len(got) < 6 {
		typ, body := readMsg(t, nc)
		switch typ {
		case 'D':
			got = append(got, string(body[6:]))
		case 'Z':
			got = append(got, "ready")
		case 'E':
			t.Fatalf("error: %q", body)
		}
	}
	if want := "[2000000 ready second ready third ready]"; fmt.Sprint(got) != want {
		t.Fatalf("answers %v, want %s", got, want)
	}
}

// rawConnect logs in over a plain socket and returns it and the pid from
// BackendKeyData, after ReadyForQuery.
func rawConnect(t *testing.T, ts *testkit.Server) (net.Conn, uint32) {
	t.Helper()
	nc, err := net.Dial("tcp", ts.Addr.String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { nc.Close() })
	startup := []byte("user\x00tester\x00database\x00kvsql\x00\x00")
	msg := binary.BigEndian.AppendUint32(nil, uint32(8+len(startup)))
	msg = binary.BigEndian.AppendUint32(msg, 196608)
	nc.Write(append(msg, startup...))
	var pid uint32
	for {
		typ, body := readMsg(t, nc)
		switch typ {
		case 'K':
			pid = binary.BigEndian.Uint32(body)
		case 'Z':
			return nc, pid
		}
	}
}

// queryMsg is a simple Query message.
func queryMsg(sql string) []byte {
	q := append([]byte(sql), 0)
	return append(binary.BigEndian.AppendUint32([]byte{'Q'}, uint32(4+len(q))), q...)
}

// readMsg reads one backend message.
func readMsg(t *testing.T, nc net.Conn) (byte, []byte) {
	t.Helper()
	var hdr [5]byte
	if _, err := readFull(nc, hdr[:]); err != nil {
		t.Fatal(err)
	}
	body := make([]byte, binary.BigEndian.Uint32(hdr[1:])-4)
	if _, err := readFull(nc, body); err != nil {
		t.Fatal(err)
	}
	return hdr[0], body
}

func readFull(nc net.Conn, b []byte) (int, error) {
	nc.SetReadDeadline(time.Now().Add(5 * time.Second))
	n := 0
	for n < len(b) {
		m, err := nc.Read(b[n:])
		n += m
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

func hasCode(err error, code string) bool {
	return pgerror.HasCode(err, pgerror.Code(code)) || func() bool {
		var pe *pgconn.PgError
		return errors.As(err, &pe) && pe.Code == code
	}()
}

// TestCancelInProcess: sessions opened in process are listed and can be
// cancelled and terminated as well (through their statement's context).
func TestCancelInProcess(t *testing.T) {
	db := testkit.OpenMem(t)
	ctx := context.Background()
	a := testkit.NewSession(t, db)
	b := testkit.NewSession(t, db)
	var pid int64
	res, err := a.Exec(ctx, "SELECT pg_backend_pid()")
	if err != nil {
		t.Fatal(err)
	}
	pid = res[0].Rows[0][0].I
	done := make(chan error, 1)
	go func() { _, err := a.Exec(ctx, longQuery); done <- err }()
	waitFor(t, "the long query is not active", func() bool {
		res, err := b.Exec(ctx, "SELECT state FROM pg_stat_activity WHERE pid = "+itoa(pid))
		return err == nil && len(res[0].Rows) == 1 && res[0].Rows[0][0].S == "active"
	})
	if res, err := b.Exec(ctx, "SELECT pg_cancel_backend("+itoa(pid)+")"); err != nil || !res[0].Rows[0][0].Bool() {
		t.Fatalf("pg_cancel_backend: %v", err)
	}
	if err := <-done; !hasCode(err, "57014") {
		t.Fatalf("cancelled: %v, want 57014", err)
	}
	if res, err := b.Exec(ctx, "SELECT pg_terminate_backend("+itoa(pid)+")"); err != nil || !res[0].Rows[0][0].Bool() {
		t.Fatalf("pg_terminate_backend: %v", err)
	}
	if _, err := a.Exec(ctx, "SELECT 1"); !hasCode(err, "57P01") {
		t.Fatalf("terminated session: %v, want 57P01", err)
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
