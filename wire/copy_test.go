package wire

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/kvsql/kvsql/types"
	"github.com/kvsql/kvsql/wire/backend"
)

func TestCopyFromBinaryPgx(t *testing.T) {
	_, fb, addr := startServer(t, Config{})
	c := connect(t, addr)
	ctx := context.Background()
	var rows [][]any
	for i := 0; i < 2500; i++ { // more than two Insert batches
		var name any = "n" + string(rune('a'+i%26))
		if i%7 == 0 {
			name = nil
		}
		rows = append(rows, []any{int64(i), name, float64(i) / 4})
	}
	n, err := c.CopyFrom(ctx, pgx.Identifier{"c"}, []string{"id", "name", "f"}, pgx.CopyFromRows(rows))
	if err != nil {
		t.Fatal(err)
	}
	got := fb.snapshot()
	if n != 2500 || len(got) != 2500 {
		t.Fatalf("copied %d, stored %d", n, len(got))
	}
	if got[7][1] != types.Null || got[8][1] != types.NewText("ni") || got[9][2] != types.NewFloat(2.25) {
		t.Errorf("rows %v %v %v", got[7], got[8], got[9])
	}
}

func TestCopyTextCSVAndOut(t *testing.T) {
	_, fb, addr := startServer(t, Config{})
	c := connect(t, addr)
	ctx := context.Background()
	pc := c.PgConn()
	text := "1\ta\\tb\t1.5\n2\t\\N\t-2\n3\tx\\\\y\\ny\tInfinity\n"
	tag, err := pc.CopyFrom(ctx, strings.NewReader(text), "copy c from stdin")
	if err != nil || tag.String() != "COPY 3" {
		t.Fatalf("text: %v %v", tag, err)
	}
	csv := "id,name,f\n4,\"q,\"\"uoted\"\"\n line\",0\n5,,1\n6,\"\",2"
	tag, err = pc.CopyFrom(ctx, strings.NewReader(csv), "copy c from stdin csv header")
	if err != nil || tag.String() != "COPY 3" {
		t.Fatalf("csv: %v %v", tag, err)
	}
	got := fb.snapshot()
	want := []string{`1 "a\tb" 1.5`, `2 NULL -2`, `3 "x\\y\ny" Infinity`, `4 "q,\"uoted\"\n line" 0`, `5 NULL 1`, `6 "" 2`}
	for i, w := range want {
		if s := got[i][0].String() + " " + got[i][1].String() + " " + got[i][2].String(); s != w {
			t.Errorf("row %d: %s, want %s", i, s, w)
		}
	}
	// A malformed row: 22P02 whose CONTEXT names the line, column and
	// value, and nothing from the COPY stored.
	bad := "7\tok\t1\n8\tok\tnotanumber\n"
	_, err = pc.CopyFrom(ctx, strings.NewReader(bad), "copy c from stdin")
	var pe *pgconn.PgError
	if !errors.As(err, &pe) || pe.Code != "22P02" || pe.Where != `COPY c, line 2, column f: "notanumber"` {
		t.Errorf("malformed: got %v, want 22P02 with CONTEXT naming line 2, column f", err)
	}
	if n := len(fb.snapshot()); n != 6 {
		t.Errorf("after failed COPY %d rows stored, want 6", n)
	}
	// Wrong column count: 22P04.
	_, err = pc.CopyFrom(ctx, strings.NewReader("1\t2\n"), "copy c from stdin")
	if codeOf(err) != "22P04" {
		t.Errorf("short row: got %v", err)
	}
	// COPY TO STDOUT in text and CSV.
	var out bytes.Buffer
	tag, err = pc.CopyTo(ctx, &out, "copy c to stdout")
	if err != nil || tag.String() != "COPY 6" {
		t.Fatal(tag, err)
	}
	if !strings.HasPrefix(out.String(), "1\ta\\tb\t1.5\n2\t\\N\t-2\n3\tx\\\\y\\ny\tInfinity\n") {
		t.Errorf("text out: %q", out.String())
	}
	out.Reset()
	if _, err := pc.CopyTo(ctx, &out, "copy c to stdout csv"); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "4,\"q,\"\"uoted\"\"\n line\",0\n5,,1\n6,\"\",2\n") {
		t.Errorf("csv out: %q", out.String())
	}
	// Binary out read back through the binary decoder.
	out.Reset()
	if _, err := pc.CopyTo(ctx, &out, "copy c to stdout binary"); err != nil {
		t.Fatal(err)
	}
	k, _ := newCopyCodec(&backend.CopySpec{Format: "binary", Columns: colsC})
	var back [][]types.Datum
	if err := k.feed(out.Bytes(), 1<<20, func(r []types.Datum, _ []byte) error { back = append(back, r); return nil }); err != nil || !k.ended || len(back) != 6 {
		t.Fatalf("binary out: %d rows ended=%v err=%v", len(back), k.ended, err)
	}
	if back[3][1] != got[3][1] {
		t.Errorf("binary round trip %v != %v", back[3], got[3])
	}
}
