package sqllogictest

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/kvsql/kvsql/internal/testkit"
)

// TestWirePostgres runs the package's own .test files through WireTarget
// against a real PostgreSQL and checks the exact counts each file's
// header states.
func TestWirePostgres(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a PostgreSQL cluster")
	}
	url := testkit.StartPostgres(t)
	target, err := NewWireTarget(url)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	files := []string{
		filepath.Join("testdata", "basic.test"),
		filepath.Join("testdata", "halt.test"),
		filepath.Join("testdata", "failing.test"),
	}
	rep, err := RunFiles(ctx, target, files, Options{Jobs: 2, StatementTimeout: 500 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		records, passed, failed, skipped int
		halted                           bool
	}{
		{23, 23, 0, 3, false},
		{3, 3, 0, 0, true},
		{9, 2, 7, 0, false},
	}
	for i, w := range want {
		f := rep.Files[i]
		if f.Error != "" || f.Records != w.records || f.Passed != w.passed || f.Failed != w.failed ||
			f.Skipped != w.skipped || f.Halted != w.halted {
			t.Errorf("%s: got %d records, %d passed, %d failed, %d skipped, halted %v, error %q; want %+v",
				f.Path, f.Records, f.Passed, f.Failed, f.Skipped, f.Halted, f.Error, w)
			for _, fl := range f.Failures {
				t.Logf("%s", fl.String())
			}
		}
	}
	var kinds []string
	for _, f := range rep.Files[2].Failures {
		kinds = append(kinds, string(f.Kind))
	}
	if got, want := strings.Join(kinds, ","), "error,no error,wrong result,wrong column count,wrong result,label mismatch,timeout"; got != want {
		t.Errorf("failing.test kinds %q, want %q", got, want)
	}

	// Every slt_ database was dropped when its file finished.
	admin, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close(ctx)
	var left int
	if err := admin.QueryRow(ctx, "SELECT count(*) FROM pg_database WHERE datname LIKE 'slt\\_%'").Scan(&left); err != nil {
		t.Fatal(err)
	}
	if left != 0 {
		t.Errorf("%d slt_ databases left behind", left)
	}
}

// TestWireValues checks the conversion of PostgreSQL's types to runner
// values.
func TestWireValues(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a PostgreSQL cluster")
	}
	url := testkit.StartPostgres(t)
	target, err := NewWireTarget(url)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	conn, err := target.Open(ctx, dbName("values"))
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := conn.Close(); err != nil {
			t.Error(err)
		}
	}()
	rows, err := conn.Query(ctx, `SELECT 1::int2, 2::int4, 3::int8, 1.5::float4, 2.25::float8,
		7::numeric, 7.50::numeric, true, 'x'::text, '\x00ff'::bytea, NULL::int, DATE '2024-02-29'`)
	if err != nil {
		t.Fatal(err)
	}
	want := []any{int64(1), int64(2), int64(3), 1.5, 2.25, "7", "7.50", true, "x", []byte{0, 0xff}, nil, "2024-02-29"}
	if len(rows) != 1 || len(rows[0]) != len(want) {
		t.Fatalf("rows = %#v", rows)
	}
	for i, w := range want {
		if got := rows[0][i]; FormatValue(got, 'T') != FormatValue(w, 'T') || typeName(got) != typeName(w) {
			t.Errorf("column %d = %#v, want %#v", i+1, got, w)
		}
	}
	if err := conn.Exec(ctx, "SELECT * FROM nosuch"); err == nil || !strings.Contains(err.Error(), "42P01") {
		t.Errorf("error %v lacks its SQLSTATE", err)
	}
}

func typeName(v any) string {
	switch v.(type) {
	case nil:
		return "nil"
	case int64:
		return "int64"
	case float64:
		return "float64"
	case bool:
		return "bool"
	case string:
		return "string"
	case []byte:
		return "[]byte"
	}
	return "other"
}
