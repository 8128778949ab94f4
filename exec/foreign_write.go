package exec

import (
	"strings"

	"github.com/kvsql/kvsql/catalog"
	"github.com/kvsql/kvsql/foreign"
	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/types"
)

// foreignBatch collects the key writes an INSERT, UPDATE or DELETE of a
// foreign table makes in the application's store, in order, and applies
// them as one batch when the statement has written its last row
// (flushForeign): a statement that fails writes nothing. The scans of
// the statement read the store as it was when they opened, never these
// pending writes.
type foreignBatch struct {
	st  foreign.Store
	db  string
	ops []foreign.KV
	// live holds the keys the batch sets (true) or deletes (false), so
	// that duplicate checks see the statement's own writes.
	live map[string]bool
}

// foreignWrite replaces row old (nil: none) of foreign table t with new
// (nil: none) in the statement's batch.
func (rs *runState) foreignWrite(t *catalog.Table, old, new []types.Datum) error {
	if rs.ctx.Hooks == nil {
		return pgerror.Newf(pgerror.FeatureNotSupported, "cannot write foreign table %q here", t.Name)
	}
	b := rs.foreign
	if b == nil {
		st, err := rs.ctx.Hooks.ForeignWrite(t.DB)
		if err != nil {
			return err
		}
		b = &foreignBatch{st: st, db: t.DB, live: map[string]bool{}}
		rs.foreign = b
	} else if b.db != t.DB {
		return pgerror.Newf(pgerror.FeatureNotSupported, "one statement cannot write two foreign stores")
	}
	l := t.Foreign
	if old != nil {
		keys, err := l.Deletes(old)
		if err != nil {
			return err
		}
		for _, k := range keys {
			b.ops = append(b.ops, foreign.KV{Key: k, Delete: true})
			b.live[string(k)] = false
		}
	}
	if new == nil {
		return nil
	}
	keys, err := l.Deletes(new) // every key a row with new's key may have
	if err != nil {
		return err
	}
	for _, k := range keys {
		found, pending := b.live[string(k)]
		if !pending {
			_, found, err = b.st.Get(k)
			if err != nil {
				return err
			}
		}
		if found {
			return duplicateForeignKey(t, new)
		}
	}
	puts, err := l.Puts(new)
	if err != nil {
		return err
	}
	for _, kv := range puts {
		b.ops = append(b.ops, kv)
		b.live[string(kv.Key)] = true
	}
	return nil
}

func duplicateForeignKey(t *catalog.Table, row []types.Datum) error {
	names := make([]string, len(t.PrimaryKey))
	vals := make([]string, len(t.PrimaryKey))
	for i, o := range t.PrimaryKey {
		names[i] = t.Columns[o].Name
		vals[i] = row[o].String()
	}
	e := pgerror.Newf(pgerror.UniqueViolation, "duplicate key value violates unique constraint %q", t.PrimaryKeyName)
	e.Detail = "Key (" + strings.Join(names, ", ") + ")=(" + strings.Join(vals, ", ") + ") already exists."
	return e
}

// flushForeign applies the statement's foreign writes, if any.
func (rs *runState) flushForeign() error {
	b := rs.foreign
	if b == nil || len(b.ops) == 0 {
		return nil
	}
	rs.foreign = nil
	return b.st.Write(b.ops)
}
