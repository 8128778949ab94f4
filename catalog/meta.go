package catalog

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/kvsql/kvsql/encoding"
	"github.com/kvsql/kvsql/kv"
	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/types"
)

// MetaSpace is the key space that holds the catalog itself.
const MetaSpace uint64 = 1

// FirstUserSpace is the first key space id given to a table or index.
// Spaces 2..FirstUserSpace-1 are reserved for future system use.
const FirstUserSpace uint64 = 100

// The meta keys. Each is EncodeKey(MetaSpace, [tag, ...]) with every part
// ascending, so Pretty prints them as /1/"tag"/....
const (
	tagFormat   = "format"   // /1/"format" → uvarint format version
	tagNextID   = "nextid"   // /1/"nextid" → 8-byte big-endian next key space id
	tagIDFloor  = "idfloor"  // /1/"idfloor" → 8-byte big-endian: no id below is handed out again (ids.go)
	tagDatabase = "database" // /1/"database"/db → JSON {"name":db}
	tagTable    = "table"    // /1/"table"/db/name → JSON Table descriptor
	tagView     = "view"     // /1/"view"/db/name → JSON View descriptor
	tagStats    = "stats"    // /1/"stats"/tableID → JSON Stats
	tagSequence = "seq"      // /1/"seq"/tableID/columnID → 8-byte big-endian next value
)

func metaKey(parts ...types.Datum) []byte {
	dirs := make([]encoding.Direction, len(parts))
	for i := range dirs {
		dirs[i] = encoding.Ascending
	}
	return encoding.EncodeKey(nil, MetaSpace, parts, dirs)
}

func text(s string) types.Datum { return types.NewText(s) }

// FormatKey, NextIDKey, IDFloorKey, DatabaseKey, TableKey, ViewKey,
// StatsKey and SequenceKey build the meta keys documented in
// docs/layout.md.
func FormatKey() []byte               { return metaKey(text(tagFormat)) }
func NextIDKey() []byte               { return metaKey(text(tagNextID)) }
func IDFloorKey() []byte              { return metaKey(text(tagIDFloor)) }
func DatabaseKey(db string) []byte    { return metaKey(text(tagDatabase), text(db)) }
func TableKey(db, name string) []byte { return metaKey(text(tagTable), text(db), text(name)) }
func ViewKey(db, name string) []byte  { return metaKey(text(tagView), text(db), text(name)) }

// StatsPrefix is the prefix of every StatsKey.
func StatsPrefix() []byte { return metaKey(text(tagStats)) }

func StatsKey(tableID uint64) []byte { return metaKey(text(tagStats), types.NewInt(int64(tableID))) }
func tablePrefix(db string) []byte   { return metaKey(text(tagTable), text(db)) }
func viewPrefix(db string) []byte    { return metaKey(text(tagView), text(db)) }
func sequencePrefix(tableID uint64) []byte {
	return metaKey(text(tagSequence), types.NewInt(int64(tableID)))
}

// SequenceKey is the counter of a serial column (or the hidden row id).
func SequenceKey(tableID uint64, columnID uint32) []byte {
	return metaKey(text(tagSequence), types.NewInt(int64(tableID)), types.NewInt(int64(columnID)))
}

func putUint64(v uint64) []byte { return binary.BigEndian.AppendUint64(nil, v) }

func getUint64(b []byte) (uint64, error) {
	if len(b) != 8 {
		return 0, pgerror.Newf(pgerror.DataCorrupted, "catalog: counter value has %d bytes, want 8", len(b))
	}
	return binary.BigEndian.Uint64(b), nil
}

// NextSequence reserves n consecutive values (n >= 1) of the counter of
// column colID of table t and returns the first; the values are first,
// first+1, ..., first+n-1. The first value ever handed out is 1. A
// multi-row INSERT reserves its whole block with one call.
//
// The counter is read and written through rw, so it commits (or not) with
// the statement. Two transactions that reserve from the same counter
// concurrently would both read the same value: callers serialize writers.
func NextSequence(rw kv.ReadWriter, t *Table, colID uint32, n int64) (int64, error) {
	if n < 1 {
		return 0, pgerror.Newf(pgerror.InvalidParameterValue, "catalog: cannot reserve %d sequence values", n)
	}
	key := SequenceKey(t.ID, colID)
	next := uint64(1)
	v, err := rw.Get(key)
	switch {
	case err == nil:
		if next, err = getUint64(v); err != nil {
			return 0, err
		}
	case !errors.Is(err, kv.ErrNotFound):
		return 0, err
	}
	if err := rw.Set(key, putUint64(next+uint64(n))); err != nil {
		return 0, err
	}
	return int64(next), nil
}

