package wire

import (
	"context"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/types"
	"github.com/kvsql/kvsql/wire/backend"
)

// fakeBackend is a tiny in-memory engine that understands a handful of
// fixed statements; enough to drive every path of the server.
type fakeBackend struct {
	mu     sync.Mutex
	copied [][]types.Datum // rows COPYed into table c
}

var _ backend.Backend = (*fakeBackend)(nil)

var (
	colsT = []backend.Column{
		{Name: "id", Type: types.T{Family: types.Int8}, TableOID: 16384, Attr: 1},
		{Name: "name", Type: types.T{Family: types.Varchar, Width: 20}, TableOID: 16384, Attr: 2},
		{Name: "f", Type: types.T{Family: types.Float8}},
		{Name: "ok", Type: types.T{Family: types.Bool}},
	}
	rowsT = [][]types.Datum{
		{types.NewInt(1), types.NewText("one"), types.NewFloat(1.5), types.NewBool(true)},
		{types.NewInt(2), types.NewText("two"), types.NewFloat(-0.25), types.NewBool(false)},
		{types.NewInt(3), types.Null, types.NewFloat(1e20), types.Null},
	}
	colsC = []backend.Column{
		{Name: "id", Type: types.T{Family: types.Int8}},
		{Name: "name", Type: types.T{Family: types.Text}},
		{Name: "f", Type: types.T{Family: types.Float8}},
	}
)

func (b *fakeBackend) NewSession(ctx context.Context, params map[string]string) (backend.Session, error) {
	if params["database"] == "nodb" {
		return nil, pgerror.Newf(pgerror.InvalidCatalogName, "database %q does not exist", params["database"])
	}
	return &fakeSession{b: b, settings: map[string]string{"statement_timeout": "0"}, changed: map[string]string{}}, nil
}

type fakeSession struct {
	b        *fakeBackend
	txn      byte
	settings map[string]string
	changed  map[string]string
}

func (s *fakeSession) TxnStatus() byte {
	if s.txn == 0 {
		return 'I'
	}
	return s.txn
}

func (s *fakeSession) ChangedSettings() map[string]string {
	c := s.changed
	s.changed = map[string]string{}
	return c
}

func (s *fakeSession) Setting(name string) string { return s.settings[name] }
func (s *fakeSession) Close() error               { return nil }

// Fail puts an open transaction block into the failed state, as the
// engine does.
func (s *fakeSession) Fail(err error) {
	if s.txn == 'T' {
		s.txn = 'E'
	}
}

func (s *fakeSession) Prepare(ctx context.Context, sql string, oids []uint32) ([]backend.Statement, error) {
	var out []backend.Statement
	for _, part := range strings.Split(sql, ";") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		st, err := s.prepareOne(part, oids)
		if err != nil {
			return nil, err
		}
		out = append(out, st)
	}
	return out, nil
}

