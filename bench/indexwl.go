package bench

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
)

// selectivities of the index-lookup workloads: the fraction of the table
// one equality lookup returns, and the column prefix that holds it.
var selectivities = []struct {
	label  string
	prefix string
	groups int // distinct values: 1/selectivity
}{
	{"0.01%", "s0001", 10_000},
	{"1%", "s1", 100},
	{"10%", "s10", 10},
}

// Forms of access: a keyid index, an inverted index, a covering index
// (keyid with INCLUDE (id, pad): an index-only scan, on both servers), and
// no index (a full scan). PostgreSQL gets a btree index for every index
// form; the covering one is the same DDL on both.
var accessForms = []struct{ suffix, label, using string }{
	{"_k", "keyid index", "keyid"},
	{"_i", "inverted index", "inverted"},
	{"_c", "covering index", "covering"},
	{"_n", "full scan", ""},
}

// indexWorkloads look up rows by a non-unique column at 0.01%, 1% and 10%
// selectivity through each index form and through a full scan. Every
// selectivity has three columns with the same values, one per form, so all
// forms run over the same table.
func indexWorkloads(sc Scales, seed uint64) []Workload {
	n := sc.Rows
	cols := []string{"id"}
	defs := []string{"id INT PRIMARY KEY"}
	for _, sel := range selectivities {
		for _, f := range accessForms {
			cols = append(cols, sel.prefix+f.suffix)
			defs = append(defs, sel.prefix+f.suffix+" INT NOT NULL")
		}
	}
	cols = append(cols, "pad")
	defs = append(defs, "pad TEXT")
	ds := newDataset(func(ctx context.Context, s *Server) error {
		stmts := []string{"CREATE TABLE lookup (" + strings.Join(defs, ", ") + ")"}
		for _, sel := range selectivities {
			for _, f := range accessForms {
				if f.using == "" {
					continue
				}
				using, include := " USING "+f.using, ""
				if s.Name() == "postgres" {
					using = ""
				}
				if f.using == "covering" {
					// PostgreSQL needs id included too for an index-only
					// scan of SELECT id, pad (kvsql's entries have the
					// primary key anyway and do not store it twice).
					using, include = "", " INCLUDE (id, pad)"
				}
				stmts = append(stmts, fmt.Sprintf("CREATE INDEX lookup_%s%s ON lookup%s (%s%s)%s", sel.prefix, f.suffix, using, sel.prefix, f.suffix, include))
			}
		}
		if err := execAll(ctx, s, stmts...); err != nil {
			return err
		}
		if err := copyRows(ctx, s, "lookup", cols, n, func(i int, d []any) {
			d[0] = i
			k := 1
			for _, sel := range selectivities {
				for range accessForms {
					d[k] = i % sel.groups
					k++
				}
			}
			d[k] = "padding twenty bytes"
		}); err != nil {
			return err
		}
		return analyze(ctx, s, "lookup")
	})
	book := newAnswerBook()
	var out []Workload
	for _, sel := range selectivities {
		for _, f := range accessForms {
			col := sel.prefix + f.suffix
			groups := sel.groups
			out = append(out, Workload{
				Name:  fmt.Sprintf("index lookup %s %s", sel.label, f.label),
				Group: "index lookup", Scale: fmt.Sprintf("%d rows, %d returned", n, n/groups),
				Setup: ds.setup,
				Run: func(ctx context.Context, t Target) ([]Measure, error) {
					s, err := server(t)
					if err != nil {
						return nil, err
					}
					rng := rand.New(rand.NewPCG(seed, 3))
					d, rows, err := timeQuery(ctx, s, "SELECT id, pad FROM lookup WHERE "+col+" = $1", 200, sc.Duration,
						func(int) []any { return []any{rng.IntN(groups)} })
					if err != nil {
						return nil, err
					}
					if want := int64(n / groups); rows < want || rows > want+1 {
						return nil, fmt.Errorf("lookup on %s returned %d rows, want about %d", col, rows, want)
					}
					q := "SELECT id, pad FROM lookup WHERE " + col + " = $1"
					key := groups / 3
					if err := book.check(ctx, s, fmt.Sprint(q, key), false, q, key); err != nil {
						return nil, err
					}
					return []Measure{{Metric: "ms", Value: ms(d)}}, nil
				},
			})
		}
	}
	return out
}

// analyze prepares freshly loaded tables for measuring with VACUUM
// ANALYZE on each, as "pgbench -i" does. On PostgreSQL it sets hint bits
// and the visibility map (then a CHECKPOINT), so the timed runs do not pay
// for the load; on kvsql it compacts the tables' key ranges, so reads do
// not go through the overlapping files a bulk load leaves, and refreshes
// statistics.
func analyze(ctx context.Context, s *Server, tables ...string) error {
	var stmts []string
	for _, t := range tables {
		stmts = append(stmts, "VACUUM ANALYZE "+t)
	}
	if s.Name() == "postgres" {
		stmts = append(stmts, "CHECKPOINT")
	}
	return execAll(ctx, s, stmts...)
}
