package bench

import (
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
)

// Client is one driver goroutine's connection and random stream.
type Client struct {
	ID   int // 0 ... clients-1
	Conn *pgx.Conn
	Rng  *rand.Rand
	// Kind, if the op sets it (e.g. "read", "update"), files the
	// operation's latency under that kind as well: DriveStats.Kinds.
	Kind string
}

// Op is one client operation. It returns a retryable error (40001, 40P01)
// to be retried and counted, any other error to stop the run.
type Op func(ctx context.Context, c *Client) error

// maxRetries bounds the retries of one operation.
const maxRetries = 100

// DriveStats is the outcome of Drive.
type DriveStats struct {
	Ops      int64
	Retries  int64
	Elapsed  time.Duration
	P50, P99 time.Duration
	// Mean is the mean latency. Clients run closed loops, so by Little's
	// law it is about clients / throughput however the server orders its
	// work: at equal ops/s two servers differ only in how the same mean
	// splits into median and tail.
	Mean time.Duration
	// Kinds holds the latencies of the operations that set Client.Kind,
	// one entry per kind, in kind order.
	Kinds []KindStats
}

// KindStats is the share of one kind of operation in a run.
type KindStats struct {
	Kind     string
	Ops      int64
	P50, P99 time.Duration
	Mean     time.Duration
}

// Measures returns the stats as report figures: ops/s, p50, p99, mean,
// retries, then each kind's p50, p99 and mean ("read p50 ms").
func (d DriveStats) Measures() []Measure {
	out := []Measure{
		{Metric: "ops/s", Value: float64(d.Ops) / d.Elapsed.Seconds(), Higher: true},
		{Metric: "p50 ms", Value: ms(d.P50)},
		{Metric: "p99 ms", Value: ms(d.P99)},
		{Metric: "mean ms", Value: ms(d.Mean)},
		{Metric: "retries", Value: float64(d.Retries), Info: true},
	}
	for _, k := range d.Kinds {
		out = append(out,
			Measure{Metric: k.Kind + " p50 ms", Value: ms(k.P50)},
			Measure{Metric: k.Kind + " p99 ms", Value: ms(k.P99)},
			Measure{Metric: k.Kind + " mean ms", Value: ms(k.Mean)})
	}
	return out
}

// kindStats sorts each kind's latencies and returns their stats in kind
// order.
func kindStats(byKind map[string][]time.Duration) []KindStats {
	var out []KindStats
	for _, k := range slices.Sorted(maps.Keys(byKind)) {
		l := byKind[k]
		slices.Sort(l)
		out = append(out, KindStats{Kind: k, Ops: int64(len(l)), P50: Percentile(l, 50), P99: Percentile(l, 99), Mean: mean(l)})
	}
	return out
}

