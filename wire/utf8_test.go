package wire

import (
	"context"
	"errors"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
)

// TestInvalidUTF8 sends bytes that are not UTF-8 text, and a NUL, in a
// Query, a Parse and text-format Bind parameters: each is refused with
// PostgreSQL's 22021 and its message, and the connection goes on.
func TestInvalidUTF8(t *testing.T) {
	_, _, addr := startServer(t, Config{})
	ctx := context.Background()
	c := connect(t, addr)
	pc := c.PgConn()
	const want = `invalid byte sequence for encoding "UTF8": `
	check := func(what string, err error, bytes string) {
		t.Helper()
		var pe *pgconn.PgError
		if !errors.As(err, &pe) || pe.Code != "22021" || pe.Message != want+bytes {
			t.Errorf("%s: got %v, want 22021 %q", what, err, want+bytes)
		}
	}
	_, err := pc.Exec(ctx, "select 'a\xff' from t").ReadAll()
	check("Query", err, "0xff")
	_, err = pc.Exec(ctx, "select 'caf\xc3' from t").ReadAll()
	check("Query, cut sequence", err, "0xc3 0x27")
	_, err = pc.Prepare(ctx, "", "select '\xe2\x28\xa1' from t", nil)
	check("Parse", err, "0xe2 0x28 0xa1")
	for _, p := range []struct{ raw, bytes string }{{"\xff\xfea", "0xff"}, {"a\x00b", "0x00"}} {
		res := pc.ExecParams(ctx, "params text", [][]byte{[]byte(p.raw)}, nil, []int16{0}, nil).Read()
		check("Bind", res.Err, p.bytes)
	}
	// Valid multi-byte text still goes through.
	res := pc.ExecParams(ctx, "params text", [][]byte{[]byte("café ✓")}, nil, []int16{0}, nil).Read()
	if res.Err != nil || len(res.Rows) != 1 || string(res.Rows[0][0]) != "café ✓" {
		t.Errorf("valid text: %v %q", res.Err, res.Rows)
	}
}
