package bench

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
)

// YCSB's usertable: a text key and ten 100-byte fields.
const (
	ycsbFields    = 10
	ycsbFieldSize = 100
)

func ycsbKey(i uint64) string { return fmt.Sprintf("user%010d", i) }

// ycsbValue returns a deterministic 100-byte field value.
func ycsbValue(rng *rand.Rand) string {
	var b [ycsbFieldSize]byte
	for i := range b {
		b[i] = byte('a' + rng.IntN(26))
	}
	return string(b[:])
}

// ycsbWorkloads are YCSB-style mixes through pgx: read-heavy (95% reads,
// 5% updates of one field) and update-heavy (70/30), each with uniform and
// scrambled-zipfian key choice.
func ycsbWorkloads(sc Scales, seed uint64) []Workload {
	n := sc.YCSB
	cols := []string{"ycsb_key"}
	defs := []string{"ycsb_key TEXT PRIMARY KEY"}
	for f := 0; f < ycsbFields; f++ {
		cols = append(cols, fmt.Sprintf("field%d", f))
		defs = append(defs, fmt.Sprintf("field%d TEXT", f))
	}
	ds := newDataset(func(ctx context.Context, s *Server) error {
		if err := execAll(ctx, s, "CREATE TABLE usertable ("+strings.Join(defs, ", ")+")"); err != nil {
			return err
		}
		rng := rand.New(rand.NewPCG(seed, 0))
		if err := copyRows(ctx, s, "usertable", cols, n, func(i int, d []any) {
			d[0] = ycsbKey(uint64(i))
			for f := 1; f <= ycsbFields; f++ {
				d[f] = ycsbValue(rng)
			}
		}); err != nil {
			return err
		}
		return analyze(ctx, s, "usertable")
	})
	zipf := NewZipfian(uint64(n), YCSBTheta, true, rand.New(rand.NewPCG(seed, 1)))
	var out []Workload
	for _, mix := range []struct {
		name string
		read float64
	}{{"read-heavy 95/5", 0.95}, {"update-heavy 70/30", 0.70}} {
		for _, dist := range []string{"uniform", "zipfian"} {
			read := mix.read
			out = append(out, Workload{
				Name:  fmt.Sprintf("YCSB %s %s", mix.name, dist),
				Group: "YCSB", Scale: fmt.Sprintf("%d records x 10 x 100 B, %d clients", n, sc.Clients),
				Setup: ds.setup,
				Run: func(ctx context.Context, t Target) ([]Measure, error) {
					s, err := server(t)
					if err != nil {
						return nil, err
					}
					// One generator per client: each is used by one goroutine.
					gens := make([]*Zipfian, sc.Clients)
					st, err := Drive(ctx, s, sc.Clients, sc.Duration, seed, func(ctx context.Context, cl *Client) error {
						c, rng := cl.Conn, cl.Rng
						var k uint64
						if dist == "uniform" {
							k = rng.Uint64N(uint64(n))
						} else {
							if gens[cl.ID] == nil {
								gens[cl.ID] = zipf.Clone(rng)
							}
							k = gens[cl.ID].Next()
						}
						if rng.Float64() < read {
							cl.Kind = "read"
							rows, err := c.Query(ctx, "SELECT * FROM usertable WHERE ycsb_key = $1", ycsbKey(k))
							if err != nil {
								return err
							}
							got := 0
							for rows.Next() {
								got++
							}
							rows.Close()
							if err := rows.Err(); err != nil {
								return err
							}
							if got != 1 {
								return fmt.Errorf("read %s: %d rows, want 1", ycsbKey(k), got)
							}
							return nil
						}
						cl.Kind = "update"
						f := rng.IntN(ycsbFields)
						tag, err := c.Exec(ctx, fmt.Sprintf("UPDATE usertable SET field%d = $1 WHERE ycsb_key = $2", f), ycsbValue(rng), ycsbKey(k))
						if err != nil {
							return err
						}
						if tag.RowsAffected() != 1 {
							return fmt.Errorf("update %s: %d rows, want 1", ycsbKey(k), tag.RowsAffected())
						}
						return nil
					})
					if err != nil {
						return nil, err
					}
					return st.Measures(), nil
				},
			})
		}
	}
	return out
}
