package session_test

// The psql acceptance test: testdata/psql/script.sql run by the real psql
// against a server over the real engine; its output must match
// testdata/psql/script.out (regenerate with -rewrite). The same script run
// against PostgreSQL 15 differs only in the owner's name and in numeric
// scale (testdata/psql/script.postgres15.out is that run's output).

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kvsql/kvsql/internal/testkit"
)

// psqlPath returns the psql binary, or skips the test.
func psqlPath(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("psql")
	if err != nil {
		t.Skip("psql is not installed")
	}
	return p
}

// runPsql runs psql on the server with the given extra arguments in
// directory dir and returns its combined output.
func runPsql(t *testing.T, ts *testkit.Server, dir string, args ...string) ([]byte, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	base := []string{"-X", "-v", "ON_ERROR_STOP=1", "-P", "pager=off",
		"-h", "127.0.0.1", "-p", fmt.Sprint(ts.Addr.Port), "-U", "tester", "-d", "kvsql"}
	cmd := exec.CommandContext(ctx, psqlPath(t), append(base, args...)...)
	cmd.Dir = dir
	// Untranslated messages, no password prompt, no user configuration.
	cmd.Env = append(os.Environ(), "LANG=C", "LC_ALL=C", "PGPASSWORD=", "PGOPTIONS=", "PSQLRC=/dev/null", "PGTZ=UTC")
	return cmd.CombinedOutput()
}

func TestPsqlScript(t *testing.T) {
	psqlPath(t)
	ts := testkit.StartServer(t, nil, nil)
	dir := filepath.Join("testdata", "psql")
	out, err := runPsql(t, ts, dir, "--echo-all", "-f", "script.sql")
	if err != nil {
		t.Fatalf("psql: %v\n%s", err, out)
	}
	golden := filepath.Join(dir, "script.out")
	if *rewrite {
		if err := os.WriteFile(golden, out, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run with -rewrite to create it)", err)
	}
	if !bytes.Equal(out, want) {
		t.Errorf("psql output differs from %s (-rewrite to accept):\n%s", golden, lineDiff(string(want), string(out)))
	}
}

// TestPsqlDescribeCommands runs each describe command psql 15 has for the
// objects kvsql has, checking that every catalog query it sends succeeds
// and that the answers name the right objects.
func TestPsqlDescribeCommands(t *testing.T) {
	psqlPath(t)
	ts := testkit.StartServer(t, nil, nil)
	setup := `CREATE TABLE "Odd Name" (k bigint PRIMARY KEY, "Val" text DEFAULT 'v');
CREATE TABLE plain (a int, b int);
CREATE INDEX plain_b ON plain (b DESC);
CREATE VIEW pv AS SELECT a FROM plain;`
	if out, err := runPsql(t, ts, ".", "-c", setup); err != nil {
		t.Fatalf("setup: %v\n%s", err, out)
	}
	cases := []struct {
		cmd  string
		want []string // substrings of the output
	}{
		{`\dt`, []string{"Odd Name", "plain", "(2 rows)"}},
		{`\d "Odd Name"`, []string{`Table "public.Odd Name"`, "bigint", "not null", "'v'", `"Odd Name_pkey" PRIMARY KEY, btree (k)`}},
		{`\d plain`, []string{`Table "public.plain"`, `"plain_b" btree (b DESC)`}},
		{`\di`, []string{"plain_b", "Odd Name_pkey", "(2 rows)"}},
		{`\dv`, []string{"pv", "view", "(1 row)"}},
		{`\d pv`, []string{`View "public.pv"`, "integer"}},
		{`\l`, []string{"kvsql", "UTF8", "libc"}},
		{`\dn`, []string{"public", "pg_database_owner", "(1 row)"}},
		{`\du`, []string{"Superuser"}},
		{`\d plain_b`, []string{`Index "public.plain_b"`, `btree, for table "public.plain"`}},
		{`\d nosuch`, []string{`Did not find any relation named "nosuch"`}},
	}
	for _, c := range cases {
		out, err := runPsql(t, ts, ".", "-c", c.cmd)
		if err != nil && !strings.Contains(c.cmd, "nosuch") {
			t.Errorf("%s: %v\n%s", c.cmd, err, out)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(string(out), w) {
				t.Errorf("%s: output lacks %q:\n%s", c.cmd, w, out)
			}
		}
	}
}

// lineDiff renders the lines that differ between want and got, with line
// numbers; enough to read a golden-file mismatch.
func lineDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	var b strings.Builder
	for i := 0; i < max(len(w), len(g)); i++ {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl {
			fmt.Fprintf(&b, "%4d - %s\n%4d + %s\n", i+1, wl, i+1, gl)
		}
	}
	return b.String()
}

// TestPsqlDescribeLikePostgres runs testdata/psql/describe.sql (foreign
// keys both ways, check constraints, SERIAL, identity and plain
// sequences) with psql against kvsql and against PostgreSQL 15: every
// line psql prints, its \d and \ds tables included, must be the same.
func TestPsqlDescribeLikePostgres(t *testing.T) {
	psql := psqlPath(t)
	pgURL := testkit.StartPostgres(t)
	ts := testkit.StartServer(t, nil, nil)
	run := func(url string) string {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		cmd := exec.CommandContext(ctx, psql, "-X", "-v", "ON_ERROR_STOP=1", "-P", "pager=off", "--echo-all",
			"-f", "describe.sql", "-U", "postgres", url)
		cmd.Dir = filepath.Join("testdata", "psql")
		cmd.Env = append(os.Environ(), "LANG=C", "LC_ALL=C", "PGPASSWORD=", "PGOPTIONS=", "PSQLRC=/dev/null", "PGTZ=UTC")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("psql against %s: %v\n%s", url, err, out)
		}
		return string(out)
	}
	want := run(pgURL)
	got := run(fmt.Sprintf("postgres://127.0.0.1:%d/kvsql?sslmode=disable", ts.Addr.Port))
	for _, w := range []string{"Foreign-key constraints:", "Referenced by:", "Check constraints:", "Owned by: public.customers.id",
		"Sequence for identity column: public.orders.id", "(5 rows)"} {
		if !strings.Contains(want, w) {
			t.Fatalf("PostgreSQL's output lacks %q; the script no longer shows it:\n%s", w, want)
		}
	}
	if got != want {
		t.Errorf("psql's output on kvsql differs from PostgreSQL 15's (- PostgreSQL, + kvsql):\n%s", lineDiff(want, got))
	}
}