// Load reads the whole catalog from r. The store must have been
// bootstrapped (see Open); an unknown format version is refused.
func Load(r kv.Reader) (*Catalog, error) {
	ver, err := readVersion(r)
	if err != nil {
		return nil, err
	}
	if ver == 0 {
		return nil, pgerror.New(pgerror.DataCorrupted, "catalog: store is not bootstrapped (no format version key)")
	}
	if ver != CurrentVersion {
		return nil, versionError(ver, CurrentVersion)
	}
	v, err := r.Get(NextIDKey())
	if err != nil {
		return nil, fmt.Errorf("catalog: reading next id: %w", err)
	}
	nextID, err := getUint64(v)
	if err != nil {
		return nil, err
	}
	floor, err := readIDFloor(r)
	if err != nil {
		return nil, fmt.Errorf("catalog: reading the id floor: %w", err)
	}
	c := empty(nextID)
	c.ids = &IDs{next: max(nextID, floor), floor: floor}
	prefix := metaKey()
	it, err := r.NewIter(kv.IterOptions{LowerBound: prefix, UpperBound: encoding.PrefixEnd(prefix)})
	if err != nil {
		return nil, err
	}
	defer it.Close()
	var tables []*Table
	var views []*View
	var viewDBs []string
	type seqDesc struct {
		key, value []byte
		parts      []types.Datum
	}
	var seqs, funcs, schemas, utypes, roles []seqDesc
	for ok := it.First(); ok; ok = it.Next() {
		_, parts, err := encoding.DecodeKey(it.Key())
		if err != nil {
			return nil, pgerror.Newf(pgerror.DataCorrupted, "catalog: bad meta key %x: %v", it.Key(), err)
		}
		if len(parts) == 0 || parts[0].Kind != types.KindText {
			return nil, pgerror.Newf(pgerror.DataCorrupted, "catalog: bad meta key %s", encoding.Pretty(it.Key()))
		}
		switch parts[0].S {
		case tagDatabase:
			var d dbDesc
			if err := json.Unmarshal(it.Value(), &d); err != nil {
				return nil, corrupt(it.Key(), err)
			}
			c.dbs[d.Name] = newDatabase(d.Name)
			c.dbs[d.Name].Foreign = d.Foreign
		case tagTable:
			t := new(Table)
			if err := json.Unmarshal(it.Value(), t); err != nil {
				return nil, corrupt(it.Key(), err)
			}
			tables = append(tables, t)
		case tagView:
			v := new(View)
			if err := json.Unmarshal(it.Value(), v); err != nil {
				return nil, corrupt(it.Key(), err)
			}
			if len(parts) != 3 && len(parts) != 4 {
				return nil, corrupt(it.Key(), errors.New("want /view/db/[schema/]name"))
			}
			views = append(views, v)
			viewDBs = append(viewDBs, parts[1].S)
		case tagSchema:
			if len(parts) != 3 {
				return nil, corrupt(it.Key(), errors.New("want /schema/db/name"))
			}
			schemas = append(schemas, seqDesc{key: append([]byte(nil), it.Key()...), value: append([]byte(nil), it.Value()...), parts: parts})
		case tagRole:
			roles = append(roles, seqDesc{key: append([]byte(nil), it.Key()...), value: append([]byte(nil), it.Value()...), parts: parts})
		case tagSeqDef:
			seqs = append(seqs, seqDesc{key: append([]byte(nil), it.Key()...), value: append([]byte(nil), it.Value()...), parts: parts})
		case tagType:
			utypes = append(utypes, seqDesc{key: append([]byte(nil), it.Key()...), value: append([]byte(nil), it.Value()...), parts: parts})
		case tagFunction:
			funcs = append(funcs, seqDesc{key: append([]byte(nil), it.Key()...), value: append([]byte(nil), it.Value()...), parts: parts})
		case tagStats:
			s := new(Stats)
			if err := json.Unmarshal(it.Value(), s); err != nil {
				return nil, corrupt(it.Key(), err)
			}
			c.stats[s.TableID] = s
		}
	}
	if err := it.Error(); err != nil {
		return nil, err
	}
	for _, t := range tables {
		d, ok := c.dbs[t.DB]
		if !ok {
			return nil, pgerror.Newf(pgerror.DataCorrupted, "catalog: table %q belongs to missing database %q", t.Name, t.DB)
		}
		if t.Foreign != nil {
			if err := t.Foreign.Compile(); err != nil {
				return nil, pgerror.Newf(pgerror.DataCorrupted, "catalog: table %q: foreign layout: %v", t.Name, err)
			}
		}
		d.Tables[t.Key()] = t
	}
	for i, v := range views {
		d, ok := c.dbs[viewDBs[i]]
		if !ok {
			return nil, pgerror.Newf(pgerror.DataCorrupted, "catalog: view %q belongs to missing database %q", v.Name, viewDBs[i])
		}
		d.Views[v.Key()] = v
	}
	for _, s := range schemas {
		if err := loadSchema(c, s.key, s.parts, s.value); err != nil {
			return nil, err
		}
	}
	for _, s := range seqs {
		if err := loadSequence(c, s.key, s.parts, s.value); err != nil {
			return nil, err
		}
	}
	for _, f := range funcs {
		if err := loadFunction(c, f.key, f.parts, f.value); err != nil {
			return nil, err
		}
	}
	for _, u := range utypes {
		if err := loadUserType(c, u.key, u.parts, u.value); err != nil {
			return nil, err
		}
	}
	for _, d := range c.dbs {
		resolveEnums(d, 0, true)
	}
	for name, d := range c.dbs {
		resolveComposites(c, name, d) // usertype.go
	}
	for _, r := range roles {
		if err := loadRole(c, r.key, r.parts, r.value); err != nil {
			return nil, err
		}
	}
	return c, nil
}

