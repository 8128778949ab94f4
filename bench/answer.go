package bench

import (
	"context"
	"database/sql/driver"
	"fmt"
	"hash/fnv"
	"sync"

	"github.com/jackc/pgx/v5"
)

// Answers are checked, not only timed: a workload's query runs once more,
// untimed, after each timed run, and its rows are reduced to a digest
// that must be the same on kvsql and on PostgreSQL. A faster operator
// that returns a different answer fails the run.

// answer is the digest of one query's result.
type answer struct {
	rows   int64
	digest uint64
}

func (a answer) String() string { return fmt.Sprintf("%d rows, digest %016x", a.rows, a.digest) }

// answerOf runs sql once on s and digests its rows: in order when ordered
// is set (the query's ORDER BY is total), else as a multiset. Values are
// compared as the client decodes them, so 1.50 and 1.5 differ as numerics
// do in PostgreSQL's output.
func answerOf(ctx context.Context, s *Server, ordered bool, sql string, args ...any) (answer, error) {
	c, err := pgx.Connect(ctx, s.ConnString())
	if err != nil {
		return answer{}, err
	}
	defer c.Close(context.Background())
	rows, err := c.Query(ctx, sql, args...)
	if err != nil {
		return answer{}, err
	}
	defer rows.Close()
	var a answer
	h := fnv.New64a()
	for rows.Next() {
		vals, err := rows.Values()
		if err != nil {
			return answer{}, err
		}
		rh := fnv.New64a()
		for _, v := range vals {
			if dv, ok := v.(driver.Valuer); ok {
				if x, err := dv.Value(); err == nil {
					v = x
				}
			}
			fmt.Fprintf(rh, "%T:%v\x00", v, v)
		}
		a.rows++
		if ordered {
			h.Write(rh.Sum(nil))
		} else {
			a.digest += rh.Sum64() // commutative: the order does not count
		}
	}
	if err := rows.Err(); err != nil {
		return answer{}, fmt.Errorf("%s: %w", sql, err)
	}
	if ordered {
		a.digest = h.Sum64()
	}
	return a, nil
}

// answerBook keeps the first system's answer to each query and compares
// every later one with it.
type answerBook struct {
	mu    sync.Mutex
	first map[string]answer
	by    map[string]string // the system that gave the first answer
}

func newAnswerBook() *answerBook {
	return &answerBook{first: map[string]answer{}, by: map[string]string{}}
}

// check runs the query on s and compares its answer with the one recorded
// for key (the query and its arguments), recording it if it is the first.
func (b *answerBook) check(ctx context.Context, s *Server, key string, ordered bool, sql string, args ...any) error {
	a, err := answerOf(ctx, s, ordered, sql, args...)
	if err != nil {
		return err
	}
	if err := b.record(key, s.Name(), a); err != nil {
		return fmt.Errorf("%w: %s %v", err, sql, args)
	}
	return nil
}

// record compares a, system sys's answer to key, with the first answer
// recorded for key, or records it.
func (b *answerBook) record(key, sys string, a answer) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	first, ok := b.first[key]
	if !ok {
		b.first[key], b.by[key] = a, sys
		return nil
	}
	if first != a {
		return fmt.Errorf("answers differ: %s on %s, %s on %s", first, b.by[key], a, sys)
	}
	return nil
}
