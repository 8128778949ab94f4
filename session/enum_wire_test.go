package session_test

import (
	"context"
	"slices"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/kvsql/kvsql/internal/testkit"
)

// TestWireEnum reads and writes enum values through pgx in every query
// mode: a parameter arrives as its label, a result column has the enum
// type's own OID (pgx reads an unknown OID's value as text, in either
// format), pgx's LoadType introspects the type and its array type from
// pg_type and pg_enum, and values order as declared.
func TestWireEnum(t *testing.T) {
	ts := testkit.StartServer(t, nil, nil)
	setup := ts.Connect(t, pgx.QueryExecModeSimpleProtocol)
	mustExec(t, setup, `CREATE TYPE mood AS ENUM ('sad', 'ok', 'happy')`,
		`ALTER TYPE mood ADD VALUE 'meh' BEFORE 'ok'`,
		`CREATE TABLE feel (id int PRIMARY KEY, m mood, ms mood[])`,
		`CREATE INDEX feel_m ON feel (m)`)
	ctx := context.Background()
	var oid uint32
	if err := setup.QueryRow(ctx, `SELECT 'mood'::regtype::oid`).Scan(&oid); err != nil {
		t.Fatal(err)
	}
	if oid < 16384 {
		t.Fatalf("mood's OID %d is in PostgreSQL's built-in range", oid)
	}
	labels := []string{"happy", "sad", "meh", "ok"}
	for i, m := range modes {
		t.Run(m.name, func(t *testing.T) {
			conn := ts.Connect(t, m.mode)
			base := i * 10
			for j, l := range labels {
				if _, err := conn.Exec(ctx, `INSERT INTO feel (id, m) VALUES ($1, $2)`, base+j, l); err != nil {
					t.Fatalf("insert %s: %v", l, err)
				}
			}
			rows, err := conn.Query(ctx, `SELECT m FROM feel WHERE id >= $1 AND id < $2 AND m >= $3 ORDER BY m`, base, base+10, "meh")
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for rows.Next() {
				if fd := rows.FieldDescriptions()[0]; fd.DataTypeOID != oid {
					t.Errorf("type OID %d, want %d", fd.DataTypeOID, oid)
				}
				var s string
				if err := rows.Scan(&s); err != nil {
					t.Fatal(err)
				}
				got = append(got, s)
			}
			if err := rows.Err(); err != nil {
				t.Fatal(err)
			}
			if want := []string{"meh", "ok", "happy"}; !slices.Equal(got, want) {
				t.Errorf("got %q, want %q", got, want)
			}
			if _, err := conn.Exec(ctx, `INSERT INTO feel (id, m) VALUES ($1, $2)`, base+9, "nope"); err == nil {
				t.Errorf("insert of a label mood lacks succeeded")
			}
		})
	}

	// pgx's LoadType reads the type from pg_type and pg_enum; with it
	// registered, arrays of the enum scan into []string.
	conn := ts.Connect(t, pgx.QueryExecModeCacheStatement)
	for _, name := range []string{"mood", "_mood"} {
		dt, err := conn.LoadType(ctx, name)
		if err != nil {
			t.Fatalf("LoadType(%s): %v", name, err)
		}
		conn.TypeMap().RegisterType(dt)
	}
	if _, err := conn.Exec(ctx, `UPDATE feel SET ms = $1 WHERE id = 0`, []string{"ok", "sad"}); err != nil {
		t.Fatal(err)
	}
	var ms []string
	if err := conn.QueryRow(ctx, `SELECT ms FROM feel WHERE id = 0`).Scan(&ms); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(ms, []string{"ok", "sad"}) {
		t.Errorf("array: got %q", ms)
	}

	// COPY FROM in binary (pgx's CopyFrom): labels in, and a label the
	// type lacks refused.
	n, err := conn.CopyFrom(ctx, pgx.Identifier{"feel"}, []string{"id", "m", "ms"},
		pgx.CopyFromRows([][]any{{100, "ok", []string{"meh"}}, {101, "sad", nil}}))
	if err != nil || n != 2 {
		t.Fatalf("CopyFrom: %d %v", n, err)
	}
	var got string
	if err := conn.QueryRow(ctx, `SELECT string_agg(m::text || ':' || coalesce(ms::text, '-'), ',' ORDER BY m) FROM feel WHERE id >= 100`).Scan(&got); err != nil || got != "sad:-,ok:{meh}" {
		t.Errorf("copied rows: %q %v", got, err)
	}
	if _, err := conn.CopyFrom(ctx, pgx.Identifier{"feel"}, []string{"id", "m"}, pgx.CopyFromRows([][]any{{102, "nope"}})); err == nil {
		t.Errorf("CopyFrom of a label mood lacks succeeded")
	}

	// Asked for in binary, an enum value is its label's bytes.
	res := conn.PgConn().ExecParams(ctx, `SELECT m FROM feel WHERE id = 0`, nil, nil, nil, []int16{1}).Read()
	if res.Err != nil || len(res.Rows) != 1 || string(res.Rows[0][0]) != "happy" || res.FieldDescriptions[0].Format != 1 {
		t.Errorf("binary result: %q %v", res.Rows, res.Err)
	}
}
