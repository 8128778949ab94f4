package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/kvsql/kvsql/internal/testkit"
	"github.com/kvsql/kvsql/session"
)

// TestCheckDatetimeIndexes: a table keyed by an interval, with indexes
// over time, timestamptz (descending) and timestamp columns, survives
// inserts, key-changing updates and deletes with every index entry
// pointing at a live master row: check finds the store clean. The
// counts are PostgreSQL 15's for the same statements.
func TestCheckDatetimeIndexes(t *testing.T) {
	dir := t.TempDir()
	db, err := session.Open(session.Options{Dir: dir, NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	s := testkit.NewSession(t, db)
	for _, q := range []string{
		`CREATE TABLE iv (i INTERVAL PRIMARY KEY, t TIME, tz TIMESTAMPTZ, ts TIMESTAMP, n INT)`,
		`CREATE INDEX iv_t ON iv (t)`,
		`CREATE INDEX iv_tz ON iv (tz DESC, i)`,
		`CREATE UNIQUE INDEX iv_n ON iv (n)`,
		`CREATE INDEX iv_ts ON iv (ts, t DESC)`,
		`INSERT INTO iv SELECT make_interval(0, 0, 0, g % 40 - 20, 0, 0, g * 1.5) * CASE WHEN g % 3 = 0 THEN -1 ELSE 1 END,
			make_time(g % 24, g % 60, (g % 600) / 10.0), timestamptz '2020-01-01 00:00+00' + g * interval '7 hours',
			timestamp '2020-03-01' - g * interval '1 day 3 hours', g FROM generate_series(1, 2000) AS s(g)`,
		`UPDATE iv SET t = t + interval '90 minutes', i = i + interval '1 mon' WHERE n % 7 = 0`,
		`DELETE FROM iv WHERE n % 11 = 0`,
		`UPDATE iv SET tz = tz - interval '1 day', ts = ts + interval '1 year' WHERE n % 5 = 0`,
		`SET TIME ZONE 'Europe/Paris'`,
		`INSERT INTO iv VALUES ('-1 days +02:00:00', '12:00', '2020-03-29 02:30', '2020-03-29 02:30', 100000)`,
	} {
		testkit.Must(t, s, q)
	}
	testkit.Want(t, s, `SELECT count(*), count(DISTINCT i), min(i), max(i), max(t) FROM iv`, "1820 1820 -20 days +00:01:00 1 mon 20 days -00:21:00 23:59:59.9")
	testkit.Want(t, s, `SELECT count(*) FROM iv WHERE i > interval '5 days' AND i < interval '1 mon 10 days'`, "779")
	testkit.Want(t, s, `SELECT count(*) FROM iv WHERE t BETWEEN '10:00' AND '11:00'`, "77")
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := checkCmd([]string{"--data", dir}, &out); err != nil || !strings.HasSuffix(out.String(), "ok\n") {
		t.Fatalf("check: %v\n%s", err, out.String())
	}
}
