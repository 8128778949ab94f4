package driver_test

import (
	"database/sql"
	"fmt"

	_ "github.com/kvsql/kvsql/driver"
)

// Example runs kvsql in process through database/sql.
func Example() {
	db, err := sql.Open("kvsql", ":memory:") // or "file:./data" for Pebble on disk
	if err != nil {
		panic(err)
	}
	defer db.Close()
	if _, err := db.Exec("CREATE TABLE t (id INT PRIMARY KEY, name TEXT)"); err != nil {
		panic(err)
	}
	if _, err := db.Exec("INSERT INTO t VALUES ($1, $2), ($3, $4)", 1, "one", 2, "two"); err != nil {
		panic(err)
	}
	var name string
	if err := db.QueryRow("SELECT name FROM t WHERE id = $1", 2).Scan(&name); err != nil {
		panic(err)
	}
	fmt.Println(name)
	// Output: two
}
