package session_test

import (
	"context"
	"errors"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/kvsql/kvsql/internal/testkit"
)

// TestErrorFields: an ErrorResponse names what it is about — schema,
// table, column and constraint — as PostgreSQL 15's does, so drivers can
// report them (pgconn.PgError.ConstraintName and friends). Each statement
// runs on kvsql and, when its binaries are present, on PostgreSQL, and the
// fields must agree; without PostgreSQL the expected fields below are
// checked alone.
func TestErrorFields(t *testing.T) {
	const setup = `CREATE TABLE acct (id INT PRIMARY KEY, email TEXT NOT NULL, note TEXT);
		CREATE UNIQUE INDEX acct_email_key ON acct (email);
		INSERT INTO acct VALUES (1, 'a@x', NULL)`
	cases := []struct {
		sql  string
		want pgconn.PgError
	}{
		{"INSERT INTO acct VALUES (1, 'b@x', NULL)", pgconn.PgError{Code: "23505", SchemaName: "public", TableName: "acct", ConstraintName: "acct_pkey"}},
		{"INSERT INTO acct VALUES (2, 'a@x', NULL)", pgconn.PgError{Code: "23505", SchemaName: "public", TableName: "acct", ConstraintName: "acct_email_key"}},
		{"UPDATE acct SET email = NULL", pgconn.PgError{Code: "23502", SchemaName: "public", TableName: "acct", ColumnName: "email"}},
		{"INSERT INTO acct (id) VALUES (3)", pgconn.PgError{Code: "23502", SchemaName: "public", TableName: "acct", ColumnName: "email"}},
	}
	run := func(t *testing.T, url string) []*pgconn.PgError {
		ctx := context.Background()
		conn, err := pgx.Connect(ctx, url)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close(ctx)
		if _, err := conn.Exec(ctx, "DROP TABLE IF EXISTS acct"); err != nil {
			t.Fatal(err)
		}
		if _, err := conn.Exec(ctx, setup); err != nil {
			t.Fatal(err)
		}
		var out []*pgconn.PgError
		for _, c := range cases {
			_, err := conn.Exec(ctx, c.sql)
			var pe *pgconn.PgError
			if !errors.As(err, &pe) {
				t.Fatalf("%s: got %v, want an error", c.sql, err)
			}
			out = append(out, pe)
		}
		return out
	}
	got := run(t, testkit.StartServer(t, nil, nil).URL())
	for i, c := range cases {
		g := got[i]
		if g.Code != c.want.Code || g.SchemaName != c.want.SchemaName || g.TableName != c.want.TableName ||
			g.ColumnName != c.want.ColumnName || g.ConstraintName != c.want.ConstraintName {
			t.Errorf("%s:\n got  code %s schema %q table %q column %q constraint %q\n want code %s schema %q table %q column %q constraint %q",
				c.sql, g.Code, g.SchemaName, g.TableName, g.ColumnName, g.ConstraintName,
				c.want.Code, c.want.SchemaName, c.want.TableName, c.want.ColumnName, c.want.ConstraintName)
		}
	}
	if testing.Short() || !testkit.HavePostgres() {
		t.Log("PostgreSQL not started (-short or no binaries): the expected fields were checked on kvsql alone")
		return
	}
	ref := run(t, testkit.StartPostgres(t))
	for i, c := range cases {
		r := ref[i]
		if r.Code != c.want.Code || r.SchemaName != c.want.SchemaName || r.TableName != c.want.TableName ||
			r.ColumnName != c.want.ColumnName || r.ConstraintName != c.want.ConstraintName {
			t.Errorf("PostgreSQL disagrees with the expected fields of %s: code %s schema %q table %q column %q constraint %q",
				c.sql, r.Code, r.SchemaName, r.TableName, r.ColumnName, r.ConstraintName)
		}
	}
}
