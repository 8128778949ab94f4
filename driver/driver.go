package driver

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"
	"io"
	"net/url"
	"path/filepath"
	"strings"
	"sync"

	"github.com/kvsql/kvsql"
	"github.com/kvsql/kvsql/pgerror"
)

// Error is the error type of everything the engine reports: a SQLSTATE
// (Code) with PostgreSQL's message and fields. Use errors.As to find it:
//
//	var pe *driver.Error
//	if errors.As(err, &pe) && pe.Code == "23505" { ... }
type Error = pgerror.Error

// Driver is kvsql's database/sql driver, registered as "kvsql".
type Driver struct{}

var (
	_ driver.Driver        = Driver{}
	_ driver.DriverContext = Driver{}
	_ driver.Connector     = (*connector)(nil)
	_ io.Closer            = (*connector)(nil)
)

func init() { sql.Register("kvsql", Driver{}) }

// Open implements driver.Driver: a connection with a store of its own
// reference (released when it closes).
func (d Driver) Open(name string) (driver.Conn, error) {
	c, err := d.OpenConnector(name)
	if err != nil {
		return nil, err
	}
	conn, err := c.Connect(context.Background())
	// The connection holds its own reference to the store.
	if cerr := c.(*connector).Close(); err == nil && cerr != nil {
		_ = conn.Close()
		return nil, cerr
	}
	return conn, err
}

// OpenConnector implements driver.DriverContext. It opens the store (or
// takes a reference to the one already open on the same directory), so
// sql.Open itself fails on a bad name or a store that cannot be opened.
func (Driver) OpenConnector(name string) (driver.Connector, error) {
	cfg, err := parseDSN(name)
	if err != nil {
		return nil, err
	}
	st, err := openStore(cfg.opts)
	if err != nil {
		return nil, err
	}
	return &connector{st: st, database: cfg.database}, nil
}

// config is a parsed data source name.
type config struct {
	opts     kvsql.Options
	database string
}

// parseDSN reads "file:DIR[?opts]" or ":memory:[?opts]" (doc.go).
func parseDSN(name string) (config, error) {
	var cfg config
	where, query, _ := strings.Cut(name, "?")
	switch {
	case where == ":memory:":
		cfg.opts.Memory = true
	case strings.HasPrefix(where, "file:") && len(where) > len("file:"):
		dir, err := filepath.Abs(strings.TrimPrefix(where, "file:"))
		if err != nil {
			return cfg, fmt.Errorf("kvsql: data source %q: %w", name, err)
		}
		// One key per directory however it was spelled, so handles share
		// the store Pebble allows to be opened once.
		if real, err := filepath.EvalSymlinks(dir); err == nil {
			dir = real
		}
		cfg.opts.Dir = dir
	default:
		return cfg, fmt.Errorf(`kvsql: data source %q: want "file:DIR" or ":memory:"`, name)
	}
	values, err := url.ParseQuery(query)
	if err != nil {
		return cfg, fmt.Errorf("kvsql: data source %q: %w", name, err)
	}
	for k, v := range values {
		switch val := v[len(v)-1]; k {
		case "database":
			cfg.database = val
		case "sync":
			switch val {
			case "on":
			case "off":
				cfg.opts.NoSync = true
			default:
				return cfg, fmt.Errorf("kvsql: data source %q: sync is on or off, not %q", name, val)
			}
		default:
			return cfg, fmt.Errorf("kvsql: data source %q: unknown option %q (database, sync)", name, k)
		}
	}
	return cfg, nil
}

// connector makes the connections of one *sql.DB. It holds a reference
// to the store until Close, and each connection holds one more, so the
// store outlives the handle's last open connection however database/sql
// orders their closing.
type connector struct {
	st       *store
	database string
	once     sync.Once
}

// Connect implements driver.Connector: a new session on the store.
func (c *connector) Connect(ctx context.Context) (driver.Conn, error) {
	if err := c.st.acquire(); err != nil {
		return nil, err
	}
	s, err := c.st.db.Session(c.database)
	if err != nil {
		_ = c.st.release()
		return nil, err
	}
	return &conn{st: c.st, sess: s}, nil
}

// Driver implements driver.Connector.
func (c *connector) Driver() driver.Driver { return Driver{} }

// Close releases the handle's reference to the store; sql.DB.Close calls
// it.
func (c *connector) Close() error {
	var err error
	c.once.Do(func() { err = c.st.release() })
	return err
}
