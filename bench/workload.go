package bench

import (
	"context"
	"time"
)

// Scales are the sizes and durations of one run. Full and Quick are the
// two presets; --scale multiplies the row counts of either.
type Scales struct {
	Accounts  int           // pgbench_accounts rows (branches = Accounts/100000, at least 1)
	YCSB      int           // usertable records (10 fields x 100 bytes)
	ChatUsers int           // chat users; chats = users/5, 5 members each, MsgsPerChat messages
	MsgsChat  int           // messages per chat
	Bulk      int           // rows per bulk load
	Rows      int           // rows of the index-lookup and analytic tables (the join's small side has Rows/10)
	Series    []int         // table sizes of the scaling series
	InProc    int           // rows of the in-process (kvsql vs SQLite) tables
	Duration  time.Duration // length of one timed throughput run
	Clients   int           // goroutines of the YCSB and chat drivers
}

// Full is the default run: about 20-25 minutes on a 2-core machine.
var Full = Scales{
	Accounts: 1_000_000, YCSB: 100_000, ChatUsers: 10_000, MsgsChat: 50,
	Bulk: 1_000_000, Rows: 1_000_000, Series: []int{1e4, 1e5, 1e6, 1e7},
	InProc: 100_000, Duration: 3 * time.Second, Clients: 8,
}

// Quick is the smoke run of --quick: every workload at tiny scale.
var Quick = Scales{
	Accounts: 1_000, YCSB: 1_000, ChatUsers: 200, MsgsChat: 10,
	Bulk: 2_000, Rows: 2_000, Series: []int{1e3, 1e4},
	InProc: 1_000, Duration: 300 * time.Millisecond, Clients: 4,
}

// Scaled returns s with every row count multiplied by f (at least 10 rows).
func (s Scales) Scaled(f float64) Scales {
	if f == 1 || f <= 0 {
		return s
	}
	m := func(n int) int { return max(10, int(float64(n)*f)) }
	s.Accounts, s.YCSB, s.ChatUsers, s.Bulk, s.Rows, s.InProc = m(s.Accounts), m(s.YCSB), m(s.ChatUsers), m(s.Bulk), m(s.Rows), m(s.InProc)
	series := make([]int, len(s.Series))
	for i, n := range s.Series {
		series[i] = m(n)
	}
	s.Series = series
	return s
}

// Measure is one figure of one run of a workload on one system.
type Measure struct {
	Metric string  // "TPS", "ops/s", "rows/s", "p50 ms", "p99 ms", "ms", "retries"
	Value  float64 //
	// Higher is true when a larger value is better (throughput); the
	// report then reads the ratio kvsql/ref as "times as fast".
	Higher bool
	// Info marks a figure reported but not plotted or compared (retry
	// counts).
	Info bool
	// Memory marks the peak memory of the server during the run (MiB):
	// compared in the report, not plotted.
	Memory bool
	// Series is the table size of a scaling-series figure (0 otherwise).
	Series int
}

// Target is one system a workload runs against: a server reached through
// pgx and pgbench, or an embedded engine.
type Target interface {
	// Name is "kvsql", "postgres" or "sqlite".
	Name() string
}

// Workload is one benchmark. Setup loads its data into a target once;
// Run measures once and may be called several times per target (rounds),
// interleaved with runs on the other targets.
type Workload struct {
	Name  string // unique, e.g. "pgbench select c=8 prepared"
	Group string // the section of the report it belongs to
	Scale string // human-readable scale, e.g. "100000 accounts"
	Embed bool   // in-process: targets are kvsql embedded and SQLite
	Setup func(ctx context.Context, t Target) error
	Run   func(ctx context.Context, t Target) ([]Measure, error)
}
