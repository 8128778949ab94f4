package foreign

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"

	"github.com/cockroachdb/apd/v3"

	"github.com/kvsql/kvsql/types"
)

// decodeValue reads a ShapeRow value into the value columns of row.
func (l *Layout) decodeValue(v []byte, row []types.Datum) error {
	c := l.compiled()
	switch l.Format {
	case FormatJSON:
		var obj map[string]json.RawMessage
		dec := json.NewDecoder(bytes.NewReader(v))
		dec.UseNumber()
		if err := dec.Decode(&obj); err != nil || obj == nil {
			return malformed("not a JSON object")
		}
		for _, col := range c.values {
			f := &l.Fields[col]
			raw, ok := obj[f.SourceName()]
			if !ok {
				continue
			}
			d, err := jsonDatum(raw, f.Type)
			if err != nil {
				return err
			}
			row[col] = d
		}
	case FormatDelimited:
		fields := bytes.Split(v, c.sep)
		if len(fields) != len(c.values) {
			return malformed("%d fields, the layout has %d", len(fields), len(c.values))
		}
		for i, col := range c.values {
			f := &l.Fields[col]
			if len(fields[i]) == 0 && !isTextual(f.Type) {
				continue // an empty non-text field is NULL
			}
			d, err := f.Encoding.decode(fields[i], f.Type, false)
			if err != nil {
				return err
			}
			row[col] = d
		}
	case FormatFixed:
		if len(v) != c.width {
			return malformed("%d bytes, the record is %d", len(v), c.width)
		}
		pos := 0
		for _, col := range c.values {
			f := &l.Fields[col]
			w := f.Encoding.Width()
			if w == 0 {
				w = f.Width
			}
			raw := v[pos : pos+w]
			pos += w
			if w != f.Encoding.Width() {
				raw = bytes.TrimRight(raw, "\x00")
			}
			d, err := f.Encoding.decode(raw, f.Type, false)
			if err != nil {
				return err
			}
			row[col] = d
		}
	}
	return nil
}

func isTextual(t types.T) bool {
	return t.Family == types.Text || t.Family == types.Varchar || t.Family == types.Bytea
}

// jsonDatum converts one JSON member to a datum of type t.
func jsonDatum(raw json.RawMessage, t types.T) (types.Datum, error) {
	if string(raw) == "null" {
		return types.Datum{}, nil
	}
	switch t.Family {
	case types.JSON:
		return types.NewText(string(raw)), nil
	case types.JSONB:
		return types.NewJSONB(string(raw)), nil
	}
	var x any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&x); err != nil {
		return types.Datum{}, malformed("bad JSON")
	}
	switch v := x.(type) {
	case string:
		if t.Family == types.Bytea {
			return types.NewBytes([]byte(v)), nil
		}
		if isTextual(t) {
			return types.NewText(v), nil
		}
		return DefaultEncoding(t).decode([]byte(v), t, false)
	case json.Number:
		switch t.Family {
		case types.Int2, types.Int4, types.Int8, types.Float4, types.Float8, types.Numeric:
			return decodeDecimal(v.String(), t, false)
		case types.Text, types.Varchar:
			return types.NewText(v.String()), nil
		}
	case bool:
		switch t.Family {
		case types.Bool:
			return types.NewBool(v), nil
		case types.Text, types.Varchar:
			return types.NewText(strconv.FormatBool(v)), nil
		}
	default: // an object or an array
		if t.Family == types.Text || t.Family == types.Varchar {
			return types.NewText(string(raw)), nil
		}
	}
	return types.Datum{}, malformed("a JSON %s is not a %s", jsonKind(x), t.Family)
}

func jsonKind(x any) string {
	switch x.(type) {
	case string:
		return "string"
	case json.Number:
		return "number"
	case bool:
		return "boolean"
	case []any:
		return "array"
	}
	return "object"
}

// encodeValue spells the value columns of row in the table's Format.
func (l *Layout) encodeValue(row []types.Datum) ([]byte, error) {
	c := l.compiled()
	switch l.Format {
	case FormatJSON:
		var buf bytes.Buffer
		buf.WriteByte('{')
		first := true
		for _, col := range c.values {
			f := &l.Fields[col]
			d := row[col]
			if d.IsNull() {
				continue // an absent member reads as NULL
			}
			if !first {
				buf.WriteByte(',')
			}
			first = false
			name, _ := json.Marshal(f.SourceName())
			buf.Write(name)
			buf.WriteByte(':')
			if err := writeJSONDatum(&buf, d, f.Type); err != nil {
				return nil, err
			}
		}
		buf.WriteByte('}')
		return buf.Bytes(), nil
	case FormatDelimited:
		var out []byte
		for i, col := range c.values {
			if i > 0 {
				out = append(out, c.sep...)
			}
			d := row[col]
			f := &l.Fields[col]
			if d.IsNull() {
				if isTextual(f.Type) {
					return nil, errAmbiguous(f.Column, "NULL in a delimited text field reads back as ''")
				}
				continue
			}
			b, err := f.Encoding.encode(d)
			if err != nil {
				return nil, err
			}
			if bytes.Contains(b, c.sep) {
				return nil, errAmbiguous(f.Column, "the value contains the separator")
			}
			if len(b) == 0 && !isTextual(f.Type) {
				return nil, errAmbiguous(f.Column, "an empty field reads back as NULL")
			}
			out = append(out, b...)
		}
		return out, nil
	case FormatFixed:
		var out []byte
		for _, col := range c.values {
			f := &l.Fields[col]
			d := row[col]
			if d.IsNull() {
				return nil, errAmbiguous(f.Column, "a fixed-width record has no NULL")
			}
			b, err := f.Encoding.encode(d)
			if err != nil {
				return nil, err
			}
			if w := f.Encoding.Width(); w == 0 {
				if len(b) > f.Width || bytes.HasSuffix(b, []byte{0}) {
					return nil, errAmbiguous(f.Column, "the value does not fit its NUL-padded width")
				}
				b = append(b, make([]byte, f.Width-len(b))...)
			}
			out = append(out, b...)
		}
		return out, nil
	}
	return nil, nil
}

func writeJSONDatum(buf *bytes.Buffer, d types.Datum, t types.T) error {
	switch t.Family {
	case types.JSON, types.JSONB:
		buf.WriteString(d.S)
		return nil
	}
	switch d.Kind {
	case types.KindInt:
		buf.WriteString(strconv.FormatInt(d.I, 10))
	case types.KindFloat:
		if math.IsInf(d.F, 0) || math.IsNaN(d.F) {
			return errAmbiguous("", "JSON has no Infinity or NaN")
		}
		buf.WriteString(strconv.FormatFloat(d.F, 'g', -1, 64))
	case types.KindDecimal:
		var x apd.Decimal
		d.Decimal(&x)
		if x.Form != apd.Finite {
			return errAmbiguous("", "JSON has no Infinity or NaN")
		}
		buf.WriteString(d.S)
	case types.KindBool:
		buf.WriteString(strconv.FormatBool(d.Bool()))
	default:
		b, _ := json.Marshal(d.S)
		buf.Write(b)
	}
	return nil
}
