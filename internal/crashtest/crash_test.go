package crashtest

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"math/rand"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

var (
	kills   = flag.Int("crash.kills", 20, "how many times TestCrash kills the server (-short: 5)")
	seed    = flag.Int64("crash.seed", 0, "seed of TestCrash's choices (0: time-based)")
	clients = flag.Int("crash.clients", 4, "concurrent writing clients")
)

const schema = `CREATE TABLE items (id INT PRIMARY KEY, owner INT NOT NULL, val INT NOT NULL, tag TEXT NOT NULL);
CREATE INDEX items_val ON items (val);
CREATE UNIQUE INDEX items_tag ON items (tag);
CREATE TABLE txlog (client INT, n INT, PRIMARY KEY (client, n))`

// TestCrash kills the server with SIGKILL at random moments while clients
// commit, and checks after every restart that every acknowledged commit
// is present, no transaction is partly visible and `kvsql check` passes.
func TestCrash(t *testing.T) {
	nkills := *kills
	if testing.Short() {
		nkills = min(nkills, 5)
	}
	s := *seed
	if s == 0 {
		s = time.Now().UnixNano()
	}
	t.Logf("seed %d (replay with -crash.seed=%d)", s, s)
	runCrash(t, rand.New(rand.NewSource(s)), *clients, nkills)
}

// runCrash is TestCrash with nclients writers and nkills kills.
func runCrash(t *testing.T, r *rand.Rand, nclients, nkills int) {

	srv := newServer(t)
	srv.start(t)
	ctx := context.Background()
	c, err := pgx.Connect(ctx, srv.url())
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range strings.Split(schema, ";\n") {
		if _, err := c.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	_ = c.Close(ctx)

	models := make([]*clientModel, nclients)
	for i := range models {
		models[i] = newClientModel(i)
	}
	start := time.Now()
	var acked, resolvedIn, resolvedOut int
	for k := 0; k < nkills; k++ {
		delay := time.Duration(50+r.Intn(400)) * time.Millisecond
		seeds := make([]int64, len(models))
		for i := range seeds {
			seeds[i] = r.Int63()
		}
		var wg sync.WaitGroup
		counts := make([]int, len(models))
		errs := make([]error, len(models))
		for i, m := range models {
			wg.Add(1)
			go func() {
				defer wg.Done()
				counts[i], errs[i] = runClient(srv.url(), m, rand.New(rand.NewSource(seeds[i])))
			}()
		}
		time.Sleep(delay)
		srv.kill()
		wg.Wait()
		for i, err := range errs {
			if err != nil {
				t.Fatalf("kill %d: client %d: %v", k, i, err)
			}
			acked += counts[i]
		}
		srv.check(t)
		srv.start(t)
		in, out := verify(t, srv, models)
		resolvedIn += in
		resolvedOut += out
	}
	t.Logf("%d kills in %v: %d acknowledged commits, all present; %d in-flight commits survived, %d did not",
		nkills, time.Since(start).Round(time.Millisecond), acked, resolvedIn, resolvedOut)
	if acked == 0 {
		t.Fatal("no commit was acknowledged: the test tested nothing")
	}
}

// runClient commits transactions until the server dies. It returns the
// number of acknowledged commits; an error means something other than
// the server's death went wrong.
func runClient(url string, m *clientModel, r *rand.Rand) (int, error) {
	ctx := context.Background()
	c, err := pgx.Connect(ctx, url)
	if err != nil {
		return 0, nil // killed before we connected
	}
	defer c.Close(ctx)
	n := 0
	for {
		op := m.gen(r)
		err := runTxn(ctx, c, op)
		var pe *pgconn.PgError
		switch {
		case err == nil:
			m.apply(op)
			n++
		case errors.As(err, &pe) && pe.Code == "40001":
			_, _ = c.Exec(ctx, "ROLLBACK")
		case errors.As(err, &pe):
			return n, fmt.Errorf("transaction %d: %w", op.n, err)
		case errors.Is(err, errCommitUnknown):
			m.pending = op
			return n, nil
		default:
			return n, nil // the server died before COMMIT was sent: not committed
		}
	}
}

// errCommitUnknown marks a COMMIT that got no answer.
var errCommitUnknown = errors.New("commit outcome unknown")

func runTxn(ctx context.Context, c *pgx.Conn, op *txnOps) error {
	last := len(op.sqlText) - 1
	for i, q := range op.sqlText {
		_, err := c.Exec(ctx, q)
		var pe *pgconn.PgError
		if err != nil && i == last && !errors.As(err, &pe) {
			return fmt.Errorf("%w: %v", errCommitUnknown, err)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// verify resolves the in-flight transactions and compares the store with
// the models. It returns how many in-flight commits survived and how many
// did not.
func verify(t *testing.T, srv *server, models []*clientModel) (in, out int) {
	t.Helper()
	ctx := context.Background()
	c, err := pgx.Connect(ctx, srv.url())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	for _, m := range models {
		if m.pending == nil {
			continue
		}
		ok, err := m.resolve(ctx, c)
		if err != nil {
			t.Fatal(err)
		}
		if ok {
			in++
		} else {
			out++
		}
	}
	want := map[int]row{}
	owner := map[int]int{}
	commits := 0
	for _, m := range models {
		for id, rw := range m.rows {
			want[id], owner[id] = rw, m.client
		}
		commits += m.commit
	}
	rows, err := c.Query(ctx, "SELECT id, owner, val, tag FROM items")
	if err != nil {
		t.Fatal(err)
	}
	got := 0
	for rows.Next() {
		var id, own, val int
		var tag string
		if err := rows.Scan(&id, &own, &val, &tag); err != nil {
			t.Fatal(err)
		}
		w, ok := want[id]
		if !ok {
			t.Fatalf("row %d (owner %d, tag %s) is in the store but in no committed transaction", id, own, tag)
		}
		if own != owner[id] || val != w.val || tag != w.tag {
			t.Fatalf("row %d is (%d, %d, %s), want (%d, %d, %s)", id, own, val, tag, owner[id], w.val, w.tag)
		}
		got++
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if got != len(want) {
		t.Fatalf("store has %d rows, the acknowledged commits made %d: a commit was lost", got, len(want))
	}
	var logged int
	if err := c.QueryRow(ctx, "SELECT count(*) FROM txlog").Scan(&logged); err != nil {
		t.Fatal(err)
	}
	if logged != commits {
		t.Fatalf("txlog has %d transactions, want %d", logged, commits)
	}
	// Read through the indexes too: each must return every row.
	var viaVal, viaTag int
	if err := c.QueryRow(ctx, "SELECT count(*) FROM items WHERE val >= 0 AND val < 1000").Scan(&viaVal); err != nil {
		t.Fatal(err)
	}
	if err := c.QueryRow(ctx, "SELECT count(*) FROM items WHERE tag >= 'a'").Scan(&viaTag); err != nil {
		t.Fatal(err)
	}
	if viaVal != len(want) || viaTag != len(want) {
		t.Fatalf("index scans count %d (val) and %d (tag) rows, want %d", viaVal, viaTag, len(want))
	}
	return in, out
}
