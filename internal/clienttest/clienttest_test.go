package clienttest

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/kvsql/kvsql/internal/testkit"
)

// runBoth runs the program name with args plus a connection URL, first
// against PostgreSQL 15 and then against kvsql, and fails unless both
// print "all checks passed" and the same lines.
func runBoth(t *testing.T, name string, args ...string) {
	t.Helper()
	pgURL := testkit.StartPostgres(t)
	kv := testkit.StartServer(t, nil, nil)
	run := func(url string) string {
		out, err := exec.Command(name, append(append([]string{}, args...), url)...).CombinedOutput()
		if err != nil || !strings.Contains(string(out), "all checks passed") {
			t.Fatalf("%s %s against %s: %v\n%s", name, strings.Join(args, " "), url, err, out)
		}
		return string(out)
	}
	want := run(pgURL)
	got := run(kv.URL())
	if got != want {
		wl, gl := strings.Split(want, "\n"), strings.Split(got, "\n")
		for i := 0; i < len(wl) || i < len(gl); i++ {
			var w, g string
			if i < len(wl) {
				w = wl[i]
			}
			if i < len(gl) {
				g = gl[i]
			}
			if w != g {
				t.Errorf("line %d differs\nPostgreSQL: %s\nkvsql:      %s", i+1, w, g)
			}
		}
	}
}

// TestSQLAlchemy runs testdata/sqlalchemy_client.py (Debian's
// python3-sqlalchemy 1.4 over psycopg2): Core, the ORM with a
// relationship, and the whole inspector (columns with defaults, primary
// keys, foreign keys with ON DELETE, indexes, unique and check
// constraints, views), on PostgreSQL 15 and on kvsql.
func TestSQLAlchemy(t *testing.T) {
	// Debian's packages are for Debian's python3, which another python3
	// earlier on PATH (pyenv's) does not see.
	python := ""
	for _, p := range []string{"/usr/bin/python3", "python3"} {
		if exec.Command(p, "-c", "import sqlalchemy, psycopg2").Run() == nil {
			python = p
			break
		}
	}
	if python == "" {
		t.Skip("no python3 with SQLAlchemy and psycopg2 (apt-get install python3-sqlalchemy python3-psycopg2)")
	}
	runBoth(t, python, "testdata/sqlalchemy_client.py")
}

// TestPgJDBC compiles testdata/jdbc/JdbcClient.java and runs it with
// Debian's pgjdbc (libpostgresql-jdbc-java, 42.5): PreparedStatement, a
// batch, generated keys, a 23505, and DatabaseMetaData's getTables (of
// tables, views, indexes and sequences: SERIAL's, identity's, a plain one),
// getColumns, getPrimaryKeys and getIndexInfo, on PostgreSQL 15 and on
// kvsql.
func TestPgJDBC(t *testing.T) {
	javac, jerr := exec.LookPath("javac")
	java, rerr := exec.LookPath("java")
	jar := "/usr/share/java/postgresql.jar"
	if jerr != nil || rerr != nil {
		t.Skip("no JDK (apt-get install default-jdk-headless)")
	}
	if _, err := os.Stat(jar); err != nil {
		t.Skip("no pgjdbc at " + jar + " (apt-get install libpostgresql-jdbc-java)")
	}
	dir := t.TempDir()
	if out, err := exec.Command(javac, "-d", dir, "testdata/jdbc/JdbcClient.java").CombinedOutput(); err != nil {
		t.Fatalf("javac: %v\n%s", err, out)
	}
	runBoth(t, java, "-cp", dir+string(os.PathListSeparator)+jar, "JdbcClient")
}

// TestNodePostgres runs testdata/node/client.js with node-postgres (npm
// pg, the version pinned in testdata/node/package.json, which .ci/run
// installs there): a pool, parameters (arrays, NULLs, numerics),
// transactions committed and rolled back, parallel queries, and the
// fields of 23505, 23502 and 42703 errors, on PostgreSQL 15 and kvsql.
func TestNodePostgres(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("no node (apt-get install nodejs)")
	}
	if _, err := os.Stat("testdata/node/node_modules/pg/package.json"); err != nil {
		t.Skip("node-postgres is not installed (npm ci --prefix internal/clienttest/testdata/node)")
	}
	runBoth(t, node, "testdata/node/client.js")
}
