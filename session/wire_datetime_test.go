package session_test

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/kvsql/kvsql/internal/testkit"
)

// datetimeQueries are answered by kvsql and by PostgreSQL 15 in every
// pgx mode (text in the simple protocol, binary in the others); the
// scanned values, the column OIDs and typmods must agree.
var datetimeQueries = []string{
	`SELECT interval '1 year 2 mons 3 days 04:05:06.5', interval '-1 days +02:00:00', interval 'P1Y2M', interval '1 day ago'`,
	`SELECT interval '1 mon' * 1.5, -interval '36 hours', justify_interval(interval '1 mon -1 hour'), timestamp '2020-03-01' - timestamp '2020-01-01 12:00'`,
	`SELECT time '04:05:06.5', time '23:00' + interval '2 hours', timestamp '2020-01-31 10:00' + interval '1 mon', date '2020-01-31' + interval '1 month'`,
	`SELECT $1::interval, $2::time, $3::interval`,
	`SELECT i, t FROM spans ORDER BY i`,
	`SELECT extract(epoch FROM interval '1 day 01:00:00.5'), date_part('hour', time '13:30'), extract(dow FROM timestamp '2020-01-01')`,
	`SELECT timestamp 'infinity', timestamp '-infinity', timestamp '0044-03-15 10:00 BC', date '2020-02-29', timestamp '2020-03-05 14:07:08.123456', $1::timestamp`,
	`SELECT '2020-01-01 00:00:00.123456'::timestamp(2), '10:00:00.555'::time(1), '1 day 00:00:01.555'::interval day to second(2), '14 mons'::interval year`,
	`SELECT timestamptz '2020-07-01 00:00+00', timestamptz '2020-01-01 00:00', $1::timestamptz, $1::timestamptz::text, timestamp '2020-03-28 12:00'::timestamptz + interval '1 day'`,
}

func datetimeArgs(q string) []any {
	if strings.Contains(q, "$1::timestamp`") || strings.HasSuffix(q, "$1::timestamp") {
		return []any{time.Date(2020, 3, 5, 14, 7, 8, 500_000_000, time.UTC)}
	}
	if strings.Contains(q, "$1::timestamptz") {
		return []any{"2020-06-01 12:00"} // text: read in the session's zone
	}
	if q != `SELECT $1::interval, $2::time, $3::interval` {
		return nil
	}
	return []any{
		pgtype.Interval{Months: -14, Days: 3, Microseconds: -4_500_000, Valid: true},
		pgtype.Time{Microseconds: 45_296_000_001, Valid: true},
		"1 day 02:00",
	}
}

// TestWireDatetimeAgainstPostgres: INTERVAL, TIME and TIMESTAMPTZ (in a
// session time zone) values, parameters and results, in text and binary,
// are PostgreSQL 15's.
func TestWireDatetimeAgainstPostgres(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: not starting PostgreSQL")
	}
	ctx := context.Background()
	pgURL := testkit.StartPostgres(t)
	ts := testkit.StartServer(t, nil, nil)
	setup := []string{
		`SET TIME ZONE 'Europe/Paris'`,
		`CREATE TABLE spans (i INTERVAL PRIMARY KEY, t TIME)`,
		`INSERT INTO spans VALUES ('1 day', '10:00'), ('-1 mon', '23:59:59.999999'), ('-00:00:00.000001', '00:00'), ('1 year 2 hours', NULL)`,
	}
	for _, m := range modes {
		t.Run(m.name, func(t *testing.T) {
			kv := ts.Connect(t, m.mode)
			cfg, err := pgx.ParseConfig(pgURL)
			if err != nil {
				t.Fatal(err)
			}
			cfg.DefaultQueryExecMode = m.mode
			pg, err := pgx.ConnectConfig(ctx, cfg)
			if err != nil {
				t.Fatal(err)
			}
			defer pg.Close(ctx)
			for _, c := range []*pgx.Conn{kv, pg} {
				mustExec(t, c, `DROP TABLE IF EXISTS spans`)
			}
			for _, s := range setup {
				mustExec(t, kv, s)
				mustExec(t, pg, s)
			}
			for _, q := range datetimeQueries {
				want, wantFD := datetimeRows(t, pg, q)
				got, gotFD := datetimeRows(t, kv, q)
				if !reflect.DeepEqual(got, want) {
					t.Errorf("%s\n got %v\nwant %v", q, got, want)
				}
				if !reflect.DeepEqual(gotFD, wantFD) {
					t.Errorf("%s: columns %v, want %v", q, gotFD, wantFD)
				}
			}
		})
	}
}

