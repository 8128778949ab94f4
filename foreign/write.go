package foreign

import (
	"bytes"

	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/types"
)

// Writes in the application's layout. A row becomes the keys and values
// the application itself would write; where the layout cannot say a
// value so that it reads back as written (a text key field holding the
// delimiter after it, a NULL in a delimited text field), the write is
// refused with 0A000 rather than stored ambiguously.

func errNullKey(col string) error {
	e := pgerror.Newf(pgerror.NotNullViolation, "null value in column %q violates not-null constraint", col)
	e.Detail = "The column is a field of the foreign table's key."
	return e
}

func errAmbiguous(col, why string) error {
	if col == "" {
		return pgerror.Newf(pgerror.FeatureNotSupported, "cannot write this value in the foreign layout: %s", why)
	}
	return pgerror.Newf(pgerror.FeatureNotSupported, "cannot write column %q in the foreign layout: %s", col, why)
}

// checkSpelling refuses a variable-width key field whose bytes hold the
// literal that ends it: the key would read back split elsewhere.
func (l *Layout) checkSpelling(col int, b []byte) error {
	c := l.compiled()
	for i, p := range c.parts {
		if p.field != col || l.Fields[col].Encoding.Width() > 0 || i+1 >= len(c.parts) {
			continue
		}
		if bytes.Contains(b, c.parts[i+1].lit) {
			return errAmbiguous(l.Fields[col].Column, "the key field's value contains the delimiter that ends it")
		}
	}
	return nil
}

// RowKey returns the key (ShapeRow, ShapePresence) or the key prefix of
// the row's attributes (ShapeAttribute) of row.
func (l *Layout) RowKey(row []types.Datum) ([]byte, error) {
	return l.buildKey(row, "")
}

// Puts returns the keys and values that store row.
func (l *Layout) Puts(row []types.Datum) ([]KV, error) {
	c := l.compiled()
	switch l.Shape {
	case ShapeAttribute:
		var out []KV
		for _, col := range c.values {
			f := &l.Fields[col]
			if row[col].IsNull() {
				continue // an absent attribute reads as NULL
			}
			k, err := l.buildKey(row, f.SourceName())
			if err != nil {
				return nil, err
			}
			v, err := f.Encoding.encode(row[col])
			if err != nil {
				return nil, errAmbiguous(f.Column, err.Error())
			}
			out = append(out, KV{Key: k, Value: v})
		}
		if len(out) == 0 {
			return nil, errAmbiguous("", "a row of one key per attribute needs a non-NULL attribute, or it has no key at all")
		}
		return out, nil
	case ShapeRow:
		k, err := l.buildKey(row, "")
		if err != nil {
			return nil, err
		}
		v, err := l.encodeValue(row)
		if err != nil {
			return nil, err
		}
		return []KV{{Key: k, Value: v}}, nil
	default:
		k, err := l.buildKey(row, "")
		if err != nil {
			return nil, err
		}
		return []KV{{Key: k, Value: []byte{}}}, nil
	}
}

// Deletes returns the keys that store row (every attribute the table
// reads, present or not).
func (l *Layout) Deletes(row []types.Datum) ([][]byte, error) {
	c := l.compiled()
	if l.Shape != ShapeAttribute {
		k, err := l.buildKey(row, "")
		if err != nil {
			return nil, err
		}
		return [][]byte{k}, nil
	}
	var out [][]byte
	for _, col := range c.values {
		k, err := l.buildKey(row, l.Fields[col].SourceName())
		if err != nil {
			return nil, err
		}
		out = append(out, k)
	}
	return out, nil
}

// Exists reports whether a row with row's key fields is stored.
func (l *Layout) Exists(st Store, row []types.Datum) (bool, error) {
	keys, err := l.Deletes(row)
	if err != nil {
		return false, err
	}
	for _, k := range keys {
		_, found, err := st.Get(k)
		if err != nil || found {
			return found, err
		}
	}
	return false, nil
}
