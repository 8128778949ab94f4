package foreign

import (
	"fmt"

	"github.com/kvsql/kvsql/types"
)

// DocLayout is a table's ForeignLayout element in the catalog document
// (catalog/document.go holds the rest of the vocabulary):
//
//	<ForeignLayout shape="attribute" key="user:{id}:{attribute}">
//	  <Field attributeName="id" encoding="decimal"/>
//	  <Field attributeName="last_activity" source="lastActivity"/>
//	</ForeignLayout>
//
// A column without a Field element gets its type's default encoding
// (DefaultEncoding) and its own name as source.
type DocLayout struct {
	Shape     string     `xml:"shape,attr" json:"shape"`
	Key       string     `xml:"key,attr" json:"key"`
	Format    string     `xml:"format,attr,omitempty" json:"format,omitempty"`
	Separator string     `xml:"separator,attr,omitempty" json:"separator,omitempty"`
	Fields    []DocField `xml:"Field,omitempty" json:"Fields,omitempty"`
}

// DocField overrides one column's source, encoding or width.
type DocField struct {
	Column   string `xml:"attributeName,attr" json:"attributeName"`
	Source   string `xml:"source,attr,omitempty" json:"source,omitempty"`
	Encoding string `xml:"encoding,attr,omitempty" json:"encoding,omitempty"`
	Width    int    `xml:"width,attr,omitempty" json:"width,omitempty"`
}

// DocCounter is a Counter element: an application's id counter
// (users:nextId), shown as the sequence sequenceName (Counter).
type DocCounter struct {
	Name     string `xml:"sequenceName,attr" json:"sequenceName"`
	Key      string `xml:"key,attr" json:"key"`
	Encoding string `xml:"encoding,attr,omitempty" json:"encoding,omitempty"`
	Holds    string `xml:"holds,attr,omitempty" json:"holds,omitempty"`
}

// Column is what a layout needs to know of a table column.
type Column struct {
	Name string
	Type types.T
}

// FromDoc builds and compiles the layout of a table with columns cols.
func FromDoc(d *DocLayout, cols []Column) (*Layout, error) {
	l := &Layout{Shape: Shape(d.Shape), Key: d.Key, Format: Format(d.Format), Separator: d.Separator}
	byName := map[string]*DocField{}
	for i := range d.Fields {
		f := &d.Fields[i]
		if _, dup := byName[f.Column]; dup {
			return nil, fmt.Errorf("Field %q: listed twice", f.Column)
		}
		byName[f.Column] = f
	}
	for _, c := range cols {
		f := Field{Column: c.Name, Type: c.Type, Encoding: DefaultEncoding(c.Type)}
		if df := byName[c.Name]; df != nil {
			delete(byName, c.Name)
			f.Source, f.Width = df.Source, df.Width
			if df.Encoding != "" {
				f.Encoding = Encoding(df.Encoding)
			}
			if df.Width < 0 {
				return nil, fmt.Errorf("Field %q: width %d is negative", c.Name, df.Width)
			}
		}
		l.Fields = append(l.Fields, f)
	}
	for name := range byName {
		return nil, fmt.Errorf("Field %q: no such Attribute", name)
	}
	if err := l.Compile(); err != nil {
		return nil, err
	}
	return l, nil
}

// ToDoc is the inverse of FromDoc: the Field elements that differ from
// the defaults.
func (l *Layout) ToDoc() *DocLayout {
	d := &DocLayout{Shape: string(l.Shape), Key: l.Key, Format: string(l.Format), Separator: l.Separator}
	for _, f := range l.Fields {
		if f.Source == "" && f.Width == 0 && f.Encoding == DefaultEncoding(f.Type) {
			continue
		}
		df := DocField{Column: f.Column, Source: f.Source, Width: f.Width}
		if f.Encoding != DefaultEncoding(f.Type) {
			df.Encoding = string(f.Encoding)
		}
		d.Fields = append(d.Fields, df)
	}
	return d
}
