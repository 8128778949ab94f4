package session_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/kvsql/kvsql/internal/testkit"
)

// wantPgError fails unless err is a server error with that SQLSTATE and
// message.
func wantPgError(t *testing.T, what string, err error, code, msg string) {
	t.Helper()
	var pe *pgconn.PgError
	if !errors.As(err, &pe) || pe.Code != code || pe.Message != msg {
		t.Errorf("%s: %v, want %s %q", what, err, code, msg)
	}
}

// TestWireRolesPermissionDenied drives roles through pgx: a client logging
// in as a stored role that is no superuser is refused a table it has no
// privilege on until one is granted, and SET ROLE on a superuser's
// connection re-checks a statement prepared before it (the cached plan
// was checked for another user).
func TestWireRolesPermissionDenied(t *testing.T) {
	ts := testkit.StartServer(t, nil, nil)
	ctx := context.Background()
	for _, mode := range modes {
		t.Run(mode.name, func(t *testing.T) {
			admin := ts.Connect(t, mode.mode)
			mustExec(t, admin, `CREATE ROLE app LOGIN`, `CREATE TABLE secrets (k int PRIMARY KEY, v text)`,
				`INSERT INTO secrets VALUES (1, 'a')`)
			defer mustExec(t, admin, `DROP TABLE secrets`, `DROP ROLE app`)

			var who string
			if err := admin.QueryRow(ctx, `SELECT current_user`).Scan(&who); err != nil || who != "tester" {
				t.Fatalf("current_user: %q, %v", who, err)
			}
			// Planned and cached as the superuser, then run as app.
			var n int64
			if err := admin.QueryRow(ctx, `SELECT count(*) FROM secrets`).Scan(&n); err != nil || n != 1 {
				t.Fatalf("count as superuser: %d, %v", n, err)
			}
			mustExec(t, admin, `SET ROLE app`)
			err := admin.QueryRow(ctx, `SELECT count(*) FROM secrets`).Scan(&n)
			wantPgError(t, "count as app", err, "42501", "permission denied for table secrets")
			_, err = admin.Exec(ctx, `INSERT INTO secrets VALUES (2, 'b')`)
			wantPgError(t, "insert as app", err, "42501", "permission denied for table secrets")
			mustExec(t, admin, `RESET ROLE`)

			// A client logged in as app: session_user is app.
			cfg, err := pgx.ParseConfig(strings.Replace(ts.URL(), "tester@", "app@", 1))
			if err != nil {
				t.Fatal(err)
			}
			cfg.DefaultQueryExecMode = mode.mode
			app, err := pgx.ConnectConfig(ctx, cfg)
			if err != nil {
				t.Fatal(err)
			}
			defer app.Close(ctx)
			var su string
			var super string
			if err := app.QueryRow(ctx, `SELECT session_user, current_setting('is_superuser')`).Scan(&su, &super); err != nil || su != "app" || super != "off" {
				t.Fatalf("session_user, is_superuser as app: %q %q, %v", su, super, err)
			}
			err = app.QueryRow(ctx, `SELECT v FROM secrets WHERE k = $1`, 1).Scan(&who)
			wantPgError(t, "select as app", err, "42501", "permission denied for table secrets")
			// The bootstrap superuser is postgres for a stored role's session.
			_, err = app.Exec(ctx, `SET ROLE postgres`)
			wantPgError(t, "SET ROLE to the bootstrap superuser", err, "42501", `permission denied to set role "postgres"`)

			mustExec(t, admin, `GRANT SELECT ON secrets TO app`)
			var v string
			if err := app.QueryRow(ctx, `SELECT v FROM secrets WHERE k = $1`, 1).Scan(&v); err != nil || v != "a" {
				t.Fatalf("select after GRANT: %q, %v", v, err)
			}
			_, err = app.Exec(ctx, `DELETE FROM secrets`)
			wantPgError(t, "delete as app", err, "42501", "permission denied for table secrets")
			mustExec(t, admin, `REVOKE SELECT ON secrets FROM app`)
			app.Close(ctx)
		})
	}
}
