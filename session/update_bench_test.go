package session_test

import (
	"context"
	"fmt"
	"math/rand"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/kvsql/kvsql/internal/testkit"
	"github.com/kvsql/kvsql/session"
	"github.com/kvsql/kvsql/types"
)

// BenchmarkPointUpdate is YCSB's update as pgx sends it: a prepared
// autocommit UPDATE of one field of a 10-field row by its text primary
// key, executed as the wire server executes a portal (Execute, drain,
// Close), by one client on a Pebble store. sync commits as `kvsql
// serve` does: ns/op is mostly the WAL sync, and user-ns/op (the
// process's user CPU per update; the kernel's share is mostly the
// sync's) swings with it. nosync acknowledges commits before the sync
// (--sync=off; a writer then begins at the newest state, not the
// published one): its ns/op is the statement's and the commit's CPU. It
// checks the command tag of every update and the rows' values at the
// end.
//
//	go test ./session -run '^$' -bench PointUpdate -benchmem -count 5
func BenchmarkPointUpdate(b *testing.B) {
	for _, sync := range []bool{true, false} {
		b.Run(map[bool]string{true: "sync", false: "nosync"}[sync], func(b *testing.B) {
			benchPointUpdate(b, session.Options{Dir: filepath.Join(b.TempDir(), "db"), NoSync: !sync})
		})
	}
}

func benchPointUpdate(b *testing.B, opts session.Options) {
	const rows = 10_000
	db, err := session.Open(opts)
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	s := testkit.NewSession(b, db)
	var fields []string
	for f := 0; f < 10; f++ {
		fields = append(fields, fmt.Sprintf("field%d TEXT", f))
	}
	testkit.Must(b, s, "CREATE TABLE usertable (ycsb_key TEXT PRIMARY KEY, "+strings.Join(fields, ", ")+")")
	testkit.Must(b, s, fmt.Sprintf("INSERT INTO usertable SELECT 'user' || lpad(g::text, 10, '0'), %s FROM generate_series(0, %d) g",
		strings.TrimSuffix(strings.Repeat("repeat('x', 100), ", 10), ", "), rows-1))
	ctx := context.Background()
	sts, err := s.Prepare(ctx, "UPDATE usertable SET field3 = $1 WHERE ycsb_key = $2", nil)
	if err != nil {
		b.Fatal(err)
	}
	st := sts[0]
	rng := rand.New(rand.NewSource(3))
	params := []types.Datum{types.NewText(strings.Repeat("y", 100)), {}}
	b.ReportAllocs()
	b.ResetTimer()
	start := userTime()
	for i := 0; i < b.N; i++ {
		params[1] = types.NewText(fmt.Sprintf("user%010d", rng.Intn(rows)))
		res, err := st.Execute(ctx, params)
		if err != nil {
			b.Fatal(err)
		}
		for res.Next() {
		}
		if err := res.Err(); err != nil || res.Tag() != "UPDATE 1" {
			b.Fatalf("%s: %q, %v", params[1].S, res.Tag(), err)
		}
		if err := res.Close(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(userTime()-start)/float64(b.N), "user-ns/op")
	b.StopTimer()
	// Every row updated holds the new field3 and its old other fields.
	got, err := strconv.Atoi(testkit.Query(b, s, "SELECT count(*) FROM usertable WHERE field3 = repeat('y', 100) AND field2 = repeat('x', 100)"))
	if err != nil || got == 0 || got > min(b.N, rows) {
		b.Fatalf("%d rows updated after %d updates (%v)", got, b.N, err)
	}
}

// userTime is the user CPU time this process has used.
func userTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano())
}
