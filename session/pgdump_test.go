package session_test

// Backups with pg_dump (issue 16): PostgreSQL 15's own pg_dump and psql
// against kvsql and against a real PostgreSQL 15.

import (
	"bytes"
	"context"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kvsql/kvsql/internal/testkit"
)

// pgClient returns PostgreSQL 15's client program name (pg_dump, psql),
// or skips the test: pg_dump must be release 15, the one kvsql answers
// the catalog queries of.
func pgClient(t *testing.T, name string) string {
	t.Helper()
	candidates := []string{filepath.Join("/usr/lib/postgresql/15/bin", name)}
	if p, err := exec.LookPath(name); err == nil {
		candidates = append(candidates, p)
	}
	for _, p := range candidates {
		out, err := exec.Command(p, "--version").Output()
		if err == nil && strings.Contains(string(out), ") 15.") {
			return p
		}
	}
	t.Skipf("PostgreSQL 15's %s is not installed", name)
	return ""
}

// pgTarget is a server and database the clients connect to as postgres.
type pgTarget struct {
	name, port, db string
}

func (p pgTarget) args() []string {
	return []string{"-h", "127.0.0.1", "-p", p.port, "-U", "postgres", "-d", p.db}
}

func (p pgTarget) with(db string) pgTarget { p.db = db; return p }

// runClient runs a client program and returns its standard output and
// error apart.
func runClient(t *testing.T, prog string, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, prog, args...)
	cmd.Env = append(os.Environ(), "LANG=C", "LC_ALL=C", "PGPASSWORD=", "PGOPTIONS=", "PSQLRC=/dev/null", "PGTZ=UTC")
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err = cmd.Run()
	return o.String(), e.String(), err
}

// psqlFile runs a script with psql -v ON_ERROR_STOP=1 and fails the test
// on any error: a nonzero exit or an ERROR on standard error.
func psqlFile(t *testing.T, psql string, target pgTarget, file string, extra ...string) string {
	t.Helper()
	args := append([]string{"-X", "-q", "-v", "ON_ERROR_STOP=1", "-P", "pager=off"}, extra...)
	args = append(append(args, target.args()...), "-f", file)
	out, errOut, err := runClient(t, psql, args...)
	if err != nil || strings.Contains(errOut, "ERROR") {
		t.Fatalf("psql -f %s on %s: %v\n%s", filepath.Base(file), target.name, err, errOut)
	}
	return out
}

func psqlCommand(t *testing.T, psql string, target pgTarget, sql string) {
	t.Helper()
	if _, errOut, err := runClient(t, psql, append([]string{"-X", "-q", "-v", "ON_ERROR_STOP=1"}, append(target.args(), "-c", sql)...)...); err != nil {
		t.Fatalf("psql -c %q on %s: %v\n%s", sql, target.name, err, errOut)
	}
}

