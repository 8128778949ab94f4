package session_test

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/kvsql/kvsql/internal/testkit"
	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/session"
)

// TestTriggerErrors: what CREATE/DROP TRIGGER refuse, and a trigger whose
// statement fails at fire time: each with its SQLSTATE and nothing
// written (checkErrors compares every key of the store).
func TestTriggerErrors(t *testing.T) {
	setup := errorSetup + `;
CREATE TABLE audit (id INT PRIMARY KEY, what TEXT);
CREATE VIEW v AS SELECT id FROM t;
CREATE TRIGGER t_audit AFTER UPDATE OF note ON t BEGIN INSERT INTO audit VALUES (NEW.id, NEW.note); END;
CREATE TRIGGER t_guard BEFORE DELETE ON t WHEN OLD.n > 1000 BEGIN SELECT 1 / 0; END`
	cases := []errorCase{
		{pgerror.FeatureNotSupported, "CREATE TEMP TRIGGER x AFTER INSERT ON t BEGIN SELECT 1; END"},
		{pgerror.UndefinedFunction, "CREATE TRIGGER x AFTER INSERT ON t FOR EACH ROW EXECUTE FUNCTION f()"},
		{pgerror.FeatureNotSupported, "CREATE TRIGGER x AFTER INSERT ON t FOR EACH STATEMENT BEGIN SELECT 1; END"},
		{pgerror.FeatureNotSupported, "CREATE TRIGGER x AFTER INSERT OR DELETE ON t BEGIN SELECT 1; END"},
		{pgerror.FeatureNotSupported, "CREATE TRIGGER x INSTEAD OF INSERT ON v BEGIN SELECT 1; END"},
		{pgerror.FeatureNotSupported, "CREATE TRIGGER x AFTER INSERT ON t BEGIN CREATE TABLE y (a INT); END"},
		{pgerror.WrongObjectType, "CREATE TRIGGER x INSTEAD OF INSERT ON t BEGIN SELECT 1; END"},
		{pgerror.SyntaxError, "CREATE TRIGGER x AFTER INSERT ON t BEGIN SELEC 1; END"},
		{pgerror.SyntaxError, "CREATE TRIGGER x AFTER INSERT ON t BEGIN SELECT 1 END"},
		{pgerror.SyntaxError, "CREATE TRIGGER x AFTER INSERT ON t BEGIN SELECT $1; END"},
		{pgerror.SyntaxError, "CREATE TRIGGER x AFTER INSERT ON t BEGIN ; END"},
		{pgerror.SyntaxError, "CREATE TRIGGER x AFTER SELECT ON t BEGIN SELECT 1; END"},
		{pgerror.UndefinedColumn, "CREATE TRIGGER x AFTER INSERT ON t BEGIN SELECT OLD.id; END"},
		{pgerror.UndefinedColumn, "CREATE TRIGGER x AFTER DELETE ON t BEGIN SELECT NEW.id; END"},
		{pgerror.UndefinedColumn, "CREATE TRIGGER x AFTER INSERT ON t WHEN NEW.nope > 1 BEGIN SELECT 1; END"},
		{pgerror.UndefinedColumn, "CREATE TRIGGER x AFTER UPDATE OF nope ON t BEGIN SELECT 1; END"},
		{pgerror.UndefinedTable, "CREATE TRIGGER x AFTER INSERT ON nope BEGIN SELECT 1; END"},
		{pgerror.DuplicateObject, "CREATE TRIGGER t_audit AFTER INSERT ON t BEGIN SELECT 1; END"},
		{pgerror.UndefinedObject, "DROP TRIGGER nope"},
		{pgerror.UndefinedObject, "DROP TRIGGER t_audit ON audit"},

		// Fire-time failures undo the whole statement, the trigger's
		// writes included.
		{pgerror.UniqueViolation, "UPDATE t SET note = 'x' WHERE id IN (1, 2)"},
		{pgerror.DivisionByZero, "DELETE FROM t"},
	}
	// audit already holds id 2: the UPDATE's second row collides.
	setup += "; INSERT INTO audit VALUES (2, 'taken')"
	testkit.ForEachEngine(t, func(t *testing.T, db *session.DB) { checkErrors(t, db, setup, cases) })
}

