package kvsql_test

import (
	"context"
	"fmt"

	"github.com/kvsql/kvsql"
)

// Example opens an in-memory store, writes and reads a table.
func Example() {
	ctx := context.Background()
	db, err := kvsql.Open(kvsql.Options{Memory: true})
	if err != nil {
		panic(err)
	}
	defer db.Close()
	s, err := db.Session("")
	if err != nil {
		panic(err)
	}
	defer s.Close()
	if _, err := s.Exec(ctx, `CREATE TABLE t (id INT PRIMARY KEY, name TEXT);
		INSERT INTO t VALUES (1, 'one'), (2, 'two')`); err != nil {
		panic(err)
	}
	res, err := s.Exec(ctx, "SELECT name FROM t WHERE id = 2")
	if err != nil {
		panic(err)
	}
	fmt.Println(res[0].Columns[0].Name, res[0].Rows[0][0].S, res[0].Tag)
	// Output: name two SELECT 1
}
