package bench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"time"
)

// Config is one benchmark run.
type Config struct {
	Scales Scales
	Rounds int    // rounds per workload (each runs every system once)
	Seed   uint64 // seeds every random stream
	// KvsqlCommand is the argv that starts a kvsql server, up to and
	// including "serve" (StartKvsql appends --listen, --data, --sync).
	KvsqlCommand []string
	// Only, when not empty, is a regular expression: the run keeps the
	// workloads whose name it matches anywhere (a plain name matches the
	// names containing it; "index lookup|ORDER BY with LIMIT" runs the
	// top-N after the lookup workloads have loaded their table).
	Only     string
	Progress io.Writer // the progress line; nil for none
}

// Cell is the median of one figure of one workload on one system.
type Cell struct {
	Median  float64
	Samples []float64
}

// Row is one workload's figure on every system.
type Row struct {
	Workload Workload
	Metric   string
	Higher   bool
	Info     bool
	Memory   bool             // peak memory: compared, not plotted
	Series   int              // table size of a scaling-series figure, else 0
	Cells    map[string]*Cell // by system name
	Ref      string           // "postgres" or "sqlite"
}

// Ratio is kvsql's median over the reference's.
func (r *Row) Ratio() float64 {
	k, ref := r.Cells["kvsql"], r.Cells[r.Ref]
	if k == nil || ref == nil {
		return Ratio(0, 0)
	}
	return Ratio(k.Median, ref.Median)
}

// Results is everything a run measured.
type Results struct {
	Config   Config
	Started  time.Time
	Elapsed  time.Duration
	Rows     []*Row
	Failures []string // "workload on system: error"
	Versions map[string]string
}

// AllWorkloads returns the suite at sc, in the order it runs.
func AllWorkloads(sc Scales, seed uint64, workDir string) []Workload {
	var ws []Workload
	ws = append(ws, pgbenchWorkloads(sc, workDir)...)
	ws = append(ws, ycsbWorkloads(sc, seed)...)
	ws = append(ws, chatWorkloads(sc, seed)...)
	ws = append(ws, bulkWorkloads(sc)...)
	ws = append(ws, indexWorkloads(sc, seed)...)
	ws = append(ws, analyticWorkloads(sc)...)
	ws = append(ws, numericWorkloads(sc, seed)...)
	ws = append(ws, scalingWorkloads(sc, seed)...)
	ws = append(ws, inprocWorkloads(sc, seed)...)
	return ws
}

