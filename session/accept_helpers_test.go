package session_test

// Helpers shared by the acceptance tests of this package (golden scripts,
// differential and error tests, benchmarks).

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/kvsql/kvsql/catalog"
	"github.com/kvsql/kvsql/encoding"
	"github.com/kvsql/kvsql/kv"
	"github.com/kvsql/kvsql/kv/kvtrace"
	"github.com/kvsql/kvsql/session"
	"github.com/kvsql/kvsql/types"
)

// tracedDB is a DB over a kvtrace.Engine whose log is collected; logging
// starts disabled. Values are rendered by what their key space holds.
type tracedDB struct {
	db    *session.DB
	s     *session.Session
	trace *kvtrace.Engine

	mu     sync.Mutex
	lines  []string
	spaces map[uint64]spaceInfo // refreshed by refreshSpaces, read by formatValue
}

// spaceInfo says what a key space holds: a master file or an index file.
type spaceInfo struct {
	table *catalog.Table
	index *catalog.Index // nil for the master file
}

func newTracedDB(t testing.TB, inner kv.Engine) *tracedDB {
	t.Helper()
	td := &tracedDB{}
	td.trace = kvtrace.New(inner, func(op string) {
		td.mu.Lock()
		td.lines = append(td.lines, op)
		td.mu.Unlock()
	})
	td.trace.SetEnabled(false)
	td.trace.FormatValue = td.formatValue
	db, err := session.Open(session.Options{Engine: td.trace})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	s, err := db.Session("")
	if err != nil {
		t.Fatal(err)
	}
	td.db, td.s = db, s
	td.refreshSpaces()
	return td
}

// refreshSpaces rereads the catalog's key spaces. It must not run while a
// commit may log (formatValue cannot take the DB's lock).
func (td *tracedDB) refreshSpaces() {
	m := map[uint64]spaceInfo{}
	cat := td.db.Catalog()
	for _, dbName := range cat.Databases() {
		tables, _ := cat.Tables(dbName)
		for _, t := range tables {
			m[t.ID] = spaceInfo{table: t}
			for _, idx := range t.Indexes {
				m[idx.ID] = spaceInfo{table: t, index: idx}
			}
		}
	}
	td.mu.Lock()
	td.spaces = m
	td.mu.Unlock()
}

// formatValue renders a value by the kind of file its key lives in:
// master rows as {colID:value}, unique-index values as the primary key
// they point at (and the INCLUDE columns' values), inverted lists as their op log (+pk / -pk).
func (td *tracedDB) formatValue(key, value []byte) string {
	_, space, err := encoding.DecodeUvarintAsc(key)
	if err != nil {
		return fmt.Sprintf("%x", value)
	}
	if space == 1 {
		return fmt.Sprintf("<catalog, %d bytes>", len(value))
	}
	td.mu.Lock()
	info, ok := td.spaces[space]
	td.mu.Unlock()
	switch {
	case !ok:
		return kvtrace.DefaultFormatValue(key, value)
	case info.index == nil:
		return encoding.PrettyRow(value)
	case info.index.Form == catalog.FormUnique && len(info.index.Include) > 0:
		// The primary key, then the INCLUDE columns' row encoding.
		rest := value
		for range info.table.PrimaryKey {
			if rest, _, _, err = encoding.DecodeKeyDatum(rest); err != nil {
				return fmt.Sprintf("!bad:%x", value)
			}
		}
		pk := value[:len(value)-len(rest)]
		return "pk " + prettyPK(info.table.ID, pk) + " include " + encoding.PrettyRow(rest)
	case info.index.Form == catalog.FormUnique:
		return "pk " + prettyPK(info.table.ID, value)
	case info.index.Form == catalog.FormInverted:
		return prettyOpLog(info.table.ID, value)
	}
	return kvtrace.DefaultFormatValue(key, value)
}

// prettyPK renders primary-key bytes as the master key they name.
func prettyPK(tableID uint64, pk []byte) string {
	return encoding.Pretty(append(encoding.EncodeUvarintAsc(nil, tableID), pk...))
}

// prettyOpLog renders an inverted-list op log (see index/inverted.go):
// per op a kind byte (1 add, 2 remove), a uvarint length and the pk.
func prettyOpLog(tableID uint64, v []byte) string {
	var parts []string
	for len(v) > 0 {
		n, w := binary.Uvarint(v[1:])
		if w <= 0 || uint64(len(v)-1-w) < n || (v[0] != 1 && v[0] != 2) {
			parts = append(parts, fmt.Sprintf("!bad:%x", v))
			break
		}
		sign := "+"
		if v[0] == 2 {
			sign = "-"
		}
		parts = append(parts, sign+prettyPK(tableID, v[1+w:1+w+int(n)]))
		v = v[1+w+int(n):]
	}
	return "oplog " + strings.Join(parts, " ")
}

// run executes sql with tracing on and returns the results and the
// trace lines it produced.
func (td *tracedDB) run(ctx context.Context, sql string) ([]session.Result, []string, error) {
	td.refreshSpaces()
	td.mu.Lock()
	td.lines = nil
	td.mu.Unlock()
	td.trace.SetEnabled(true)
	res, err := td.s.Exec(ctx, sql)
	td.trace.SetEnabled(false)
	td.mu.Lock()
	lines := td.lines
	td.lines = nil
	td.mu.Unlock()
	return res, lines, err
}

// dumpKeys lists every key and value of the engine, one per line, with
// raw bytes (so any difference shows).
func dumpKeys(t testing.TB, e kv.Engine) string {
	t.Helper()
	it, err := e.NewIter(kv.IterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer it.Close()
	var b bytes.Buffer
	for ok := it.First(); ok; ok = it.Next() {
		fmt.Fprintf(&b, "%s %x = %x\n", encoding.Pretty(it.Key()), it.Key(), it.Value())
	}
	if err := it.Error(); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// formatRow renders a result row as values separated by " | ".
func formatRow(row []types.Datum) string {
	parts := make([]string, len(row))
	for i, d := range row {
		parts[i] = d.String()
	}
	return strings.Join(parts, " | ")
}