// prepareOne understands:
//
//	select * from t | select ... from "c" | gen N | params TYPE... |
//	sleep | panic | panicrows | begin | commit | fail | set NAME VALUE |
//	copy c from stdin [csv|binary] [header] | copy c to stdout [csv|binary]
func (s *fakeSession) prepareOne(sql string, oids []uint32) (backend.Statement, error) {
	low := strings.ToLower(sql)
	f := strings.Fields(low)
	switch {
	case low == "select * from t":
		return &fakeStmt{cols: colsT, rows: rowsT, tag: "SELECT 3"}, nil
	case strings.HasPrefix(low, "select") && strings.Contains(low, `from "c"`):
		return &fakeStmt{cols: colsC, rows: s.b.snapshot(), tag: "SELECT"}, nil
	case f[0] == "gen" && len(f) == 2:
		n, _ := strconv.Atoi(f[1])
		rows := make([][]types.Datum, n)
		for i := range rows {
			rows[i] = []types.Datum{types.NewInt(int64(i))}
		}
		return &fakeStmt{cols: []backend.Column{{Name: "n", Type: types.T{Family: types.Int8}}}, rows: rows, tag: "SELECT " + f[1]}, nil
	case f[0] == "params":
		st := &fakeStmt{echo: true, tag: "SELECT 1"}
		for i, name := range f[1:] {
			fam := map[string]types.Family{"bool": types.Bool, "int2": types.Int2, "int4": types.Int4, "int8": types.Int8,
				"float4": types.Float4, "float8": types.Float8, "numeric": types.Numeric, "text": types.Text,
				"bytea": types.Bytea, "date": types.Date, "timestamp": types.Timestamp, "timestamptz": types.TimestampTZ}[name]
			oid := fam.OID()
			if i < len(oids) && oids[i] != 0 {
				oid = oids[i]
			}
			st.params = append(st.params, oid)
			st.cols = append(st.cols, backend.Column{Name: "p" + strconv.Itoa(i+1), Type: types.T{Family: fam}})
		}
		return st, nil
	case low == "sleep":
		return &fakeStmt{sleep: true, tag: "SLEEP"}, nil
	case low == "panic":
		return &fakeStmt{panicExec: true}, nil
	case low == "panicrows":
		return &fakeStmt{cols: colsT, rows: rowsT, panicRows: true}, nil
	case low == "begin":
		return &fakeStmt{tag: "BEGIN", run: func() { s.txn = 'T' }}, nil
	case low == "commit":
		return &fakeStmt{tag: "COMMIT", run: func() { s.txn = 0 }}, nil
	case low == "fail":
		return &fakeStmt{fail: true, run: func() {
			if s.txn == 'T' {
				s.txn = 'E'
			}
		}}, nil
	case f[0] == "set" && len(f) == 3:
		return &fakeStmt{tag: "SET", run: func() { s.settings[f[1]] = f[2]; s.changed[f[1]] = f[2] }}, nil
	case f[0] == "copy" && len(f) >= 4:
		spec := &backend.CopySpec{In: strings.Contains(low, "from stdin"), Format: "text", Columns: colsC, Table: "c"}
		for _, w := range f[2:] {
			switch w {
			case "csv", "binary":
				spec.Format = w
			case "header":
				spec.Header = true
			}
		}
		spec.Insert = s.b.insert
		spec.Rows = func(ctx context.Context) (backend.Result, error) {
			return &fakeResult{rows: s.b.snapshot()}, nil
		}
		return &fakeStmt{copy: spec}, nil
	}
	return nil, pgerror.Newf(pgerror.SyntaxError, "syntax error at or near %q", f[0])
}

func (b *fakeBackend) snapshot() [][]types.Datum {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([][]types.Datum(nil), b.copied...)
}

func (b *fakeBackend) insert(ctx context.Context, rows [][]types.Datum) (int64, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, r := range rows {
		b.copied = append(b.copied, append([]types.Datum(nil), r...))
	}
	return int64(len(rows)), nil
}

type fakeStmt struct {
	cols                 []backend.Column
	rows                 [][]types.Datum
	params               []uint32
	tag                  string
	echo, sleep, fail    bool
	panicExec, panicRows bool
	run                  func()
	copy                 *backend.CopySpec
}

func (st *fakeStmt) ParamOIDs() []uint32       { return st.params }
func (st *fakeStmt) Columns() []backend.Column { return st.cols }
func (st *fakeStmt) Copy() *backend.CopySpec   { return st.copy }

func (st *fakeStmt) Execute(ctx context.Context, params []types.Datum) (backend.Result, error) {
	if st.run != nil {
		st.run()
	}
	switch {
	case st.panicExec:
		panic("fake backend exploded")
	case st.fail:
		return nil, pgerror.New(pgerror.DivisionByZero, "division by zero")
	case st.sleep:
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(10 * time.Second):
			return &fakeResult{tag: st.tag}, nil
		}
	case st.echo:
		return &fakeResult{rows: [][]types.Datum{params}, tag: st.tag}, nil
	}
	return &fakeResult{rows: st.rows, tag: st.tag, panics: st.panicRows}, nil
}

type fakeResult struct {
	rows   [][]types.Datum
	i      int
	tag    string
	panics bool
}

func (r *fakeResult) Next() bool {
	if r.panics && r.i == 1 {
		panic("fake result exploded")
	}
	r.i++
	return r.i <= len(r.rows)
}
func (r *fakeResult) Row() []types.Datum { return r.rows[r.i-1] }
func (r *fakeResult) Err() error         { return nil }
func (r *fakeResult) Close() error       { return nil }
func (r *fakeResult) Tag() string {
	if r.tag == "SELECT" {
		return "SELECT " + strconv.Itoa(len(r.rows))
	}
	return r.tag
}