// Run starts the servers and embedded engines, runs every workload for
// cfg.Rounds rounds alternating the systems (kvsql, reference, kvsql,
// reference, ...), and returns the medians. A failing workload is
// recorded in Results.Failures and the run goes on; Run returns an error
// only when the systems cannot be set up or ctx is cancelled. Everything
// it started is stopped and deleted before it returns.
func Run(ctx context.Context, cfg Config) (res *Results, err error) {
	if cfg.Rounds < 1 {
		cfg.Rounds = 1
	}
	only, err := regexp.Compile(cfg.Only)
	if err != nil {
		return nil, fmt.Errorf("bench: --only: %w", err)
	}
	res = &Results{Config: cfg, Started: time.Now(), Versions: map[string]string{}}
	root, err := os.MkdirTemp("", "kvsql-bench-")
	if err != nil {
		return nil, err
	}
	if err := os.Chmod(root, 0o755); err != nil {
		return nil, err
	}
	defer func() { err = errors.Join(err, os.RemoveAll(root)) }()
	mk := func(name string) (string, error) {
		d := filepath.Join(root, name)
		return d, os.MkdirAll(d, 0o755)
	}
	pgDir, err := mk("postgres")
	if err != nil {
		return nil, err
	}
	progress(cfg.Progress, "starting PostgreSQL")
	pg, err := StartPostgres(ctx, pgDir)
	if err != nil {
		return nil, err
	}
	defer func() { err = errors.Join(err, pg.Stop()) }()
	kvDir, err := mk("kvsql")
	if err != nil {
		return nil, err
	}
	progress(cfg.Progress, "starting kvsql")
	kv, err := StartKvsql(ctx, cfg.KvsqlCommand, kvDir)
	if err != nil {
		return nil, err
	}
	defer func() { err = errors.Join(err, kv.Stop()) }()
	embDir, err := mk("embedded")
	if err != nil {
		return nil, err
	}
	kvEmb, err := OpenKvsqlEmbedded(embDir, false)
	if err != nil {
		return nil, err
	}
	defer func() { err = errors.Join(err, kvEmb.Close()) }()
	lite, err := OpenSQLiteEmbedded(embDir)
	if err != nil {
		return nil, err
	}
	defer func() { err = errors.Join(err, lite.Close()) }()
	res.Versions["postgres"] = pgVersion(ctx, pg)
	res.Versions["kvsql"] = pgVersion(ctx, kv)
	var sqliteVersion string
	if p, err := lite.db.QueryContext(ctx, "SELECT sqlite_version()"); err == nil {
		if p.Next() {
			_ = p.Scan(&sqliteVersion)
		}
		p.Close()
	}
	res.Versions["sqlite"] = "SQLite " + sqliteVersion + " (modernc.org/sqlite)"

	var ws []Workload
	for _, w := range AllWorkloads(cfg.Scales, cfg.Seed, root) {
		if only.MatchString(w.Name) {
			ws = append(ws, w)
		}
	}
	for wi, w := range ws {
		targets := []Target{kv, pg}
		ref := "postgres"
		if w.Embed {
			targets, ref = []Target{kvEmb, lite}, "sqlite"
		}
		rows := map[string]*Row{}
		var order []string
		failed := map[string]bool{}
		for _, t := range targets {
			progress(cfg.Progress, fmt.Sprintf("[%d/%d] %s: loading %s", wi+1, len(ws), w.Name, t.Name()))
			if err := w.Setup(ctx, t); err != nil {
				if ctx.Err() != nil {
					return res, ctx.Err()
				}
				failed[t.Name()] = true
				res.Failures = append(res.Failures, fmt.Sprintf("%s on %s (setup): %v", w.Name, t.Name(), err))
			}
		}
		for round := 0; round < cfg.Rounds; round++ {
			for _, t := range targets {
				if failed[t.Name()] {
					continue
				}
				progress(cfg.Progress, fmt.Sprintf("[%d/%d] %s: round %d/%d on %s", wi+1, len(ws), w.Name, round+1, cfg.Rounds, t.Name()))
				var mem *memWatch
				if s, ok := t.(*Server); ok {
					mem = watchMemory(s.pids)
				}
				ms, err := w.Run(ctx, t)
				if mem != nil {
					if peak := mem.Stop(); err == nil && peak > 0 {
						ms = append(ms, Measure{Metric: memMetric, Value: peak, Memory: true})
					}
				}
				if err != nil {
					if ctx.Err() != nil {
						return res, ctx.Err()
					}
					failed[t.Name()] = true
					res.Failures = append(res.Failures, fmt.Sprintf("%s on %s: %v", w.Name, t.Name(), err))
					continue
				}
				for _, m := range ms {
					r := rows[m.Metric]
					if r == nil {
						r = &Row{Workload: w, Metric: m.Metric, Higher: m.Higher, Info: m.Info, Memory: m.Memory, Series: m.Series, Cells: map[string]*Cell{}, Ref: ref}
						rows[m.Metric] = r
						order = append(order, m.Metric)
					}
					c := r.Cells[t.Name()]
					if c == nil {
						c = &Cell{}
						r.Cells[t.Name()] = c
					}
					c.Samples = append(c.Samples, m.Value)
				}
			}
		}
		for _, m := range order {
			r := rows[m]
			for _, c := range r.Cells {
				c.Median = Median(c.Samples)
			}
			res.Rows = append(res.Rows, r)
		}
	}
	res.Elapsed = time.Since(res.Started)
	progress(cfg.Progress, fmt.Sprintf("done in %s, %d failures\n", res.Elapsed.Round(time.Second), len(res.Failures)))
	return res, nil
}

// progress rewrites the one progress line.
func progress(w io.Writer, msg string) {
	if w == nil {
		return
	}
	const width = 110
	if len(msg) > width {
		msg = msg[:width]
	}
	fmt.Fprintf(w, "\r%-*s", width, msg)
}
