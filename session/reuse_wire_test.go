package session_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgproto3"
	"github.com/kvsql/kvsql/internal/testkit"
	"github.com/kvsql/kvsql/session"
)

// TestKeptTreeSuspendedPortals runs one named prepared statement, whose
// operator tree is kept between executions, through the wire with
// portals interleaved as a client may: portal p1 is executed with a row
// limit (suspended, its tree open), portal p2 of the same statement runs
// to its end meanwhile (it must build its own tree), p1 resumes and
// finishes, then the unnamed portal runs (the kept tree again). Every
// portal's rows must be those of the same query sent afresh with the
// same parameters (ExecParams: an unnamed statement, planned and built
// anew). Reproduce a failure with the printed -seed.
func TestKeptTreeSuspendedPortals(t *testing.T) {
	rng := seededRand(t)
	db, err := session.Open(session.Options{Memory: true})
	if err != nil {
		t.Fatal(err)
	}
	ts := testkit.StartServer(t, db, nil)
	c := ts.Connect(t, pgx.QueryExecModeSimpleProtocol).PgConn()
	ctx := context.Background()
	if _, err := c.Exec(ctx, "CREATE TABLE q (id INT PRIMARY KEY, b TEXT); INSERT INTO q SELECT g, 'v' || (g * 7 % 11) FROM generate_series(1, 60) g").ReadAll(); err != nil {
		t.Fatal(err)
	}
	const sql = "SELECT id, b FROM q WHERE id >= $1 ORDER BY id LIMIT $2"
	if _, err := c.Prepare(ctx, "s", sql, nil); err != nil {
		t.Fatal(err)
	}
	fresh := func(p []string) []string {
		res := c.ExecParams(ctx, sql, [][]byte{[]byte(p[0]), []byte(p[1])}, nil, nil, nil).Read()
		if res.Err != nil {
			t.Fatal(res.Err)
		}
		var out []string
		for _, r := range res.Rows {
			out = append(out, string(r[0])+"|"+string(r[1]))
		}
		return out
	}
	fe := c.Frontend()
	for iter := 0; iter < 40; iter++ {
		params := make([][]string, 3)
		for i := range params {
			params[i] = []string{fmt.Sprint(rng.Intn(70) - 3), fmt.Sprint(rng.Intn(9))}
		}
		limit := 1 + rng.Intn(3)
		fe.Send(&pgproto3.Bind{DestinationPortal: "p1", PreparedStatement: "s", Parameters: [][]byte{[]byte(params[0][0]), []byte(params[0][1])}})
		fe.Send(&pgproto3.Execute{Portal: "p1", MaxRows: uint32(limit)})
		fe.Send(&pgproto3.Bind{DestinationPortal: "p2", PreparedStatement: "s", Parameters: [][]byte{[]byte(params[1][0]), []byte(params[1][1])}})
		fe.Send(&pgproto3.Execute{Portal: "p2"})
		fe.Send(&pgproto3.Execute{Portal: "p1"})
		fe.Send(&pgproto3.Bind{PreparedStatement: "s", Parameters: [][]byte{[]byte(params[2][0]), []byte(params[2][1])}})
		fe.Send(&pgproto3.Execute{})
		fe.Send(&pgproto3.Sync{})
		if err := fe.Flush(); err != nil {
			t.Fatal(err)
		}
		// The rows of each Execute, in the order sent: p1 (suspended),
		// p2, p1 (the rest), the unnamed portal.
		var got [][]string
		var cur []string
		var ends []string
	read:
		for {
			msg, err := fe.Receive()
			if err != nil {
				t.Fatal(err)
			}
			switch m := msg.(type) {
			case *pgproto3.DataRow:
				cur = append(cur, string(m.Values[0])+"|"+string(m.Values[1]))
			case *pgproto3.PortalSuspended:
				got, cur, ends = append(got, cur), nil, append(ends, "suspended")
			case *pgproto3.CommandComplete:
				got, cur, ends = append(got, cur), nil, append(ends, string(m.CommandTag))
			case *pgproto3.ErrorResponse:
				t.Fatalf("iter %d: %s", iter, m.Message)
			case *pgproto3.ReadyForQuery:
				break read
			}
		}
		if len(got) != 4 {
			t.Fatalf("iter %d: %d Execute results (%v)", iter, len(got), ends)
		}
		want1 := fresh(params[0])
		gotP1 := append(append([]string{}, got[0]...), got[2]...)
		check := func(name string, got, want []string) {
			if strings.Join(got, ",") != strings.Join(want, ",") {
				t.Fatalf("iter %d: portal %s with %v (%d rows before suspending): got %v, want %v", iter, name, params, limit, got, want)
			}
		}
		check("p1", gotP1, want1)
		check("p2", got[1], fresh(params[1]))
		check("unnamed", got[3], fresh(params[2]))
		if len(want1) > limit && (len(got[0]) != limit || ends[0] != "suspended") {
			t.Fatalf("iter %d: p1 gave %d rows, then %s; want %d rows, then suspended", iter, len(got[0]), ends[0], limit)
		}
	}
}