func corrupt(key []byte, err error) error {
	return pgerror.Newf(pgerror.DataCorrupted, "catalog: bad descriptor at %s: %v", encoding.Pretty(key), err)
}

// Install writes every descriptor of c into w, replacing a store's
// catalog (used after ImportXML/ImportJSON). It does not delete
// descriptors already in the store: install into a fresh store, or one
// whose meta space the caller cleared with ClearMeta.
func Install(w kv.Writer, c *Catalog) error {
	if err := w.Set(FormatKey(), binary.AppendUvarint(nil, CurrentVersion)); err != nil {
		return err
	}
	if err := w.Set(NextIDKey(), putUint64(c.nextID)); err != nil {
		return err
	}
	for _, r := range c.roles {
		if err := writeJSON(w, RoleKey(r.Name), r); err != nil {
			return err
		}
	}
	for _, db := range c.Databases() {
		d := c.dbs[db]
		if err := writeJSON(w, DatabaseKey(db), dbDesc{Name: db, Foreign: d.Foreign}); err != nil {
			return err
		}
		for _, s := range d.Schemas {
			if err := writeJSON(w, SchemaKey(db, s.Name), s); err != nil {
				return err
			}
		}
		for _, t := range d.Tables {
			if err := writeTable(w, t); err != nil {
				return err
			}
		}
		for _, v := range d.Views {
			if err := writeView(w, db, v); err != nil {
				return err
			}
		}
		for _, s := range d.Sequences {
			if err := writeJSON(w, sequenceKeyOf(db, s.Key()), s); err != nil {
				return err
			}
		}
		for _, f := range d.Functions {
			if err := writeJSON(w, FunctionKey(db, f.ID), f); err != nil {
				return err
			}
		}
		for _, u := range d.Types {
			if err := writeJSON(w, TypeKey(db, u.Key()), u); err != nil {
				return err
			}
		}
	}
	for _, s := range c.stats {
		if err := writeStats(w, s); err != nil {
			return err
		}
	}
	return nil
}

// ClearMeta deletes every descriptor key (databases, tables, views,
// stats, sequence definitions) but keeps the format version, the id
// counter and the counters of serial columns and sequences.
func ClearMeta(w kv.Writer) error {
	for _, tag := range []string{tagDatabase, tagTable, tagView, tagStats, tagSeqDef, tagFunction, tagSchema, tagType, tagRole} {
		p := metaKey(text(tag))
		if err := w.DeleteRange(p, encoding.PrefixEnd(p)); err != nil {
			return err
		}
	}
	return nil
}

func writeJSON(w kv.Writer, key []byte, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return w.Set(key, b)
}

func writeDatabase(w kv.Writer, db string) error {
	return writeJSON(w, DatabaseKey(db), struct{ Name string }{db})
}

func writeTable(w kv.Writer, t *Table) error { return writeJSON(w, tableKeyOf(t.DB, t.Key()), t) }

func writeView(w kv.Writer, db string, v *View) error {
	return writeJSON(w, viewKeyOf(db, v.Key()), v)
}

func writeStats(w kv.Writer, s *Stats) error { return writeJSON(w, StatsKey(s.TableID), s) }

func writeNextID(w kv.Writer, id uint64) error { return w.Set(NextIDKey(), putUint64(id)) }

// MergeNextID writes the larger next id of two catalogs of one store: a
// transaction whose catalog change is applied after another's (which it
// did not see) must not move the store's next id back.
func MergeNextID(w kv.Writer, a, b *Catalog) error { return writeNextID(w, max(a.nextID, b.nextID)) }