// Drive runs op from clients goroutines, each on its own connection to s,
// for dur, and reports throughput and latency percentiles (a retried
// operation's latency includes its retries). seed makes the clients'
// random streams reproducible.
func Drive(ctx context.Context, s *Server, clients int, dur time.Duration, seed uint64, op Op) (DriveStats, error) {
	conns := make([]*pgx.Conn, clients)
	defer func() {
		for _, c := range conns {
			if c != nil {
				c.Close(context.Background())
			}
		}
	}()
	for i := range conns {
		c, err := pgx.Connect(ctx, s.ConnString())
		if err != nil {
			return DriveStats{}, err
		}
		conns[i] = c
	}
	var (
		wg      sync.WaitGroup
		mu      sync.Mutex
		lats    []time.Duration
		byKind  = map[string][]time.Duration{}
		retries int64
		first   error
	)
	start := time.Now()
	deadline := start.Add(dur)
	for i, c := range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cl := &Client{ID: i, Conn: c, Rng: rand.New(rand.NewPCG(seed, uint64(i)))}
			var mine []time.Duration
			mineByKind := map[string][]time.Duration{}
			var myRetries int64
			var err error
			for time.Now().Before(deadline) && ctx.Err() == nil {
				t0 := time.Now()
				cl.Kind = ""
				tries := 0
				for {
					err = op(ctx, cl)
					if err == nil || !isRetryable(err) || tries >= maxRetries {
						break
					}
					tries++
				}
				myRetries += int64(tries)
				if err != nil {
					err = fmt.Errorf("after %d retries: %w", tries, err)
					break
				}
				lat := time.Since(t0)
				mine = append(mine, lat)
				if cl.Kind != "" {
					mineByKind[cl.Kind] = append(mineByKind[cl.Kind], lat)
				}
			}
			mu.Lock()
			defer mu.Unlock()
			lats = append(lats, mine...)
			for k, l := range mineByKind {
				byKind[k] = append(byKind[k], l...)
			}
			retries += myRetries
			if err != nil && first == nil {
				first = err
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	if first != nil {
		return DriveStats{}, first
	}
	if err := ctx.Err(); err != nil {
		return DriveStats{}, err
	}
	slices.Sort(lats)
	return DriveStats{Ops: int64(len(lats)), Retries: retries, Elapsed: elapsed,
		P50: Percentile(lats, 50), P99: Percentile(lats, 99), Mean: mean(lats), Kinds: kindStats(byKind)}, nil
}

// mean is the mean of ds, 0 for none.
func mean(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	var sum time.Duration
	for _, d := range ds {
		sum += d
	}
	return sum / time.Duration(len(ds))
}

// timeQuery runs sql on one connection repeatedly, at least once and at
// most reps times or until budget has passed, draining the rows, and
// returns the median time of one run and the rows the last run returned.
// arg, if not nil, gives the parameters of the i-th run.
func timeQuery(ctx context.Context, s *Server, sql string, reps int, budget time.Duration, arg func(i int) []any) (time.Duration, int64, error) {
	c, err := pgx.Connect(ctx, s.ConnString())
	if err != nil {
		return 0, 0, err
	}
	defer c.Close(context.Background())
	var times []float64
	var n int64
	start := time.Now()
	for i := 0; i < reps && (i == 0 || time.Since(start) < budget); i++ {
		var args []any
		if arg != nil {
			args = arg(i)
		}
		t0 := time.Now()
		rows, err := c.Query(ctx, sql, args...)
		if err != nil {
			return 0, 0, err
		}
		n = 0
		for rows.Next() {
			n++
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return 0, 0, fmt.Errorf("%s: %w", sql, err)
		}
		times = append(times, float64(time.Since(t0)))
	}
	return time.Duration(Median(times)), n, nil
}

// execAll runs each statement on a fresh connection to s, stopping at the
// first error.
func execAll(ctx context.Context, s *Server, stmts ...string) error {
	c, err := pgx.Connect(ctx, s.ConnString())
	if err != nil {
		return err
	}
	defer c.Close(context.Background())
	for _, q := range stmts {
		if _, err := c.Exec(ctx, q); err != nil {
			return fmt.Errorf("%s: %s: %w", s.name, q, err)
		}
	}
	return nil
}

// copyRows loads n rows into table through pgx's CopyFrom (binary COPY);
// row(i, dst) fills the i-th row's values into dst (len(cols) of them).
func copyRows(ctx context.Context, s *Server, table string, cols []string, n int, row func(i int, dst []any)) error {
	c, err := pgx.Connect(ctx, s.ConnString())
	if err != nil {
		return err
	}
	defer c.Close(context.Background())
	return copyRowsConn(ctx, c, table, cols, n, row)
}

func copyRowsConn(ctx context.Context, c *pgx.Conn, table string, cols []string, n int, row func(i int, dst []any)) error {
	// Load in chunks so a big table is not one huge transaction.
	const chunk = 100_000
	vals := make([]any, len(cols))
	for lo := 0; lo < n; lo += chunk {
		hi := min(n, lo+chunk)
		i := lo
		src := pgx.CopyFromFunc(func() ([]any, error) {
			if i >= hi {
				return nil, nil
			}
			row(i, vals)
			i++
			return vals, nil
		})
		got, err := c.CopyFrom(ctx, pgx.Identifier{table}, cols, src)
		if err != nil {
			return fmt.Errorf("COPY %s: %w", table, err)
		}
		if got != int64(hi-lo) {
			return fmt.Errorf("COPY %s: %d rows copied, want %d", table, got, hi-lo)
		}
	}
	return nil
}
