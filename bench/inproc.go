package bench

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// inprocWorkloads compare kvsql in process (root package) with SQLite in
// process: multi-row INSERT in transactions, point select by primary key,
// a 1% index lookup and a GROUP BY, one goroutine, prepared statements.
func inprocWorkloads(sc Scales, seed uint64) []Workload {
	n := sc.InProc
	var mu sync.Mutex
	loaded := map[string]bool{}
	var seq atomic.Int64
	setup := func(ctx context.Context, t Target) error {
		e, ok := t.(Embedded)
		if !ok {
			return fmt.Errorf("bench: %s is not embedded", t.Name())
		}
		mu.Lock()
		defer mu.Unlock()
		if loaded[t.Name()] {
			return nil
		}
		if err := e.Exec(ctx, "CREATE TABLE items (id INT PRIMARY KEY, grp INT NOT NULL, val INT NOT NULL, pad TEXT)"); err != nil {
			return err
		}
		if err := e.Exec(ctx, "CREATE INDEX items_grp ON items (grp)"); err != nil {
			return err
		}
		if err := embeddedInsert(ctx, e, "items", n); err != nil {
			return err
		}
		loaded[t.Name()] = true
		return nil
	}
	embedded := func(t Target) (Embedded, error) {
		e, ok := t.(Embedded)
		if !ok {
			return nil, fmt.Errorf("bench: %s is not embedded", t.Name())
		}
		return e, nil
	}
	query := func(sql string, want int, arg func(rng *rand.Rand) []int64, thr bool) func(ctx context.Context, t Target) ([]Measure, error) {
		return func(ctx context.Context, t Target) ([]Measure, error) {
			e, err := embedded(t)
			if err != nil {
				return nil, err
			}
			p, err := e.Prepare(ctx, sql)
			if err != nil {
				return nil, err
			}
			defer p.Close()
			rng := rand.New(rand.NewPCG(seed, 4))
			var times []float64
			start := time.Now()
			for i := 0; i < 10_000_000 && (i == 0 || time.Since(start) < sc.Duration); i++ {
				t0 := time.Now()
				got, err := p.Query(ctx, arg(rng)...)
				if err != nil {
					return nil, fmt.Errorf("%s: %w", sql, err)
				}
				if got != want {
					return nil, fmt.Errorf("%s: %d rows, want %d", sql, got, want)
				}
				times = append(times, float64(time.Since(t0)))
			}
			if thr {
				return []Measure{{Metric: "ops/s", Value: float64(len(times)) / time.Since(start).Seconds(), Higher: true}}, nil
			}
			return []Measure{{Metric: "ms", Value: Median(times) / float64(time.Millisecond)}}, nil
		}
	}
	scale := fmt.Sprintf("%d rows, in process", n)
	groups := max(1, n/100)
	return []Workload{
		{Name: "in-process multi-row INSERT", Group: "in process", Scale: scale + ", 1000 rows per INSERT, 10 INSERTs per txn", Embed: true,
			Setup: setup,
			Run: func(ctx context.Context, t Target) ([]Measure, error) {
				e, err := embedded(t)
				if err != nil {
					return nil, err
				}
				table := fmt.Sprintf("ins_%d", seq.Add(1))
				if err := e.Exec(ctx, "CREATE TABLE "+table+" (id INT PRIMARY KEY, grp INT NOT NULL, val INT NOT NULL, pad TEXT)"); err != nil {
					return nil, err
				}
				t0 := time.Now()
				if err := embeddedInsert(ctx, e, table, n); err != nil {
					return nil, err
				}
				el := time.Since(t0)
				if err := e.Exec(ctx, "DROP TABLE "+table); err != nil {
					return nil, err
				}
				return []Measure{{Metric: "rows/s", Value: float64(n) / el.Seconds(), Higher: true}}, nil
			}},
		{Name: "in-process point select", Group: "in process", Scale: scale, Embed: true, Setup: setup,
			Run: query("SELECT pad FROM items WHERE id = $1", 1, func(rng *rand.Rand) []int64 { return []int64{rng.Int64N(int64(n))} }, true)},
		{Name: "in-process index lookup 1%", Group: "in process", Scale: scale, Embed: true, Setup: setup,
			Run: query("SELECT id, pad FROM items WHERE grp = $1", n/groups, func(rng *rand.Rand) []int64 { return []int64{rng.Int64N(int64(groups))} }, false)},
		{Name: "in-process GROUP BY 100 groups", Group: "in process", Scale: scale, Embed: true, Setup: setup,
			Run: query("SELECT val % 100, count(*) FROM items GROUP BY val % 100", min(n, 100), func(*rand.Rand) []int64 { return nil }, false)},
	}
}

// embeddedInsert inserts n rows into table with INSERTs of 1000 rows, 10
// per transaction.
func embeddedInsert(ctx context.Context, e Embedded, table string, n int) error {
	groups := max(1, n/100)
	var b strings.Builder
	for lo := 0; lo < n; lo += 10 * insertBatch {
		if err := e.Exec(ctx, "BEGIN"); err != nil {
			return err
		}
		for blo := lo; blo < min(n, lo+10*insertBatch); blo += insertBatch {
			b.Reset()
			b.WriteString("INSERT INTO " + table + " (id, grp, val, pad) VALUES ")
			for i := blo; i < min(n, blo+insertBatch); i++ {
				if i > blo {
					b.WriteString(", ")
				}
				fmt.Fprintf(&b, "(%d, %d, %d, 'padding for row %d')", i, i%groups, (i*7919)%1_000_003, i)
			}
			if err := e.Exec(ctx, b.String()); err != nil {
				return fmt.Errorf("%s: INSERT INTO %s: %w", e.Name(), table, err)
			}
		}
		if err := e.Exec(ctx, "COMMIT"); err != nil {
			return err
		}
	}
	return nil
}
