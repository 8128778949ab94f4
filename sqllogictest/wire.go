package sqllogictest

import (
	"context"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgconn/ctxwatch"
	"github.com/jackc/pgx/v5/pgtype"
)

// WireTarget runs each file in a fresh database of a server that speaks
// the PostgreSQL wire protocol: PostgreSQL itself or kvsql serve.
//
// For each file Open connects to the server named by the URL (the admin
// connection), runs CREATE DATABASE with the runner's unique name, and
// connects to the new database; Conn.Close drops that database.
type WireTarget struct {
	cfg *pgx.ConnConfig
	// ExecMode is how statements are sent; the simple query protocol by
	// default, because it accepts every statement (several in one string,
	// DDL, no parameter inference) and returns every value as text.
	ExecMode pgx.QueryExecMode
}

var _ Target = (*WireTarget)(nil)
var _ Conn = (*wireConn)(nil)

// NewWireTarget checks a PostgreSQL URL (postgres://user@host:port/db?...)
// or key=value connection string and returns a target for it.
func NewWireTarget(url string) (*WireTarget, error) {
	cfg, err := pgx.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("sqllogictest: bad connection string: %w", err)
	}
	return &WireTarget{cfg: cfg, ExecMode: pgx.QueryExecModeSimpleProtocol}, nil
}

// Name returns "wire postgres://user@host:port/db" without the password.
func (w *WireTarget) Name() string {
	return fmt.Sprintf("wire postgres://%s@%s:%d/%s", w.cfg.User, w.cfg.Host, w.cfg.Port, w.cfg.Database)
}

// connect opens a session to database db (the URL's database when empty).
func (w *WireTarget) connect(ctx context.Context, db string) (*pgx.Conn, error) {
	cfg := w.cfg.Copy()
	if db != "" {
		cfg.Database = db
	}
	cfg.DefaultQueryExecMode = w.ExecMode
	// On a statement timeout, ask the server to cancel the statement and
	// keep the session, rather than pgx's default of breaking the
	// connection, so the rest of the file can still run. The deadline is
	// the fallback for a server that ignores cancel requests.
	cfg.BuildContextWatcherHandler = func(pc *pgconn.PgConn) ctxwatch.Handler {
		return &pgconn.CancelRequestContextWatcherHandler{Conn: pc, DeadlineDelay: 5 * time.Second}
	}
	return pgx.ConnectConfig(ctx, cfg)
}

// quoteIdent quotes an identifier for PostgreSQL.
func quoteIdent(s string) string {
	return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
}

// Open creates database name and returns a session to it.
func (w *WireTarget) Open(ctx context.Context, name string) (Conn, error) {
	admin, err := w.connect(ctx, "")
	if err != nil {
		return nil, err
	}
	if _, err := admin.Exec(ctx, "CREATE DATABASE "+quoteIdent(name)); err != nil {
		admin.Close(context.Background())
		return nil, fmt.Errorf("create database %s: %w", name, err)
	}
	conn, err := w.connect(ctx, name)
	if err != nil {
		dropDatabase(admin, name)
		admin.Close(context.Background())
		return nil, err
	}
	return &wireConn{conn: conn, admin: admin, db: name}, nil
}

// Drop retries: the server may still be tearing down the session that
// just closed ("database is being accessed by other users").
const (
	dropAttempts = 20
	dropPause    = 50 * time.Millisecond
	closeTimeout = 10 * time.Second
)

func dropDatabase(admin *pgx.Conn, name string) error {
	ctx, cancel := context.WithTimeout(context.Background(), closeTimeout)
	defer cancel()
	var err error
	for range dropAttempts {
		if _, err = admin.Exec(ctx, "DROP DATABASE IF EXISTS "+quoteIdent(name)); err == nil {
			return nil
		}
		if ctx.Err() != nil {
			break
		}
		time.Sleep(dropPause)
	}
	return fmt.Errorf("drop database %s: %w", name, err)
}

// wireConn is a session plus the admin connection that drops its
// database on Close.
type wireConn struct {
	conn  *pgx.Conn
	admin *pgx.Conn
	db    string
}

func (c *wireConn) Exec(ctx context.Context, sql string) error {
	_, err := c.conn.Exec(ctx, sql)
	return err
}

func (c *wireConn) Query(ctx context.Context, sql string) ([][]any, error) {
	rows, err := c.conn.Query(ctx, sql)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out [][]any
	for rows.Next() {
		row, err := rowValues(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, row)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	return out, nil
}

func (c *wireConn) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), closeTimeout)
	defer cancel()
	err := c.conn.Close(ctx)
	if derr := dropDatabase(c.admin, c.db); err == nil {
		err = derr
	}
	if cerr := c.admin.Close(ctx); err == nil {
		err = cerr
	}
	return err
}

// rowValues converts the current row to the runner's value kinds. Text
// format values (all of them under the simple protocol) are read from
// their PostgreSQL text form, which keeps dates, intervals and other
// types in the text PostgreSQL prints; binary values go through pgx's
// decoders.
func rowValues(rows pgx.Rows) ([]any, error) {
	fds := rows.FieldDescriptions()
	raw := rows.RawValues()
	out := make([]any, len(raw))
	var decoded []any
	for i, b := range raw {
		if b == nil {
			continue
		}
		if fds[i].Format == pgx.TextFormatCode {
			v, err := fromText(fds[i].DataTypeOID, b)
			if err != nil {
				return nil, fmt.Errorf("column %s: %w", fds[i].Name, err)
			}
			out[i] = v
			continue
		}
		if decoded == nil {
			var err error
			if decoded, err = rows.Values(); err != nil {
				return nil, err
			}
		}
		out[i] = fromDecoded(decoded[i])
	}
	return out, nil
}

// fromText converts one text-format value of type oid.
func fromText(oid uint32, b []byte) (any, error) {
	s := string(b)
	switch oid {
	case pgtype.Int2OID, pgtype.Int4OID, pgtype.Int8OID, pgtype.OIDOID:
		return strconv.ParseInt(s, 10, 64)
	case pgtype.Float4OID, pgtype.Float8OID:
		return strconv.ParseFloat(s, 64)
	case pgtype.NumericOID:
		return s, nil // exactly as PostgreSQL prints it; I and R columns read its number
	case pgtype.BoolOID:
		return s == "t" || s == "true", nil
	case pgtype.ByteaOID:
		if h, ok := strings.CutPrefix(s, `\x`); ok {
			return hex.DecodeString(h)
		}
		return []byte(s), nil // the old escape format: keep it as is
	}
	return s, nil
}

// fromDecoded folds a value pgx decoded from binary format into the
// runner's kinds.
func fromDecoded(v any) any {
	switch x := v.(type) {
	case pgtype.Numeric:
		// Its text, exactly as PostgreSQL prints it (scale kept).
		v, err := x.Value()
		if err != nil || v == nil {
			return nil
		}
		return v
	case nil, bool, string, []byte, time.Time, int64, int32, int16, float64, float32:
		return v
	}
	if s, ok := v.(fmt.Stringer); ok {
		return s.String()
	}
	return fmt.Sprint(v)
}
