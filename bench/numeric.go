package bench

import (
	"context"
	"errors"
	"fmt"
	"math/big"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
)

// queryText runs a one-value query on a fresh connection.
func queryText(ctx context.Context, s *Server, sql string) (string, error) {
	c, err := pgx.Connect(ctx, s.ConnString())
	if err != nil {
		return "", err
	}
	defer c.Close(context.Background())
	var v string
	err = c.QueryRow(ctx, sql).Scan(&v)
	return v, err
}

// numericWorkloads: sum(amt) over sc.Rows NUMERIC(12,2) values (checked
// to the cent), and pgbench-like transfers between NUMERIC(14,2)
// balances from sc.Clients clients (the total checked unchanged after).
func numericWorkloads(sc Scales, seed uint64) []Workload {
	n := sc.Rows
	accounts := max(100, sc.Accounts/100)
	const startBalance = 100000 // cents per account
	cents := func(i int) int64 { return int64((uint64(i) * 2654435761) % 10_000_000) }
	var wantSum int64
	for i := 0; i < n; i++ {
		wantSum += cents(i)
	}
	num := func(c int64) pgtype.Numeric { return pgtype.Numeric{Int: big.NewInt(c), Exp: -2, Valid: true} }
	ds := newDataset(func(ctx context.Context, s *Server) error {
		if err := execAll(ctx, s,
			"CREATE TABLE ledger (id INT PRIMARY KEY, amt NUMERIC(12,2) NOT NULL)",
			"CREATE TABLE acct (id INT PRIMARY KEY, bal NUMERIC(14,2) NOT NULL)"); err != nil {
			return err
		}
		if err := copyRows(ctx, s, "ledger", []string{"id", "amt"}, n, func(i int, d []any) {
			d[0], d[1] = i, num(cents(i))
		}); err != nil {
			return err
		}
		if err := copyRows(ctx, s, "acct", []string{"id", "bal"}, accounts, func(i int, d []any) {
			d[0], d[1] = i, num(startBalance)
		}); err != nil {
			return err
		}
		return analyze(ctx, s, "ledger", "acct")
	})
	sum := Workload{
		Name: "NUMERIC sum", Group: "NUMERIC", Scale: fmt.Sprintf("%d NUMERIC(12,2) values", n),
		Setup: ds.setup,
		Run: func(ctx context.Context, t Target) ([]Measure, error) {
			s, err := server(t)
			if err != nil {
				return nil, err
			}
			got, err := queryText(ctx, s, "SELECT sum(amt)::text FROM ledger")
			if err != nil {
				return nil, err
			}
			if want := fmt.Sprintf("%d.%02d", wantSum/100, wantSum%100); got != want {
				return nil, fmt.Errorf("sum(amt) = %s, want %s", got, want)
			}
			d, _, err := timeQuery(ctx, s, "SELECT sum(amt) FROM ledger", 3, sc.Duration, nil)
			if err != nil {
				return nil, err
			}
			return []Measure{{Metric: "ms", Value: ms(d)}}, nil
		},
	}
	transfer := Workload{
		Name: "NUMERIC transfers", Group: "NUMERIC", Scale: fmt.Sprintf("%d NUMERIC(14,2) balances, %d clients", accounts, sc.Clients),
		Setup: ds.setup,
		Run: func(ctx context.Context, t Target) ([]Measure, error) {
			s, err := server(t)
			if err != nil {
				return nil, err
			}
			st, err := Drive(ctx, s, sc.Clients, sc.Duration, seed, func(ctx context.Context, cl *Client) error {
				a, b := cl.Rng.IntN(accounts), cl.Rng.IntN(accounts)
				if a == b {
					return nil
				}
				if a > b { // one lock order: no deadlocks
					a, b = b, a
				}
				amt := num(cl.Rng.Int64N(10000) - 5000)
				return pgx.BeginFunc(ctx, cl.Conn, func(tx pgx.Tx) error {
					if _, err := tx.Exec(ctx, "UPDATE acct SET bal = bal - $1 WHERE id = $2", amt, a); err != nil {
						return err
					}
					_, err := tx.Exec(ctx, "UPDATE acct SET bal = bal + $1 WHERE id = $2", amt, b)
					return err
				})
			})
			if err != nil {
				return nil, err
			}
			total, err := queryText(ctx, s, "SELECT sum(bal)::text FROM acct")
			if err != nil {
				return nil, err
			}
			if want := fmt.Sprintf("%d.00", int64(accounts)*startBalance/100); total != want {
				return nil, errors.New("transfers changed the total balance: " + total + ", want " + want)
			}
			return st.Measures(), nil
		},
	}
	return []Workload{sum, transfer}
}
