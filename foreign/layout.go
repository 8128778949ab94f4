package foreign

import (
	"fmt"
	"strings"
	"sync"

	"github.com/kvsql/kvsql/types"
)

// Shape is how a table's rows are spread over an application's keys.
type Shape string

const (
	// ShapeAttribute: one key per attribute, user:{id}:{attribute} →
	// the value of column attribute; a row is the run of adjacent keys
	// that share the row's key fields.
	ShapeAttribute Shape = "attribute"
	// ShapeRow: one key per row; the value holds the other columns in
	// a Format (JSON object, delimited fields, fixed-width record).
	ShapeRow Shape = "row"
	// ShapePresence: one key per row and every column in the key; the
	// value is ignored (chatmembers:{chatId}:{userId} → a row).
	ShapePresence Shape = "presence"
)

// Format is the value format of a ShapeRow table.
type Format string

const (
	FormatJSON      Format = "json"      // a JSON object, a member per column
	FormatDelimited Format = "delimited" // fields joined by Separator, in Field order
	FormatFixed     Format = "fixed"     // fixed-width fields, in Field order
)

// AttributeField is the template placeholder that names the attribute
// of a ShapeAttribute key.
const AttributeField = "attribute"

// Layout describes one table over an application's keys. It is part of
// the table's catalog descriptor (catalog.Table.Foreign) and is
// immutable once built by Compile.
type Layout struct {
	Shape Shape `json:"shape"`
	// Key is the key template as written: literal text, {field}
	// placeholders naming columns (or {attribute}), and {0xHH...}
	// literal bytes.
	Key       string `json:"key"`
	Format    Format `json:"format,omitempty"`
	Separator string `json:"separator,omitempty"` // FormatDelimited, template syntax
	// Fields says, for every column of the table in column order,
	// where its value lives and how it is encoded.
	Fields []Field `json:"fields"`

	once sync.Once
	c    *compiled
	cerr error
}

// Field is one column's place in the layout.
type Field struct {
	Column string  `json:"column"`
	Type   types.T `json:"type"`
	// Source is the attribute name in the key (ShapeAttribute) or the
	// JSON member (FormatJSON); "" means the column's name.
	Source   string   `json:"source,omitempty"`
	Encoding Encoding `json:"encoding"`
	// Width is the byte width of a text or bytes field of a
	// FormatFixed record (NUL-padded).
	Width int `json:"width,omitempty"`
}

// compiled is the parsed form of a Layout.
type compiled struct {
	parts     []part
	keyFields []int          // column ordinals of the key's fields, in key order
	attrs     map[string]int // ShapeAttribute: source name → column ordinal
	values    []int          // columns read from the value, in Field order
	sep       []byte
	width     int // fixed record width
}

// part is one piece of a key template: a literal or a field.
type part struct {
	lit   []byte
	field int // column ordinal; -1 for a literal, -2 for {attribute}
}

// SourceName is the field's attribute or member name.
func (f *Field) SourceName() string {
	if f.Source != "" {
		return f.Source
	}
	return f.Column
}

// Compile checks l and prepares it for reading and writing; it is
// called once when the layout is built and is cheap afterwards.
func (l *Layout) Compile() error {
	l.once.Do(func() { l.c, l.cerr = l.compile() })
	return l.cerr
}

func (l *Layout) compiled() *compiled {
	if err := l.Compile(); err != nil {
		// Layouts are compiled when the catalog is imported or
		// loaded; one that fails here was never accepted.
		panic(fmt.Sprintf("foreign: uncompiled layout: %v", err))
	}
	return l.c
}

func (l *Layout) column(name string) int {
	for i := range l.Fields {
		if l.Fields[i].Column == name {
			return i
		}
	}
	return -1
}

