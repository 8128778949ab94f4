package driver

import (
	"context"
	"database/sql/driver"
	"io"
	"math"
	"reflect"

	"github.com/kvsql/kvsql/types"
	"github.com/kvsql/kvsql/wire/backend"
)

// rows streams one statement's result: each Next pulls a row from the
// session's Result (a query's operators run as rows are read).
type rows struct {
	c    *conn
	ctx  context.Context // the statement's: it cancels the operators too
	cols []backend.Column
	res  backend.Result
	done bool
}

var (
	_ driver.Rows                           = (*rows)(nil)
	_ driver.RowsColumnTypeDatabaseTypeName = (*rows)(nil)
	_ driver.RowsColumnTypeScanType         = (*rows)(nil)
	_ driver.RowsColumnTypeLength           = (*rows)(nil)
)

// Columns implements driver.Rows.
func (r *rows) Columns() []string {
	names := make([]string, len(r.cols))
	for i, c := range r.cols {
		names[i] = c.Name
	}
	return names
}

// Next implements driver.Rows.
func (r *rows) Next(dest []driver.Value) error {
	if r.done {
		return io.EOF
	}
	if !r.res.Next() {
		r.done = true
		if err := r.res.Err(); err != nil {
			return r.c.fail(r.ctx, err)
		}
		return io.EOF
	}
	row := r.res.Row()
	for i := range dest {
		if i < len(row) && i < len(r.cols) {
			dest[i] = value(row[i], r.cols[i].Type)
		}
	}
	return nil
}

// Close implements driver.Rows. An autocommit query's transaction ends
// here.
func (r *rows) Close() error {
	r.done = true
	if err := r.res.Close(); err != nil {
		return r.c.fail(r.ctx, err)
	}
	return nil
}

// ColumnTypeDatabaseTypeName implements driver.RowsColumnTypeDatabaseTypeName.
func (r *rows) ColumnTypeDatabaseTypeName(i int) string { return typeName(r.cols[i].Type) }

// ColumnTypeScanType implements driver.RowsColumnTypeScanType.
func (r *rows) ColumnTypeScanType(i int) reflect.Type { return scanType(r.cols[i].Type) }

// ColumnTypeLength implements driver.RowsColumnTypeLength: n for
// VARCHAR(n) and CHAR(n), unbounded for text and bytea.
func (r *rows) ColumnTypeLength(i int) (int64, bool) {
	t := r.cols[i].Type
	switch t.Family {
	case types.Varchar, types.Char:
		if t.Width > 0 {
			return int64(t.Width), true
		}
		return math.MaxInt64, true
	case types.Text, types.Bytea:
		return math.MaxInt64, true
	}
	return 0, false
}
