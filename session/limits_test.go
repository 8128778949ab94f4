package session_test

// Resource limits under hostile SQL: identifiers past 63 bytes, values
// past the value cap, queries past the per-query memory limit, spill
// files after cancel / error / disconnect, and a huge result to a client
// that stops reading. Each test also checks that the server keeps
// serving other clients.

import (
	"context"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/kvsql/kvsql/internal/testkit"
)

// TestIdentifierTruncation: an identifier longer than 63 bytes is cut to
// 63 bytes (at a UTF-8 character boundary) with PostgreSQL's NOTICE
// 42622, and the object is then reachable by either spelling.
func TestIdentifierTruncation(t *testing.T) {
	ts := testkit.StartServer(t, nil, nil)
	for _, m := range modes {
		t.Run(m.name, func(t *testing.T) {
			cfg, err := pgx.ParseConfig(ts.URL())
			if err != nil {
				t.Fatal(err)
			}
			cfg.DefaultQueryExecMode = m.mode
			var notices []*pgconn.Notice
			cfg.OnNotice = func(_ *pgconn.PgConn, n *pgconn.Notice) { notices = append(notices, n) }
			ctx := context.Background()
			conn, err := pgx.ConnectConfig(ctx, cfg)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close(ctx)

			long := "t_" + m.name + "_" + strings.Repeat("abcdefghij", 7) // > 63 bytes
			short := long[:63]
			mustExec(t, conn, "CREATE TABLE "+strings.ToUpper(long)+" (x int)")
			if len(notices) != 1 {
				t.Fatalf("notices after CREATE TABLE: %d, want 1", len(notices))
			}
			want := `identifier "` + long + `" will be truncated to "` + short + `"`
			if n := notices[0]; n.Code != "42622" || n.Severity != "NOTICE" || n.Message != want {
				t.Errorf("notice %s %s %q, want NOTICE 42622 %q", n.Severity, n.Code, n.Message, want)
			}
			mustExec(t, conn, "INSERT INTO "+short+" VALUES (1)", `INSERT INTO "`+long+`" VALUES (2)`)
			var n int64
			if err := conn.QueryRow(ctx, "SELECT count(*) FROM "+long).Scan(&n); err != nil || n != 2 {
				t.Errorf("count by the long name: %d, %v", n, err)
			}
			var name string
			if err := conn.QueryRow(ctx, "SELECT relname::text FROM pg_class WHERE relname = '"+short+"'").Scan(&name); err != nil || name != short {
				t.Errorf("pg_class holds %q, %v; want %q", name, err, short)
			}

			// A quoted identifier of two-byte characters is cut before
			// the character that would cross byte 63.
			notices = nil
			e := strings.Repeat("é", 40) // 80 bytes
			rows, err := conn.Query(ctx, `SELECT 1 AS "`+e+`"`)
			if err != nil {
				t.Fatal(err)
			}
			col := string(rows.FieldDescriptions()[0].Name)
			rows.Close()
			if col != strings.Repeat("é", 31) {
				t.Errorf("column name %q (%d bytes), want 31 é (62 bytes)", col, len(col))
			}
			if len(notices) != 1 || notices[0].Code != "42622" {
				t.Errorf("notices for the quoted identifier: %+v", notices)
			}

			// Exactly 63 bytes: no notice.
			notices = nil
			mustExec(t, conn, "SELECT 1 AS "+strings.Repeat("z", 63))
			if len(notices) != 0 {
				t.Errorf("a 63-byte identifier raised %d notices", len(notices))
			}
		})
	}
}
