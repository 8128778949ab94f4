package fuzz

import (
	"context"
	"errors"
	"fmt"
	"net"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/kvsql/kvsql"
	"github.com/kvsql/kvsql/index"
	"github.com/kvsql/kvsql/wire"
)

// result is one statement's outcome as a client sees it over the wire:
// an error with its SQLSTATE, or columns, text-format rows (nil for NULL)
// and the command tag.
type result struct {
	code, msg string // code is "" on success; "lost" when the connection died
	cols      []string
	oids      []uint32
	rows      [][]*string
	tag       string
	dur       time.Duration
}

func (r result) failed() bool { return r.code != "" }

// stmtTimeout bounds each statement; a statement running longer is a
// finding of its own.
const stmtTimeout = 10 * time.Second

// run sends sql with the simple query protocol, so every value comes back
// in text form on both databases.
func run(ctx context.Context, c *pgconn.PgConn, sql string) result {
	ctx, cancel := context.WithTimeout(ctx, stmtTimeout)
	defer cancel()
	start := time.Now()
	rs, err := c.Exec(ctx, sql).ReadAll()
	r := result{dur: time.Since(start)}
	if err != nil {
		var pe *pgconn.PgError
		switch {
		case errors.As(err, &pe):
			r.code, r.msg = pe.Code, pe.Message
		case ctx.Err() != nil:
			r.code, r.msg = "timeout", fmt.Sprintf("no answer within %s", stmtTimeout)
		default:
			r.code, r.msg = "lost", err.Error()
		}
		return r
	}
	if len(rs) == 0 {
		return r
	}
	last := rs[len(rs)-1]
	r.tag = last.CommandTag.String()
	for _, f := range last.FieldDescriptions {
		r.cols = append(r.cols, f.Name)
		r.oids = append(r.oids, f.DataTypeOID)
	}
	for _, row := range last.Rows {
		out := make([]*string, len(row))
		for i, v := range row {
			if v != nil {
				s := string(v)
				out[i] = &s
			}
		}
		r.rows = append(r.rows, out)
	}
	return r
}

// kvTarget is a fresh in-memory kvsql per case, served over the wire in
// this process, so its store can be checked directly.
type kvTarget struct {
	db   *kvsql.DB
	srv  *wire.Server
	conn *pgconn.PgConn
}

func (k *kvTarget) reset(ctx context.Context) error {
	k.close()
	db, err := kvsql.Open(kvsql.Options{Memory: true})
	if err != nil {
		return err
	}
	srv, err := wire.NewServer(wire.Config{Addr: "127.0.0.1:0", MaxConnections: 4}, db)
	if err != nil {
		db.Close()
		return err
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		db.Close()
		return err
	}
	go func() { _ = srv.Serve(l) }()
	k.db, k.srv = db, srv
	k.conn, err = pgconn.Connect(ctx, "postgres://kvsql@"+l.Addr().String()+"/kvsql?sslmode=disable")
	return err
}

func (k *kvTarget) exec(ctx context.Context, sql string) result { return run(ctx, k.conn, sql) }

// check runs index.Check over the store: every index entry points at a
// live master row and every master row has all its entries.
func (k *kvTarget) check() ([]index.Problem, error) {
	snap := k.db.Engine().NewSnapshot()
	defer snap.Close()
	return index.Check(snap, k.db.Catalog())
}

func (k *kvTarget) close() {
	if k.conn != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		_ = k.conn.Close(ctx)
		cancel()
		k.conn = nil
	}
	if k.srv != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		_ = k.srv.Shutdown(ctx)
		cancel()
		k.srv = nil
	}
	if k.db != nil {
		_ = k.db.Close()
		k.db = nil
	}
}

// pgTarget is one database on a PostgreSQL server, created with the C
// collation (kvsql compares text as bytes), emptied between cases by
// dropping its public schema.
type pgTarget struct {
	url  string // the server's maintenance database
	conn *pgconn.PgConn
}

const pgDatabase = "kvsql_fuzz"

func newPGTarget(ctx context.Context, url string) (*pgTarget, error) {
	c, err := pgconn.Connect(ctx, url)
	if err != nil {
		return nil, err
	}
	defer c.Close(ctx)
	for _, q := range []string{
		"DROP DATABASE IF EXISTS " + pgDatabase,
		"CREATE DATABASE " + pgDatabase + " TEMPLATE template0 ENCODING 'UTF8' LC_COLLATE 'C' LC_CTYPE 'C'",
	} {
		if r := run(ctx, c, q); r.failed() {
			return nil, fmt.Errorf("postgres: %s: %s", q, r.msg)
		}
	}
	cfg, err := pgconn.ParseConfig(url)
	if err != nil {
		return nil, err
	}
	cfg.Database = pgDatabase
	p := &pgTarget{url: url}
	p.conn, err = pgconn.ConnectConfig(ctx, cfg)
	if err != nil {
		return nil, err
	}
	return p, nil
}

func (p *pgTarget) reset(ctx context.Context) error {
	if p.conn.IsClosed() {
		cfg, err := pgconn.ParseConfig(p.url)
		if err != nil {
			return err
		}
		cfg.Database = pgDatabase
		if p.conn, err = pgconn.ConnectConfig(ctx, cfg); err != nil {
			return err
		}
	}
	for _, q := range []string{"DROP SCHEMA IF EXISTS public CASCADE", "CREATE SCHEMA public", "SET synchronous_commit = off", "SET statement_timeout = '20s'"} {
		if r := run(ctx, p.conn, q); r.failed() {
			return fmt.Errorf("postgres: %s: %s", q, r.msg)
		}
	}
	return nil
}

func (p *pgTarget) exec(ctx context.Context, sql string) result { return run(ctx, p.conn, sql) }

func (p *pgTarget) close() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = p.conn.Close(ctx)
}
