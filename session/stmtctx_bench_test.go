package session_test

import (
	"context"
	"math/rand"
	"testing"

	"github.com/kvsql/kvsql/types"
	"github.com/kvsql/kvsql/wire/backend"
)

// BenchmarkPointSelectOverConn is BenchmarkPointSelect/sql in a session
// opened as the wire server opens one (ConnInfo with Cancel and
// Terminate) and run, as the wire server runs it, under a cancellable
// statement context: the session then adds no context of its own.
func BenchmarkPointSelectOverConn(b *testing.B) {
	db := openBenchStore(b)
	conn, stop := context.WithCancel(context.Background())
	defer stop()
	ci := &backend.ConnInfo{PID: 4242, Cancel: func() {}, Terminate: func() {}}
	bs, err := db.NewSession(backend.WithConnInfo(conn, ci), map[string]string{"user": "postgres"})
	if err != nil {
		b.Fatal(err)
	}
	defer bs.Close()
	sts, err := bs.Prepare(context.Background(), "SELECT payload FROM bench WHERE id = $1", nil)
	if err != nil {
		b.Fatal(err)
	}
	st := sts[0]
	rng := rand.New(rand.NewSource(1))
	params := []types.Datum{{}}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		params[0] = types.NewInt(rng.Int63n(int64(*benchRows)))
		ctx, cancel := context.WithCancelCause(conn)
		res, err := st.Execute(ctx, params)
		if err != nil {
			b.Fatal(err)
		}
		n := 0
		for res.Next() {
			n++
		}
		if err := res.Close(); err != nil || n != 1 {
			b.Fatalf("%d rows, %v", n, err)
		}
		cancel(nil)
	}
}