// TestTriggersFire checks the firing rules end to end in one session:
// BEFORE triggers see the row before it is written, COPY-like multi-row
// inserts fire once per row, a trigger's statements see the current
// catalog (its plan is remade after DDL), and ROLLBACK undoes a trigger's
// writes with the statement's.
func TestTriggersFire(t *testing.T) {
	db, err := session.Open(session.Options{Memory: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	s, err := db.Session("")
	if err != nil {
		t.Fatal(err)
	}
	exec := func(sql string) []session.Result {
		t.Helper()
		res, err := s.Exec(ctx, sql)
		if err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
		return res
	}
	count := func(sql string) int64 {
		t.Helper()
		res := exec(sql)
		return res[len(res)-1].Rows[0][0].I
	}
	exec(`CREATE TABLE item (id INT PRIMARY KEY, qty INT);
CREATE TABLE seen (id INT, qty_then INT, existed INT);
CREATE TRIGGER item_before BEFORE INSERT ON item BEGIN
  INSERT INTO seen SELECT NEW.id, NEW.qty, count(*) FROM item WHERE id = NEW.id;
END`)
	exec("INSERT INTO item VALUES (1, 5), (2, 6), (3, 7)")
	// Each row fired once, and before its own write: none existed yet.
	if n := count("SELECT count(*) FROM seen WHERE existed = 0"); n != 3 {
		t.Fatalf("BEFORE INSERT fired for %d rows with the row absent, want 3", n)
	}
	// A column added later is visible to a trigger created afterwards, and
	// the earlier trigger's plan survives the catalog change.
	exec("ALTER TABLE item ADD COLUMN note TEXT")
	exec(`CREATE TRIGGER item_note AFTER UPDATE ON item WHEN NEW.note IS NOT NULL BEGIN
  UPDATE seen SET qty_then = -1 WHERE id = NEW.id;
END`)
	exec("INSERT INTO item VALUES (4, 8, 'x')")
	exec("UPDATE item SET note = 'hello' WHERE id <= 2")
	if n := count("SELECT count(*) FROM seen WHERE qty_then = -1"); n != 2 {
		t.Fatalf("AFTER UPDATE WHEN note: %d rows marked, want 2", n)
	}
	// ROLLBACK undoes the trigger's writes too.
	exec("BEGIN")
	exec("INSERT INTO item VALUES (5, 9)")
	if n := count("SELECT count(*) FROM seen"); n != 5 {
		t.Fatalf("inside the transaction: %d seen rows, want 5", n)
	}
	exec("ROLLBACK")
	if n := count("SELECT count(*) FROM seen"); n != 4 {
		t.Fatalf("after ROLLBACK: %d seen rows, want 4", n)
	}
	// A trigger whose statement names a dropped table fails the writing
	// statement with 42P01 until the table is back.
	exec("DROP TABLE seen")
	if _, err := s.Exec(ctx, "INSERT INTO item VALUES (6, 1)"); !pgerror.HasCode(err, pgerror.UndefinedTable) {
		t.Fatalf("insert with the trigger's table dropped: %v, want 42P01", err)
	}
	exec("CREATE TABLE seen (id INT, qty_then INT, existed INT)")
	exec("INSERT INTO item VALUES (6, 1)")
	if n := count("SELECT count(*) FROM seen"); n != 1 {
		t.Fatalf("after re-creating seen: %d rows, want 1", n)
	}
}

// TestTriggersOverTheWire: a trigger created through pgx's extended
// protocol (its body's semicolons inside one Parse message) fires once
// per row of a binary COPY, in the COPY's transaction.
func TestTriggersOverTheWire(t *testing.T) {
	ts := testkit.StartServer(t, nil, nil)
	conn := ts.Connect(t, pgx.QueryExecModeCacheStatement)
	mustExec(t, conn, `CREATE TABLE src (id int PRIMARY KEY, v int)`)
	mustExec(t, conn, `CREATE TABLE tally (k int PRIMARY KEY, n int, total int)`)
	mustExec(t, conn, `INSERT INTO tally VALUES (1, 0, 0)`)
	mustExec(t, conn, `CREATE TRIGGER src_tally AFTER INSERT ON src BEGIN
  UPDATE tally SET n = n + 1, total = total + NEW.v WHERE k = 1;
END`)
	rows := make([][]any, 500)
	for i := range rows {
		rows[i] = []any{int32(i), int32(i % 7)}
	}
	ctx := context.Background()
	if n, err := conn.CopyFrom(ctx, pgx.Identifier{"src"}, []string{"id", "v"}, pgx.CopyFromRows(rows)); err != nil || n != 500 {
		t.Fatalf("CopyFrom: %d, %v", n, err)
	}
	var n, total int
	if err := conn.QueryRow(ctx, "SELECT n, total FROM tally WHERE k = 1").Scan(&n, &total); err != nil {
		t.Fatal(err)
	}
	want := 0
	for i := range 500 {
		want += i % 7
	}
	if n != 500 || total != want {
		t.Fatalf("tally after COPY: n=%d total=%d, want 500 and %d", n, total, want)
	}
}