// datetimeRows runs q and returns its values (pgx's decoding of each
// column's type) and "name oid typmod" per column.
func datetimeRows(t *testing.T, c *pgx.Conn, q string) ([][]any, []string) {
	t.Helper()
	rows, err := c.Query(context.Background(), q, datetimeArgs(q)...)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	defer rows.Close()
	var out [][]any
	for rows.Next() {
		v, err := rows.Values()
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		out = append(out, v)
	}
	if err := rows.Err(); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	var fds []string
	for _, fd := range rows.FieldDescriptions() {
		fds = append(fds, fmt.Sprintf("%s %d %d", fd.Name, fd.DataTypeOID, fd.TypeModifier))
	}
	return out, fds
}

// TestWireIntervalErrors: bad interval and time input carry PostgreSQL's
// SQLSTATEs.
func TestWireIntervalErrors(t *testing.T) {
	ts := testkit.StartServer(t, nil, nil)
	conn := ts.Connect(t, pgx.QueryExecModeExec)
	for _, c := range []struct{ sql, code string }{
		{`SELECT interval 'bogus'`, "22007"},
		{`SELECT '2147483648 days'::interval`, "22015"},
		{`SELECT interval '1 day' / 0`, "22012"},
		{`SELECT time '25:00'`, "22008"},
		{`SELECT interval '1 day' + 1`, "42883"},
		{`SELECT extract(foo FROM interval '1 day')`, "22023"},
		{`SELECT extract(day FROM time '01:00')`, "0A000"},
		{`SELECT timestamp '2020-02-30'`, "22008"},
		{`SET IntervalStyle TO iso_9999`, "22023"},
		{`SET TIME ZONE 'Mars/Olympus'`, "22023"},
	} {
		if _, err := conn.Exec(context.Background(), c.sql); pgErrCode(err) != c.code {
			t.Errorf("%s: %v, want %s", c.sql, err, c.code)
		}
	}
}

// TestWireIntervalStyle: the text format of an interval follows SET
// IntervalStyle, in both protocols, as PostgreSQL 15 prints it.
func TestWireIntervalStyle(t *testing.T) {
	ts := testkit.StartServer(t, nil, nil)
	for _, mode := range []pgx.QueryExecMode{pgx.QueryExecModeSimpleProtocol, pgx.QueryExecModeExec} {
		conn := ts.Connect(t, mode)
		for _, c := range []struct{ style, want string }{
			{"postgres", "1 year 2 mons 3 days -04:05:06"},
			{"postgres_verbose", "@ 1 year 2 mons 3 days -4 hours -5 mins -6 secs"},
			{"sql_standard", "+1-2 +3 -4:05:06"},
			{"iso_8601", "P1Y2M3DT-4H-5M-6S"},
		} {
			if _, err := conn.Exec(context.Background(), "SET IntervalStyle TO "+c.style); err != nil {
				t.Fatal(err)
			}
			var got string
			if err := conn.QueryRow(context.Background(), "SELECT interval '1 year 2 mons 3 days -04:05:06'::text").Scan(&got); err != nil {
				t.Fatal(err)
			}
			if got != c.want {
				t.Errorf("mode %v, %s: got %q, want %q", mode, c.style, got, c.want)
			}
		}
	}
}