func (l *Layout) compile() (*compiled, error) {
	c := &compiled{attrs: map[string]int{}}
	switch l.Shape {
	case ShapeAttribute, ShapePresence:
		if l.Format != "" {
			return nil, fmt.Errorf("format %q is only for shape=\"row\"", l.Format)
		}
	case ShapeRow:
		switch l.Format {
		case FormatJSON, FormatFixed:
		case FormatDelimited:
			sep, err := parseLiteral(l.Separator)
			if err != nil || len(sep) == 0 {
				return nil, fmt.Errorf("format=\"delimited\" needs a separator (text or {0xHH})")
			}
			c.sep = sep
		default:
			return nil, fmt.Errorf("shape=\"row\" needs format json, delimited or fixed, not %q", l.Format)
		}
	default:
		return nil, fmt.Errorf("shape %q is not one of attribute, row, presence", l.Shape)
	}
	for i := range l.Fields {
		f := &l.Fields[i]
		if err := f.Encoding.check(f.Type); err != nil {
			return nil, fmt.Errorf("column %q: %v", f.Column, err)
		}
	}
	inKey := map[int]bool{}
	sawAttr := false
	rest := l.Key
	for rest != "" {
		open := strings.IndexByte(rest, '{')
		if open < 0 {
			c.parts = appendLit(c.parts, []byte(rest))
			break
		}
		if open > 0 {
			c.parts = appendLit(c.parts, []byte(rest[:open]))
		}
		end := strings.IndexByte(rest[open:], '}')
		if end < 0 {
			return nil, fmt.Errorf("key %q: unclosed {", l.Key)
		}
		name := rest[open+1 : open+end]
		rest = rest[open+end+1:]
		if strings.HasPrefix(name, "0x") {
			b, err := parseLiteral("{" + name + "}")
			if err != nil {
				return nil, fmt.Errorf("key %q: %v", l.Key, err)
			}
			c.parts = appendLit(c.parts, b)
			continue
		}
		if sawAttr {
			return nil, fmt.Errorf("key %q: {%s} follows {attribute}, which must be the last field", l.Key, name)
		}
		if name == AttributeField && l.Shape == ShapeAttribute && l.column(name) < 0 {
			sawAttr = true
			c.parts = append(c.parts, part{field: -2})
			continue
		}
		col := l.column(name)
		if col < 0 {
			return nil, fmt.Errorf("key %q: {%s} names no column", l.Key, name)
		}
		if inKey[col] {
			return nil, fmt.Errorf("key %q: {%s} appears twice", l.Key, name)
		}
		if n := len(c.parts); n > 0 && c.parts[n-1].field != -1 && l.Fields[c.parts[n-1].field].Encoding.Width() == 0 && l.Fields[col].Encoding.Width() == 0 {
			return nil, fmt.Errorf("key %q: {%s} follows a variable-width field with no literal between them", l.Key, name)
		}
		inKey[col] = true
		c.keyFields = append(c.keyFields, col)
		c.parts = append(c.parts, part{field: col})
	}
	if len(c.parts) == 0 || c.parts[0].field != -1 {
		return nil, fmt.Errorf("key %q: must start with a literal prefix (it is how the table's keys are found)", l.Key)
	}
	for i, p := range c.parts {
		if p.field == -2 && i > 0 && c.parts[i-1].field >= 0 && l.Fields[c.parts[i-1].field].Encoding.Width() == 0 {
			return nil, fmt.Errorf("key %q: {attribute} follows a variable-width field with no literal between them", l.Key)
		}
	}
	if l.Shape == ShapeAttribute && !sawAttr {
		return nil, fmt.Errorf("shape=\"attribute\" needs {%s} as the key's last field", AttributeField)
	}
	if len(c.keyFields) == 0 {
		return nil, fmt.Errorf("key %q: needs at least one {field}", l.Key)
	}
	for i := range l.Fields {
		if inKey[i] {
			continue
		}
		f := &l.Fields[i]
		switch l.Shape {
		case ShapePresence:
			return nil, fmt.Errorf("column %q: shape=\"presence\" keeps every column in the key", f.Column)
		case ShapeAttribute:
			if prev, dup := c.attrs[f.SourceName()]; dup {
				return nil, fmt.Errorf("columns %q and %q read the same attribute %q", l.Fields[prev].Column, f.Column, f.SourceName())
			}
			c.attrs[f.SourceName()] = i
		}
		if l.Format == FormatFixed {
			w := f.Encoding.Width()
			if w == 0 {
				w = f.Width
			}
			if w <= 0 {
				return nil, fmt.Errorf("column %q: format=\"fixed\" needs a width for encoding %s", f.Column, f.Encoding)
			}
			c.width += w
		}
		c.values = append(c.values, i)
	}
	return c, nil
}

func appendLit(parts []part, b []byte) []part {
	if n := len(parts); n > 0 && parts[n-1].field == -1 {
		parts[n-1].lit = append(parts[n-1].lit, b...)
		return parts
	}
	return append(parts, part{lit: append([]byte{}, b...), field: -1})
}

// parseLiteral reads template text without fields: literal text and
// {0xHH...} bytes.
func parseLiteral(s string) ([]byte, error) {
	var out []byte
	for s != "" {
		open := strings.IndexByte(s, '{')
		if open < 0 {
			return append(out, s...), nil
		}
		out = append(out, s[:open]...)
		end := strings.IndexByte(s[open:], '}')
		if end < 0 {
			return nil, fmt.Errorf("unclosed {")
		}
		hex := s[open+1 : open+end]
		if !strings.HasPrefix(hex, "0x") || len(hex) < 4 || len(hex)%2 != 0 {
			return nil, fmt.Errorf("{%s} is not {0xHH...}", hex)
		}
		for i := 2; i < len(hex); i += 2 {
			hi, lo := unhex(hex[i]), unhex(hex[i+1])
			if hi < 0 || lo < 0 {
				return nil, fmt.Errorf("{%s} is not {0xHH...}", hex)
			}
			out = append(out, byte(hi<<4|lo))
		}
		s = s[open+end+1:]
	}
	return out, nil
}

func unhex(c byte) int {
	switch {
	case '0' <= c && c <= '9':
		return int(c - '0')
	case 'a' <= c && c <= 'f':
		return int(c-'a') + 10
	case 'A' <= c && c <= 'F':
		return int(c-'A') + 10
	}
	return -1
}

// KeyFields returns the column ordinals of the key's fields, in key
// order: the table's primary key.
func (l *Layout) KeyFields() []int { return l.compiled().keyFields }

// Prefix returns the literal bytes every key of the table starts with.
func (l *Layout) Prefix() []byte { return l.compiled().parts[0].lit }

// Sorts reports whether key field i (an index into KeyFields) sorts by
// value as bytes, so that a range of values is a range of keys.
func (l *Layout) Sorts(i int) bool {
	return l.Fields[l.compiled().keyFields[i]].Encoding.Sorts()
}

// ValueSummary is a one-line description of the table's values, for
// the catalog document's valueLayout.
func (l *Layout) ValueSummary() string {
	switch l.Shape {
	case ShapeAttribute:
		return "one key per attribute"
	case ShapePresence:
		return "empty (the key's presence is the row)"
	}
	if l.Format == FormatDelimited {
		return fmt.Sprintf("delimited by %q", l.Separator)
	}
	return string(l.Format)
}
