package session_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/kvsql/kvsql/internal/testkit"
)

// TestPLRaiseNotices: RAISE below EXCEPTION reaches a real client as
// NoticeResponses with their severity, SQLSTATE, message, detail and
// hint; DEBUG and LOG stay below client_min_messages.
func TestPLRaiseNotices(t *testing.T) {
	ts := testkit.StartServer(t, nil, nil)
	ctx := context.Background()
	cfg, err := pgconn.ParseConfig(ts.URL())
	if err != nil {
		t.Fatal(err)
	}
	var notices []string
	cfg.OnNotice = func(_ *pgconn.PgConn, n *pgconn.Notice) {
		notices = append(notices, fmt.Sprintf("%s %s %s|%s|%s", n.Severity, n.Code, n.Message, n.Detail, n.Hint))
	}
	pc, err := pgconn.ConnectConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer pc.Close(ctx)
	body := `DO $$
DECLARE n int := 7;
BEGIN
  RAISE NOTICE 'n is %, 100%%', n;
  RAISE INFO 'info';
  RAISE DEBUG 'hidden';
  RAISE LOG 'hidden too';
  RAISE WARNING 'careful' USING DETAIL = 'd', HINT = 'h';
  RAISE NOTICE 'null is %', NULL;
END $$`
	if _, err := pc.Exec(ctx, body).ReadAll(); err != nil {
		t.Fatal(err)
	}
	want := "[NOTICE 00000 n is 7, 100%|| INFO 00000 info|| WARNING 01000 careful|d|h NOTICE 00000 null is <NULL>||]"
	if got := fmt.Sprint(notices); got != want {
		t.Fatalf("notices %s\nwant %s", got, want)
	}
}

// TestPLLoopInterrupted: statement_timeout and a cancel stop a PL/pgSQL
// loop that would never end (57014), and the session goes on.
func TestPLLoopInterrupted(t *testing.T) {
	ts := testkit.StartServer(t, nil, nil)
	ctx := context.Background()
	conn := ts.Connect(t, pgx.QueryExecModeSimpleProtocol)
	mustExec(t, conn, "SET statement_timeout = '200ms'")
	start := time.Now()
	if _, err := conn.Exec(ctx, "DO $$ BEGIN LOOP END LOOP; END $$"); !hasCode(err, "57014") {
		t.Fatalf("endless loop under statement_timeout: %v, want 57014", err)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Fatalf("the loop ran %v past a 200ms timeout", d)
	}
	mustExec(t, conn, "SET statement_timeout = 0")

	cctx, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	defer cancel()
	if _, err := conn.Exec(cctx, "DO $$ DECLARE i int := 0; BEGIN WHILE true LOOP i := i + 1; END LOOP; END $$"); err == nil {
		t.Fatal("cancelled endless loop: no error")
	}
	conn = ts.Connect(t, pgx.QueryExecModeSimpleProtocol)
	mustExec(t, conn, "SELECT 1")
}
