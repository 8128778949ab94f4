package index

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/kvsql/kvsql/catalog"
	"github.com/kvsql/kvsql/encoding"
	"github.com/kvsql/kvsql/kv"
	"github.com/kvsql/kvsql/types"
)

// Problem is one inconsistency found by Check.
type Problem struct {
	Table string
	Index string // "" for a problem in the master file itself
	Key   string // the pretty-printed key at fault
	Msg   string
}

func (p Problem) String() string {
	where := p.Table
	if p.Index != "" {
		where += "." + p.Index
	}
	return fmt.Sprintf("%s: %s: %s", where, p.Key, p.Msg)
}

// Check verifies the invariants between master files and index files of
// every table in c:
//
//   - every master row has its entry in every index (with the right
//     primary key as value for the unique form, and the INCLUDE
//     columns' values the master row has);
//   - every index entry (each live pk of an inverted list) points at a
//     live master row whose indexed values match the entry's, and an
//     inverted pk sits in the chunk its hash names.
//
// It returns the problems found; the error is for failures to read.
func Check(r kv.Reader, c *catalog.Catalog) ([]Problem, error) {
	var probs []Problem
	for _, db := range c.Databases() {
		tables, err := c.Tables(db)
		if err != nil {
			return nil, err
		}
		for _, t := range tables {
			p, err := CheckTable(r, t)
			if err != nil {
				return nil, err
			}
			probs = append(probs, p...)
		}
	}
	return probs, nil
}

// CheckTable is Check for one table.
func CheckTable(r kv.Reader, t *catalog.Table) ([]Problem, error) {
	var probs []Problem
	add := func(idx, key, format string, args ...any) {
		probs = append(probs, Problem{Table: t.Name, Index: idx, Key: key, Msg: fmt.Sprintf(format, args...)})
	}
	folded := map[string]map[string]bool{} // inverted chunk key → live pks
	fold := func(key []byte) (map[string]bool, error) {
		if m, ok := folded[string(key)]; ok {
			return m, nil
		}
		m := map[string]bool{}
		v, err := r.Get(key)
		if err != nil && !errors.Is(err, kv.ErrNotFound) {
			return nil, err
		}
		pks, _, ferr := foldOps(v)
		if ferr != nil {
			add("", encoding.Pretty(key), "%v", ferr)
		}
		for _, pk := range pks {
			m[pk] = true
		}
		folded[string(key)] = m
		return m, nil
	}

	// Master → index.
	it, err := ScanMaster(r, t, Span{}, false)
	if err != nil {
		return nil, err
	}
	for it.Next() {
		row := it.Row()
		for _, idx := range t.Indexes {
			err := entries(t, idx, row, func(key, value []byte) error {
				switch idx.Form {
				case catalog.FormInverted:
					m, err := fold(key)
					if err != nil {
						return err
					}
					if !m[string(value)] {
						add(idx.Name, encoding.Pretty(key), "row %s is missing from the inverted list", prettyPK(t, value))
					}
				default:
					v, err := r.Get(key)
					if errors.Is(err, kv.ErrNotFound) {
						add(idx.Name, encoding.Pretty(key), "missing index entry for row %s", masterPretty(t, row))
						return nil
					}
					if err != nil {
						return err
					}
					if !bytes.Equal(v, value) {
						add(idx.Name, encoding.Pretty(key), "entry value %x, want %x (row %s)", v, value, masterPretty(t, row))
					}
				}
				return nil
			})
			if err != nil {
				it.Close()
				return nil, err
			}
		}
	}
	if err := it.Err(); err != nil {
		if errors.Is(err, kv.ErrCorruption) {
			// Damaged storage is not an index problem: the caller reports
			// it once (kvsql check names the damaged file).
			it.Close()
			return nil, err
		}
		// A master record that does not decode: report it and go on with
		// the indexes.
		add("", "", "master file: %v", err)
	}
	it.Close()

	// Index → master.
	row := make([]types.Datum, len(t.Columns))
	master := make([]types.Datum, len(t.Columns))
	for _, idx := range t.Indexes {
		p := encoding.EncodeUvarintAsc(nil, idx.ID)
		kit, err := r.NewIter(kv.IterOptions{LowerBound: p, UpperBound: encoding.PrefixEnd(p)})
		if err != nil {
			return nil, err
		}
		for ok := kit.First(); ok; ok = kit.Next() {
			key, value := kit.Key(), kit.Value()
			pretty := encoding.Pretty(key)
			var pks [][]byte
			if idx.Form == catalog.FormInverted {
				live, _, err := foldOps(value)
				if err != nil {
					add(idx.Name, pretty, "%v", err)
					continue
				}
				for _, pk := range live {
					if chunkKey, _ := entryKeyFromPK(t, idx, key, []byte(pk)); !bytes.Equal(chunkKey, key) {
						add(idx.Name, pretty, "row %s is in the wrong chunk", prettyPK(t, []byte(pk)))
					}
					pks = append(pks, []byte(pk))
				}
			} else {
				if err := decodeEntry(t, idx, key, value, row); err != nil {
					add(idx.Name, pretty, "undecodable entry: %v", err)
					continue
				}
				pks = append(pks, appendRowPK(nil, t, row))
			}
			for _, pk := range pks {
				if err := decodePKInto(t, pk, row); err != nil {
					add(idx.Name, pretty, "undecodable primary key: %v", err)
					continue
				}
				pkVals := make([]types.Datum, len(t.PrimaryKey))
				for i, o := range t.PrimaryKey {
					pkVals[i] = row[o]
				}
				found, err := Get(r, t, pkVals, master)
				if errors.Is(err, kv.ErrCorruption) {
					kit.Close()
					return nil, err
				}
				if err != nil {
					add(idx.Name, pretty, "master row %s: %v", prettyPK(t, pk), err)
					continue
				}
				if !found {
					add(idx.Name, pretty, "dangling entry: no master row %s", prettyPK(t, pk))
					continue
				}
				var want []byte
				has := false
				_ = entries(t, idx, master, func(k, _ []byte) error {
					want = k
					has = has || bytes.Equal(k, key)
					return nil
				})
				if !has {
					if want == nil {
						add(idx.Name, pretty, "stale entry: master row %s has no entry", prettyPK(t, pk))
					} else {
						add(idx.Name, pretty, "stale entry: master row %s has entry %s", prettyPK(t, pk), encoding.Pretty(want))
					}
				}
			}
		}
		err = kit.Error()
		kit.Close()
		if err != nil {
			return nil, err
		}
	}
	return probs, nil
}

// entryKeyFromPK is the chunk key an inverted entry for pk would have,
// given the search value part of key.
func entryKeyFromPK(t *catalog.Table, idx *catalog.Index, key, pk []byte) ([]byte, error) {
	rest, _, err := encoding.DecodeUvarintAsc(key)
	if err != nil {
		return nil, err
	}
	vals, _, err := splitAfter(rest, len(idx.Columns))
	if err != nil {
		return nil, err
	}
	out := append([]byte(nil), key[:len(key)-len(rest)+len(vals)]...)
	return encoding.EncodeKeyDatum(out, types.NewInt(int64(chunkOf(pk))), encoding.Ascending), nil
}

func masterPretty(t *catalog.Table, row []types.Datum) string {
	return encoding.Pretty(masterKeyOfRow(nil, t, row))
}
