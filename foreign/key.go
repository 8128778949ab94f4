package foreign

import (
	"bytes"
	"encoding/json"

	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/types"
)

// matchResult is what matchKey found in one key.
type matchResult int

const (
	keyMatches   matchResult = iota
	keyOther                 // the key's literals differ: another table's key
	keyMalformed             // the literals match but a field does not decode
)

// matchKey reads key against the template: each field's datum goes to
// row[col]; rowEnd is where the row's part of the key ends (before the
// attribute); attr is the attribute name of a ShapeAttribute key.
func (l *Layout) matchKey(key []byte, row []types.Datum) (res matchResult, rowEnd int, attr []byte) {
	c := l.compiled()
	pos := 0
	for i, p := range c.parts {
		if p.field == -1 {
			if !bytes.HasPrefix(key[pos:], p.lit) {
				return keyOther, 0, nil
			}
			pos += len(p.lit)
			continue
		}
		if p.field == -2 {
			return keyMatches, pos, key[pos:]
		}
		f := &l.Fields[p.field]
		var raw []byte
		if w := f.Encoding.Width(); w > 0 {
			if len(key)-pos < w {
				return keyMalformed, 0, nil
			}
			raw = key[pos : pos+w]
		} else if i+1 < len(c.parts) {
			next := c.parts[i+1]
			// The next part is a literal (compile guarantees it).
			n := bytes.Index(key[pos:], next.lit)
			if n < 0 {
				return keyOther, 0, nil
			}
			raw = key[pos : pos+n]
		} else {
			raw = key[pos:]
		}
		d, err := f.Encoding.decode(raw, f.Type, true)
		if err != nil {
			return keyMalformed, 0, nil
		}
		row[p.field] = d
		pos += len(raw)
	}
	if pos != len(key) {
		return keyOther, 0, nil
	}
	return keyMatches, pos, nil
}

// Bounds narrows a scan to the keys whose leading key fields are Eq
// and, optionally, whose next field lies between Lo and Hi (only when
// that field's encoding sorts: Layout.Sorts). A nil Lo or Hi is
// unbounded.
type Bounds struct {
	Eq             []types.Datum
	Lo, Hi         *types.Datum
	LoExcl, HiExcl bool
}

// KeyRange returns the key range [lo, hi) that holds every key the
// bounds admit (it may hold more: the scan's filter checks each row).
// empty reports that no key can satisfy the bounds.
func (l *Layout) KeyRange(b Bounds) (lo, hi []byte, empty bool) {
	c := l.compiled()
	var prefix []byte
	fixed := 0 // key fields fixed so far
	var rangeField = -1
	for _, p := range c.parts {
		if p.field == -1 {
			prefix = append(prefix, p.lit...)
			continue
		}
		if p.field == -2 || fixed >= len(b.Eq) {
			if p.field >= 0 && fixed == len(b.Eq) {
				rangeField = p.field
			}
			break
		}
		v := b.Eq[fixed]
		if v.IsNull() {
			return nil, nil, true
		}
		enc, err := l.Fields[p.field].Encoding.encode(v)
		if err != nil {
			return nil, nil, true // no key spells this value
		}
		prefix = append(prefix, enc...)
		fixed++
	}
	lo = prefix
	hi = prefixEnd(prefix)
	if rangeField < 0 || !l.Fields[rangeField].Encoding.Sorts() {
		return lo, hi, false
	}
	enc := l.Fields[rangeField].Encoding
	if b.Lo != nil {
		if b.Lo.IsNull() {
			return nil, nil, true
		}
		if k, err := enc.encode(clampInt(*b.Lo, enc)); err == nil {
			lo = append(append([]byte{}, prefix...), k...)
			if b.LoExcl {
				lo = prefixEnd(lo)
			}
		}
	}
	if b.Hi != nil {
		if b.Hi.IsNull() {
			return nil, nil, true
		}
		if b.Hi.Kind == types.KindInt && b.Hi.I < 0 {
			return nil, nil, true // below every unsigned value
		}
		if k, err := enc.encode(*b.Hi); err == nil {
			hi = append(append([]byte{}, prefix...), k...)
			if !b.HiExcl {
				hi = prefixEnd(hi)
			}
		}
	}
	if hi != nil && bytes.Compare(lo, hi) >= 0 {
		return nil, nil, true
	}
	return lo, hi, false
}

// clampInt raises a negative lower bound of an unsigned field to 0.
func clampInt(d types.Datum, e Encoding) types.Datum {
	if d.Kind == types.KindInt && d.I < 0 && e.Sorts() {
		return types.NewInt(0)
	}
	return d
}

// prefixEnd is the first key after every key with prefix p (nil: none).
func prefixEnd(p []byte) []byte {
	end := append([]byte{}, p...)
	for i := len(end) - 1; i >= 0; i-- {
		if end[i] != 0xff {
			end[i]++
			return end[:i+1]
		}
	}
	return nil
}

// buildKey spells the key of a row (row key fields from row), with
// attr as the attribute of a ShapeAttribute key.
func (l *Layout) buildKey(row []types.Datum, attr string) ([]byte, error) {
	c := l.compiled()
	var key []byte
	for _, p := range c.parts {
		switch p.field {
		case -1:
			key = append(key, p.lit...)
		case -2:
			key = append(key, attr...)
		default:
			f := &l.Fields[p.field]
			if row[p.field].IsNull() {
				return nil, errNullKey(f.Column)
			}
			b, err := f.Encoding.encode(row[p.field])
			if err != nil {
				return nil, pgerror.Newf(pgerror.NumericValueOutOfRange, "key field %q: %v", f.Column, err)
			}
			if err := l.checkSpelling(p.field, b); err != nil {
				return nil, err
			}
			key = append(key, b...)
		}
	}
	return key, nil
}

func jsonValid(b []byte) bool { return json.Valid(b) }
