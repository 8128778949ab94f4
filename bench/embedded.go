package bench

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"
	"slices"

	"github.com/kvsql/kvsql"
	"github.com/kvsql/kvsql/types"
	"github.com/kvsql/kvsql/wire/backend"
)

// Embedded is an engine running in the benchmark's own process: kvsql
// through its root package, or SQLite through modernc.org/sqlite.
type Embedded interface {
	Target
	// Exec runs sql (no parameters) and discards any rows.
	Exec(ctx context.Context, sql string) error
	// Prepare prepares one statement with integer parameters.
	Prepare(ctx context.Context, sql string) (Prepared, error)
	Close() error
}

// Prepared is a prepared statement of an Embedded engine.
type Prepared interface {
	// Query runs the statement and returns the number of rows it produced.
	Query(ctx context.Context, args ...int64) (int, error)
	Close() error
}

// KvsqlEmbedded is kvsql opened in process on a Pebble store, sync on.
type KvsqlEmbedded struct {
	db *kvsql.DB
	s  *kvsql.Session
}

var (
	_ Embedded = (*KvsqlEmbedded)(nil)
	_ Embedded = (*SQLiteEmbedded)(nil)
	_ Target   = (*Server)(nil)
)

// OpenKvsqlEmbedded opens a kvsql store in dir (Memory for a memory store).
func OpenKvsqlEmbedded(dir string, memory bool) (*KvsqlEmbedded, error) {
	db, err := kvsql.Open(kvsql.Options{Dir: filepath.Join(dir, "kvsql"), Memory: memory})
	if err != nil {
		return nil, err
	}
	s, err := db.Session("")
	if err != nil {
		return nil, errors.Join(err, db.Close())
	}
	return &KvsqlEmbedded{db: db, s: s}, nil
}

// Name implements Target.
func (k *KvsqlEmbedded) Name() string { return "kvsql" }

// Exec implements Embedded.
func (k *KvsqlEmbedded) Exec(ctx context.Context, sql string) error {
	_, err := k.s.Exec(ctx, sql)
	return err
}

// Session returns the embedded session (tests).
func (k *KvsqlEmbedded) Session() *kvsql.Session { return k.s }

// Prepare implements Embedded.
func (k *KvsqlEmbedded) Prepare(ctx context.Context, sql string) (Prepared, error) {
	stmts, err := k.s.Prepare(ctx, sql, nil)
	if err != nil {
		return nil, err
	}
	if len(stmts) != 1 {
		return nil, fmt.Errorf("bench: prepare %q: %d statements, want 1", sql, len(stmts))
	}
	return &kvsqlPrepared{st: stmts[0]}, nil
}

// Close implements Embedded.
func (k *KvsqlEmbedded) Close() error { return errors.Join(k.s.Close(), k.db.Close()) }

type kvsqlPrepared struct {
	st     backend.Statement
	params []types.Datum
}

func (p *kvsqlPrepared) Query(ctx context.Context, args ...int64) (int, error) {
	p.params = p.params[:0]
	for _, a := range args {
		p.params = append(p.params, types.NewInt(a))
	}
	res, err := p.st.Execute(ctx, p.params)
	if err != nil {
		return 0, err
	}
	n := 0
	for res.Next() {
		n++
	}
	return n, errors.Join(res.Err(), res.Close())
}

func (p *kvsqlPrepared) Close() error { return nil }

// SQLiteEmbedded is SQLite (modernc.org/sqlite) on a file in WAL mode with
// synchronous=FULL, so a commit is durable as kvsql's is with sync on.
type SQLiteEmbedded struct {
	db *sql.DB
}

// OpenSQLiteEmbedded opens a SQLite database file in dir. The program
// must have registered modernc.org/sqlite's "sqlite" driver (a blank
// import): the package does not, so that importing it (as kvsql fuzz and
// kvsql conformance do, for StartPostgres) does not link SQLite into the
// server binary. "kvsql bench" registers it (cmd/kvsql/bench.go, built
// with -tags bench).
func OpenSQLiteEmbedded(dir string) (*SQLiteEmbedded, error) {
	if !slices.Contains(sql.Drivers(), "sqlite") {
		return nil, errors.New(`bench: no "sqlite" database/sql driver is registered: the program must import _ "modernc.org/sqlite"`)
	}
	db, err := sql.Open("sqlite", filepath.Join(dir, "bench.sqlite")+"?_pragma=journal_mode(WAL)&_pragma=synchronous(FULL)")
	if err != nil {
		return nil, err
	}
	// One connection: the workloads are single-threaded, and BEGIN ...
	// COMMIT through Exec must stay on one connection.
	db.SetMaxOpenConns(1)
	if err := db.Ping(); err != nil {
		return nil, errors.Join(err, db.Close())
	}
	return &SQLiteEmbedded{db: db}, nil
}

// Name implements Target.
func (q *SQLiteEmbedded) Name() string { return "sqlite" }

// Exec implements Embedded.
func (q *SQLiteEmbedded) Exec(ctx context.Context, sql string) error {
	_, err := q.db.ExecContext(ctx, sql)
	return err
}

// Prepare implements Embedded.
func (q *SQLiteEmbedded) Prepare(ctx context.Context, sql string) (Prepared, error) {
	st, err := q.db.PrepareContext(ctx, sql)
	if err != nil {
		return nil, err
	}
	return &sqlitePrepared{st: st}, nil
}

// Close implements Embedded.
func (q *SQLiteEmbedded) Close() error { return q.db.Close() }

type sqlitePrepared struct {
	st   *sql.Stmt
	args []any
}

func (p *sqlitePrepared) Query(ctx context.Context, args ...int64) (int, error) {
	p.args = p.args[:0]
	for _, a := range args {
		p.args = append(p.args, a)
	}
	rows, err := p.st.QueryContext(ctx, p.args...)
	if err != nil {
		return 0, err
	}
	n := 0
	for rows.Next() {
		n++
	}
	return n, errors.Join(rows.Err(), rows.Close())
}

func (p *sqlitePrepared) Close() error { return p.st.Close() }
