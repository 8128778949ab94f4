// Command embedded runs kvsql inside a Go program through database/sql:
// no server, the engine in process, the SQL and errors of PostgreSQL.
//
//	go run ./examples/embedded                    # an in-memory store
//	go run ./examples/embedded -dsn file:./data   # Pebble in ./data, kept between runs
package main

import (
	"database/sql"
	"errors"
	"flag"
	"fmt"
	"log"
	"time"

	kvdriver "github.com/kvsql/kvsql/driver" // registers the "kvsql" driver
)

func main() {
	dsn := flag.String("dsn", ":memory:", `"file:DIR" (Pebble in DIR) or ":memory:"`)
	flag.Parse()

	db, err := sql.Open("kvsql", *dsn)
	if err != nil {
		log.Fatal(err)
	}
	defer db.Close()

	if _, err := db.Exec(`CREATE TABLE IF NOT EXISTS notes (
		id SERIAL PRIMARY KEY, body TEXT NOT NULL UNIQUE, created TIMESTAMPTZ NOT NULL DEFAULT now())`); err != nil {
		log.Fatal(err)
	}

	// A transaction with placeholders; a duplicate body is a unique
	// violation (SQLSTATE 23505), as from PostgreSQL.
	tx, err := db.Begin()
	if err != nil {
		log.Fatal(err)
	}
	for _, body := range []string{"buy milk", "call Ada"} {
		if _, err := tx.Exec("INSERT INTO notes (body) VALUES ($1) ON CONFLICT (body) DO NOTHING", body); err != nil {
			log.Fatal(err)
		}
	}
	if err := tx.Commit(); err != nil {
		log.Fatal(err)
	}
	_, err = db.Exec("INSERT INTO notes (body) VALUES ($1)", "buy milk")
	var pe *kvdriver.Error
	if errors.As(err, &pe) {
		fmt.Printf("second \"buy milk\": %s (SQLSTATE %s)\n", pe.Message, pe.Code)
	}

	rows, err := db.Query("SELECT id, body, created FROM notes ORDER BY id")
	if err != nil {
		log.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var (
			id      int64
			body    string
			created time.Time
		)
		if err := rows.Scan(&id, &body, &created); err != nil {
			log.Fatal(err)
		}
		fmt.Printf("%d  %-10s %s\n", id, body, created.Format("2006-01-02 15:04"))
	}
	if err := rows.Err(); err != nil {
		log.Fatal(err)
	}
}