// dump runs pg_dump on target into a file and returns its path.
func dump(t *testing.T, pgDump string, target pgTarget) string {
	t.Helper()
	out, errOut, err := runClient(t, pgDump, target.args()...)
	if err != nil || errOut != "" {
		t.Fatalf("pg_dump of %s: %v\n%s", target.name, err, errOut)
	}
	path := filepath.Join(t.TempDir(), target.name+".sql")
	if err := os.WriteFile(path, []byte(out), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestPgDump: pg_dump of a kvsql database (tables, indexes, constraints,
// sequences, views, data) restored into PostgreSQL 15 and into kvsql
// gives the same schema and data; a PostgreSQL 15 dump restores into
// kvsql with psql -v ON_ERROR_STOP=1 and no errors (and holds the same
// schema and data as its source). A custom-format archive (pg_dump -Fc)
// restores into kvsql with pg_restore.
func TestPgDump(t *testing.T) {
	pgDump, psql := pgClient(t, "pg_dump"), pgClient(t, "psql")
	if !testkit.HavePostgres() {
		t.Skip("PostgreSQL 15 server binaries (initdb, pg_ctl) not found")
	}
	ts := testkit.StartServer(t, nil, nil)
	u, err := url.Parse(testkit.StartPostgres(t))
	if err != nil {
		t.Fatal(err)
	}
	kv := pgTarget{name: "kvsql", port: fmt.Sprint(ts.Addr.Port), db: "kvsql"}
	pg := pgTarget{name: "postgres", port: u.Port(), db: "postgres"}
	schema, err := filepath.Abs(filepath.Join("testdata", "pgdump", "schema.sql"))
	if err != nil {
		t.Fatal(err)
	}
	facts := filepath.Join("testdata", "pgdump", "facts.sql")
	// factsOf reads what must survive a dump and restore; the check that
	// it holds the fixture's objects and rows keeps an empty answer from
	// passing.
	factsOf := func(target pgTarget) string {
		t.Helper()
		out := psqlFile(t, psql, target, facts, "-A")
		for _, want := range []string{"books_author_id_fkey|f", "events_book_at|u", "books_price_check|c",
			"books_title_idx|CREATE INDEX books_title_idx ON public.books USING btree (title)",
			"books_price_cov|CREATE INDEX books_price_cov ON public.books USING btree (price) INCLUDE (title, tags)",
			"authors_born_key|UNIQUE (born) INCLUDE (name)",
			"counter|100|5|100", "cheap_books", "all the books|the title", "3|O'Neil|1980-12-31",
			"2|-0.25", "events_id_seq|1|1|2",
			"orders_book|CREATE INDEX orders_book ON shop.orders USING btree (book_id)", "orders_book_id_fkey|FOREIGN KEY (book_id) REFERENCES books(id)",
			"feelings|m|USER-DEFINED", "2|sad|\n3|ok|{}\n1|happy|{sad,ok}",
			"plain|dump_owner|dump_owner=arwdxt/dump_owner =r/dump_owner", "counter|postgres=rwU/postgres dump_reader=U/postgres",
			"shop|dump_owner|dump_owner=UC/dump_owner =U/dump_owner",
			"email|character varying(60)|t|email_check|t", "positive|numeric(8,2)|f|positive_small|f",
			"2|nobody@example.com|\n", "nobody@example.com|\n",
			"zip|character varying(10)", "email_check|has an at sign",
			"readings_high|readings_high_v_idx|CREATE INDEX readings_high_v_idx ON public.readings_high USING btree (v)", "3|5|c|readings_low", `1|("Main St, 1",12345,"{1,2}")|{"(\"Old \"\"Rd\"\"\",,)"}|12345`} {
			if !strings.Contains(out, want) {
				t.Fatalf("facts of %s lack %q:\n%s", target.name, want, out)
			}
		}
		return out
	}

	psqlFile(t, psql, kv, schema)
	psqlCommand(t, psql, pg, "CREATE DATABASE src")
	psqlFile(t, psql, pg.with("src"), schema)

	t.Run("kvsql dump restored into PostgreSQL and kvsql", func(t *testing.T) {
		script := dump(t, pgDump, kv)
		psqlCommand(t, psql, pg, "CREATE DATABASE fromkv")
		psqlCommand(t, psql, kv, "CREATE DATABASE fromkv")
		psqlFile(t, psql, pg.with("fromkv"), script)
		psqlFile(t, psql, kv.with("fromkv"), script)
		inPG, inKV := factsOf(pg.with("fromkv")), factsOf(kv.with("fromkv"))
		if inPG != inKV {
			t.Errorf("restored into PostgreSQL and kvsql, the dump differs:\n%s", lineDiff(inPG, inKV))
		}
	})

	t.Run("custom-format dump restored into kvsql with pg_restore", func(t *testing.T) {
		pgRestore := pgClient(t, "pg_restore")
		archive := filepath.Join(t.TempDir(), "kvsql.dump")
		if out, errOut, err := runClient(t, pgDump, append([]string{"-Fc", "-f", archive}, kv.args()...)...); err != nil || errOut != "" {
			t.Fatalf("pg_dump -Fc: %v\n%s%s", err, out, errOut)
		}
		psqlCommand(t, psql, kv, "CREATE DATABASE fromkvc")
		restored := kv.with("fromkvc")
		if out, errOut, err := runClient(t, pgRestore, append(append([]string{"--exit-on-error"}, restored.args()...), archive)...); err != nil || errOut != "" {
			t.Fatalf("pg_restore: %v\n%s%s", err, out, errOut)
		}
		source, copied := factsOf(kv), factsOf(restored)
		if source != copied {
			t.Errorf("kvsql's database and its pg_restore differ:\n%s", lineDiff(source, copied))
		}
	})

	t.Run("PostgreSQL dump restored into kvsql", func(t *testing.T) {
		script := dump(t, pgDump, pg.with("src"))
		psqlCommand(t, psql, kv, "CREATE DATABASE frompg")
		psqlFile(t, psql, kv.with("frompg"), script)
		source, restored := factsOf(pg.with("src")), factsOf(kv.with("frompg"))
		if source != restored {
			t.Errorf("PostgreSQL's database and its restore into kvsql differ:\n%s", lineDiff(source, restored))
		}
	})
}
