package catalog

import (
	"encoding/json"
	"encoding/xml"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/kvsql/kvsql/foreign"
)

// The catalog document's vocabulary: the lecture's XML elements
// (Databases / DataBase / Tables / Table / Structure / Attribute /
// primaryKey / pkAttribute / foreignKeys / uniqueKeys / IndexFiles /
// IndexFile / IndexAttributes / IAttribute), extended with what a reader
// needs to build every key and value from the document alone:
//
//   - keySpace: the uvarint every key of a table or index file starts with;
//   - columnID: the id a column's value carries in a row value;
//   - direction and encoding on every key attribute;
//   - form (unique, keyid, inverted) on every index file;
//   - keyLayout and valueLayout: a one-line summary of the key and value
//     (derived from the rest; checked on import when present);
//   - hiddenRowID, serial, identity ("always" for GENERATED ALWAYS AS
//     IDENTITY), hidden, default, defaultValue, views.
//
// The JSON form has the same names and nesting.

// num is a number in the document; it reports bad input naming the
// attribute.
type num uint64

func (n num) MarshalXMLAttr(name xml.Name) (xml.Attr, error) {
	return xml.Attr{Name: name, Value: strconv.FormatUint(uint64(n), 10)}, nil
}

func (n *num) UnmarshalXMLAttr(attr xml.Attr) error {
	v, err := strconv.ParseUint(attr.Value, 10, 64)
	if err != nil {
		return fmt.Errorf("attribute %s=%q: not a non-negative integer", attr.Name.Local, attr.Value)
	}
	*n = num(v)
	return nil
}

type docRoot struct {
	XMLName       xml.Name `xml:"Databases" json:"-"`
	FormatVersion num      `xml:"formatVersion,attr" json:"formatVersion"`
	NextID        num      `xml:"nextID,attr" json:"nextID"`
	DataBases     []docDB  `xml:"DataBase" json:"DataBase"`
	// Roles are the cluster's roles (role.go); the bootstrap superuser
	// is not among them.
	Roles *docRoles `xml:"Roles,omitempty" json:"Roles,omitempty"`
}

type jsonDoc struct {
	Databases docRoot `json:"Databases"`
}

type docDB struct {
	Name string `xml:"dbName,attr" json:"dbName"`
	// Store and ReadOnly attach an application's key-value store
	// (catalog/foreign.go); Counters are its id counters.
	Store    string     `xml:"store,attr,omitempty" json:"store,omitempty"`
	ReadOnly string     `xml:"readonly,attr,omitempty" json:"readonly,omitempty"`
	Tables   []docTable `xml:"Tables>Table" json:"Tables"`
	Views    []docView  `xml:"Views>View,omitempty" json:"Views,omitempty"`
	// Sequences are the CREATE SEQUENCE definitions; their counters are
	// data (SeqStateKey) and are not part of the document.
	Sequences []docSequence `xml:"Sequences>Sequence,omitempty" json:"Sequences,omitempty"`
	// Functions are the CREATE FUNCTION and CREATE PROCEDURE definitions.
	Functions []docFunction `xml:"Functions>Function,omitempty" json:"Functions,omitempty"`
	Counters  *docCounters  `xml:"Counters,omitempty" json:"Counters,omitempty"`
	// Types are the CREATE TYPE and CREATE DOMAIN definitions.
	Types []docType `xml:"Types>Type,omitempty" json:"Types,omitempty"`
}

// docCounters wraps the Counter elements of a foreign database, so that
// a database without any has no Counters element at all.
type docCounters struct {
	Counter []foreign.DocCounter `xml:"Counter" json:"Counter"`
}

// docFunction is a routine: its signature and options as attributes,
// its arguments and body as elements.
type docFunction struct {
	Name       string           `xml:"functionName,attr" json:"functionName"`
	ID         num              `xml:"id,attr" json:"id"`
	Kind       string           `xml:"kind,attr" json:"kind"`
	Returns    string           `xml:"returns,attr,omitempty" json:"returns,omitempty"`
	RetSet     num              `xml:"retset,attr" json:"retset"`
	Language   string           `xml:"language,attr" json:"language"`
	Form       string           `xml:"form,attr" json:"form"`
	Volatility string           `xml:"volatility,attr" json:"volatility"`
	Strict     num              `xml:"strict,attr" json:"strict"`
	Leakproof  num              `xml:"leakproof,attr" json:"leakproof"`
	Definer    num              `xml:"securityDefiner,attr" json:"securityDefiner"`
	Parallel   string           `xml:"parallel,attr" json:"parallel"`
	Cost       float64          `xml:"cost,attr" json:"cost"`
	Rows       float64          `xml:"rows,attr" json:"rows"`
	Owner      string           `xml:"owner,attr,omitempty" json:"owner,omitempty"`
	Args       []docFunctionArg `xml:"Arguments>Argument,omitempty" json:"Arguments,omitempty"`
	Body       string           `xml:"Body" json:"Body"`
	Comment    string           `xml:"Comment,omitempty" json:"Comment,omitempty"`
}

type docFunctionArg struct {
	Name    string `xml:"argName,attr,omitempty" json:"argName,omitempty"`
	Mode    string `xml:"mode,attr" json:"mode"`
	Type    string `xml:"type,attr" json:"type"`
	Default string `xml:"default,attr,omitempty" json:"default,omitempty"`
}

type docSequence struct {
	Name        string `xml:"sequenceName,attr" json:"sequenceName"`
	ID          num    `xml:"id,attr" json:"id"`
	Type        string `xml:"type,attr" json:"type"`
	Start       int64  `xml:"start,attr" json:"start"`
	Increment   int64  `xml:"increment,attr" json:"increment"`
	Min         int64  `xml:"minValue,attr" json:"minValue"`
	Max         int64  `xml:"maxValue,attr" json:"maxValue"`
	Cache       int64  `xml:"cache,attr" json:"cache"`
	Cycle       num    `xml:"cycle,attr" json:"cycle"`
	OwnedTable  string `xml:"ownedTable,attr,omitempty" json:"ownedTable,omitempty"`
	OwnedColumn string `xml:"ownedColumn,attr,omitempty" json:"ownedColumn,omitempty"`
}

type docTable struct {
	Name         string       `xml:"tableName,attr" json:"tableName"`
	FileName     string       `xml:"fileName,attr,omitempty" json:"fileName,omitempty"`
	RowLength    num          `xml:"rowLength,attr" json:"rowLength"`
	KeySpace     num          `xml:"keySpace,attr" json:"keySpace"`
	HiddenRowID  num          `xml:"hiddenRowID,attr" json:"hiddenRowID"`
	NextColumnID num          `xml:"nextColumnID,attr" json:"nextColumnID"`
	KeyLayout    string       `xml:"keyLayout,attr,omitempty" json:"keyLayout,omitempty"`
	ValueLayout  string       `xml:"valueLayout,attr,omitempty" json:"valueLayout,omitempty"`
	Structure    []docAttr    `xml:"Structure>Attribute" json:"Structure"`
	PrimaryKey   docPK        `xml:"primaryKey" json:"primaryKey"`
	ForeignKeys  []docFK      `xml:"foreignKeys>foreignKey,omitempty" json:"foreignKeys,omitempty"`
	UniqueKeys   []docUK      `xml:"uniqueKeys>uniqueKey,omitempty" json:"uniqueKeys,omitempty"`
	IndexFiles   []docIndex   `xml:"IndexFiles>IndexFile,omitempty" json:"IndexFiles,omitempty"`
	Triggers     []docTrigger `xml:"Triggers>Trigger,omitempty" json:"Triggers,omitempty"`
	Checks       []docCheck   `xml:"Checks>Check,omitempty" json:"Checks,omitempty"`
	// Partitioning is the table's place in a partition or inheritance
	// tree (docPartitioning), as JSON text.
	Partitioning string `xml:"partitioning,attr,omitempty" json:"partitioning,omitempty"`
	// ForeignLayout, in a foreign database, places the table's rows in
	// the application's keys.
	ForeignLayout *foreign.DocLayout `xml:"ForeignLayout,omitempty" json:"ForeignLayout,omitempty"`
}

// docPartitioning carries a table's partitioning and inheritance fields
// (catalog/partition.go) through the document unchanged.
type docPartitioning struct {
	PartitionBy *PartitionSpec  `json:"partitionBy,omitempty"`
	PartitionOf string          `json:"partitionOf,omitempty"`
	Bound       *PartitionBound `json:"bound,omitempty"`
	Inherits    []string        `json:"inherits,omitempty"`
}

// docCheck is a CHECK constraint: its expression as SQL text.
type docCheck struct {
	Name      string `xml:"checkName,attr" json:"checkName"`
	NoInherit bool   `xml:"noInherit,attr,omitempty" json:"noInherit,omitempty"`
	NotValid  bool   `xml:"notValid,attr,omitempty" json:"notValid,omitempty"`
	Comment   string `xml:"comment,attr,omitempty" json:"comment,omitempty"` // a domain's constraint's
	Expr      string `xml:",chardata" json:"expr"`
}

// docTrigger is a row trigger: its statements and condition as SQL text.
type docTrigger struct {
	Name       string   `xml:"triggerName,attr" json:"triggerName"`
	Timing     string   `xml:"timing,attr" json:"timing"`
	Event      string   `xml:"event,attr" json:"event"`
	Columns    []string `xml:"TColumn,omitempty" json:"TColumns,omitempty"`
	When       string   `xml:"When,omitempty" json:"When,omitempty"`
	Statements []string `xml:"Statement" json:"Statements"`
}

type docAttr struct {
	Name         string `xml:"attributeName,attr" json:"attributeName"`
	ColumnID     num    `xml:"columnID,attr" json:"columnID"`
	Type         string `xml:"type,attr" json:"type"`
	Length       num    `xml:"length,attr,omitempty" json:"length,omitempty"`
	Scale        int32  `xml:"scale,attr,omitempty" json:"scale,omitempty"` // NUMERIC(p, s) may have s < 0
	IsNull       num    `xml:"isnull,attr" json:"isnull"`
	Default      string `xml:"default,attr,omitempty" json:"default,omitempty"`
	DefaultValue string `xml:"defaultValue,attr,omitempty" json:"defaultValue,omitempty"`
	Serial       num    `xml:"serial,attr,omitempty" json:"serial,omitempty"`
	Identity     string `xml:"identity,attr,omitempty" json:"identity,omitempty"`
	Hidden       num    `xml:"hidden,attr,omitempty" json:"hidden,omitempty"`
	// Domain is the OID of the column's domain (Column.Domain).
	Domain num `xml:"domain,attr,omitempty" json:"domain,omitempty"`
	// Composite is the OID of the column's composite type
	// (Column.Composite).
	Composite num `xml:"composite,attr,omitempty" json:"composite,omitempty"`
}

type docPK struct {
	Name       string       `xml:"name,attr" json:"name"`
	Attributes []docKeyAttr `xml:"pkAttribute" json:"pkAttribute"`
	// Include is PRIMARY KEY (...) INCLUDE (cols): recorded only, the
	// master value holds every column.
	Include *docInclude `xml:"IncludeAttributes,omitempty" json:"IncludeAttributes,omitempty"`
}

// docKeyAttr is one key column: its name as text, plus how it is encoded.
type docKeyAttr struct {
	Name      string `xml:",chardata" json:"name"`
	ColumnID  num    `xml:"columnID,attr" json:"columnID"`
	Direction string `xml:"direction,attr" json:"direction"`
	Encoding  string `xml:"encoding,attr,omitempty" json:"encoding,omitempty"`
}

type docFK struct {
	Name       string   `xml:"name,attr,omitempty" json:"name,omitempty"`
	Attributes []string `xml:"fkAttribute" json:"fkAttribute"`
	RefTable   string   `xml:"references>refTable" json:"refTable"`
	RefAttrs   []string `xml:"references>refAttribute" json:"refAttribute"`
	OnDelete   string   `xml:"onDelete,attr,omitempty" json:"onDelete,omitempty"`
	OnUpdate   string   `xml:"onUpdate,attr,omitempty" json:"onUpdate,omitempty"`
}

type docUK struct {
	IndexName  string   `xml:"indexName,attr" json:"indexName"`
	Attributes []string `xml:"ukAttribute" json:"ukAttribute"`
}

type docIndex struct {
	Name        string       `xml:"indexName,attr" json:"indexName"`
	IsUnique    num          `xml:"isUnique,attr" json:"isUnique"`
	IndexType   string       `xml:"indexType,attr" json:"indexType"`
	Form        string       `xml:"form,attr" json:"form"`
	Elements    num          `xml:"elements,attr,omitempty" json:"elements,omitempty"`
	KeySpace    num          `xml:"keySpace,attr" json:"keySpace"`
	KeyLayout   string       `xml:"keyLayout,attr,omitempty" json:"keyLayout,omitempty"`
	ValueLayout string       `xml:"valueLayout,attr,omitempty" json:"valueLayout,omitempty"`
	Attributes  []docKeyAttr `xml:"IndexAttributes>IAttribute" json:"IndexAttributes"`
	// Include lists the INCLUDE columns, whose values the entry's value
	// carries (valueLayout shows how).
	Include *docInclude `xml:"IncludeAttributes,omitempty" json:"IncludeAttributes,omitempty"`
}

type docInclude struct {
	Attributes []string `xml:"IncAttribute" json:"IncAttribute"`
}

type docView struct {
	Name    string   `xml:"viewName,attr" json:"viewName"`
	Query   string   `xml:"Query" json:"Query"`
	Columns []string `xml:"ViewColumns>VColumn,omitempty" json:"ViewColumns,omitempty"`
}

// indexTypeName is the lecture's indexType: every kvsql index file is an
// ordered key range (range scans work on all of them).
const indexTypeName = "BTree"

func keyAttrs(t *Table, ords []int, desc []bool) []docKeyAttr {
	out := make([]docKeyAttr, len(ords))
	for i, o := range ords {
		d := desc != nil && desc[i]
		dir := "asc"
		if d {
			dir = "desc"
		}
		out[i] = docKeyAttr{Name: t.Columns[o].Name, ColumnID: num(t.Columns[o].ID), Direction: dir, Encoding: keyEncodingName(t.Columns[o].Type, d)}
	}
	return out
}

func layoutParts(t *Table, ords []int, desc []bool) string {
	var b strings.Builder
	for i, o := range ords {
		b.WriteString("/")
		b.WriteString(t.Columns[o].Name)
		b.WriteString(":")
		b.WriteString(keyEncodingName(t.Columns[o].Type, desc != nil && desc[i]))
	}
	return b.String()
}

// MasterKeyLayout summarizes the master key, e.g. "/100/a:int-asc".
func (t *Table) MasterKeyLayout() string {
	return fmt.Sprintf("/%d%s", t.ID, layoutParts(t, t.PrimaryKey, t.PrimaryKeyDesc))
}

// MasterValueLayout summarizes the master value: the encoding.EncodeRow
// record of the non-key columns, by column id.
func (t *Table) MasterValueLayout() string {
	var parts []string
	for _, o := range t.ValueColumns() {
		parts = append(parts, fmt.Sprintf("%d:%s", t.Columns[o].ID, t.Columns[o].Name))
	}
	return "row(" + strings.Join(parts, ",") + ")"
}

func (t *Table) pkTuple() string {
	return "pk(" + strings.TrimPrefix(layoutParts(t, t.PrimaryKey, t.PrimaryKeyDesc), "/") + ")"
}

// KeyLayout summarizes the key of idx's file.
func (idx *Index) KeyLayout(t *Table) string {
	base := fmt.Sprintf("/%d%s", idx.ID, layoutParts(t, idx.Columns, idx.Desc))
	pk := layoutParts(t, t.PrimaryKey, t.PrimaryKeyDesc)
	switch idx.Form {
	case FormUnique:
		return base + "[" + pk + " if any indexed value is NULL]"
	case FormKeyID:
		return base + pk
	case FormInverted:
		if idx.Elements {
			return fmt.Sprintf("/%d/element/chunk:int-asc", idx.ID)
		}
		return base + "/chunk:int-asc"
	}
	return base
}

// ValueLayout summarizes the value of idx's file: with INCLUDE columns,
// their row encoding (as a master value's, by column ID) follows the
// primary key of a unique entry or is the whole value of a key+id one.
func (idx *Index) ValueLayout(t *Table) string {
	inc := ""
	if ords, ids := idx.IncludeLayout(t); len(ords) > 0 {
		parts := make([]string, len(ords))
		for i, o := range ords {
			parts[i] = fmt.Sprintf("%d:%s", ids[i], t.Columns[o].Name)
		}
		inc = "row(" + strings.Join(parts, ",") + ")"
	}
	switch idx.Form {
	case FormUnique:
		if inc != "" {
			return t.pkTuple() + "+" + inc
		}
		return t.pkTuple()
	case FormKeyID:
		if inc != "" {
			return inc
		}
		return "empty"
	case FormInverted:
		return "oplog(" + t.pkTuple() + ")"
	}
	return ""
}

// IncludeLayout returns the included columns as an entry's value holds
// them: distinct ordinals in column-ID order, with their IDs. An
// included column that is a key or primary-key column whose key
// encoding is exact (types.T.KeyExact) is not stored again: the entry's
// key has it (PostgreSQL needs INCLUDE (id) for an index-only scan that
// reads the primary key id; here it costs nothing).
func (idx *Index) IncludeLayout(t *Table) (ords []int, ids []uint32) {
	for _, o := range idx.Include {
		inKey := slices.Contains(idx.Columns, o) || slices.Contains(t.PrimaryKey, o)
		if !slices.Contains(ords, o) && !(inKey && t.Columns[o].Type.KeyExact()) {
			ords = append(ords, o)
		}
	}
	slices.SortFunc(ords, func(a, b int) int { return int(t.Columns[a].ID) - int(t.Columns[b].ID) })
	for _, o := range ords {
		ids = append(ids, t.Columns[o].ID)
	}
	return ords, ids
}

func includeDoc(t *Table, ords []int) *docInclude {
	if len(ords) == 0 {
		return nil
	}
	d := &docInclude{}
	for _, o := range ords {
		d.Attributes = append(d.Attributes, t.Columns[o].Name)
	}
	return d
}

func rowLength(t *Table) num {
	n := 0
	for _, c := range t.Columns {
		w := fixedWidth(c.Type)
		if w == 0 {
			return 0
		}
		n += w
	}
	return num(n)
}

func flagNum(b bool) num {
	if b {
		return 1
	}
	return 0
}

// toDoc builds the document form of c. Databases, tables and views are in
// name order, columns and indexes in catalog order, so the output is
// deterministic.
func toDoc(c *Catalog) docRoot {
	root := docRoot{FormatVersion: num(CurrentVersion), NextID: num(c.nextID), DataBases: []docDB{}}
	for _, dbName := range c.Databases() {
		ddb := docDB{Name: dbName, Tables: []docTable{}}
		foreignDoc(c.dbs[dbName], &ddb)
		tables, _ := c.Tables(dbName)
		for _, t := range tables {
			ddb.Tables = append(ddb.Tables, tableDoc(t))
		}
		views, _ := c.Views(dbName)
		for _, v := range views {
			ddb.Views = append(ddb.Views, docView{Name: v.Name, Query: v.SQL, Columns: v.Columns})
		}
		seqs, _ := c.Sequences(dbName)
		for _, s := range seqs {
			if s.Foreign != nil {
				continue // a Counter element (foreignDoc)
			}
			ddb.Sequences = append(ddb.Sequences, docSequence{Name: s.Name, ID: num(s.ID), Type: s.Type, Start: s.Start,
				Increment: s.Increment, Min: s.Min, Max: s.Max, Cache: s.Cache, Cycle: flagNum(s.Cycle),
				OwnedTable: s.OwnedTable, OwnedColumn: s.OwnedColumn})
		}
		fns, _ := c.Functions(dbName)
		for _, f := range fns {
			ddb.Functions = append(ddb.Functions, functionDoc(f))
		}
		for _, u := range c.UserTypes(dbName) {
			ddb.Types = append(ddb.Types, userTypeDoc(u))
		}
		root.DataBases = append(root.DataBases, ddb)
	}
	if roles := roleDocs(c); roles != nil {
		root.Roles = &docRoles{Role: roles}
	}
	return root
}

func tableDoc(t *Table) docTable {
	dt := docTable{
		Name: t.Name, FileName: fmt.Sprintf("/%d", t.ID), RowLength: rowLength(t), KeySpace: num(t.ID),
		HiddenRowID: flagNum(t.HiddenRowID), NextColumnID: num(t.NextColumnID),
		KeyLayout: t.MasterKeyLayout(), ValueLayout: t.MasterValueLayout(),
		Structure:  []docAttr{},
		PrimaryKey: docPK{Name: t.PrimaryKeyName, Attributes: keyAttrs(t, t.PrimaryKey, t.PrimaryKeyDesc), Include: includeDoc(t, t.PrimaryKeyInclude)},
	}
	for _, c := range t.Columns {
		dt.Structure = append(dt.Structure, docAttr{
			Name: c.Name, ColumnID: num(c.ID), Type: typeNameOf(c.Type), Length: num(c.Type.Width), Scale: c.Type.Scale,
			IsNull: flagNum(!c.NotNull), Default: c.Default, DefaultValue: formatDatum(c.DefaultValue),
			Serial: flagNum(c.Serial), Hidden: flagNum(c.Hidden), Domain: num(c.Domain), Composite: num(c.Composite),
		})
		if c.IdentityAlways {
			dt.Structure[len(dt.Structure)-1].Identity = "always"
		} else if c.IdentityByDefault {
			dt.Structure[len(dt.Structure)-1].Identity = "by default"
		}
	}
	if t.Foreign != nil {
		// The rows are in the application's keys, not in key space ID.
		dt.ForeignLayout = t.Foreign.ToDoc()
		dt.FileName, dt.KeyLayout, dt.ValueLayout = "", t.Foreign.Key, t.Foreign.ValueSummary()
	}
	for _, tr := range t.Triggers {
		dt.Triggers = append(dt.Triggers, docTrigger{Name: tr.Name, Timing: tr.Timing, Event: tr.Event, Columns: tr.Columns, When: tr.When, Statements: tr.Body})
	}
	for _, c := range t.Checks {
		dt.Checks = append(dt.Checks, docCheck{Name: c.Name, NoInherit: c.NoInherit, Expr: c.Expr})
	}
	if t.PartitionBy != nil || t.PartitionOf != "" || len(t.Inherits) > 0 {
		b, _ := json.Marshal(docPartitioning{PartitionBy: t.PartitionBy, PartitionOf: t.PartitionOf, Bound: t.Bound, Inherits: t.Inherits})
		dt.Partitioning = string(b)
	}
	for _, fk := range t.ForeignKeys {
		dt.ForeignKeys = append(dt.ForeignKeys, docFK{Name: fk.Name, Attributes: fk.Columns, RefTable: fk.RefTable, RefAttrs: fk.RefColumns, OnDelete: fk.OnDelete, OnUpdate: fk.OnUpdate})
	}
	for _, idx := range t.Indexes {
		if idx.Constraint {
			var names []string
			for _, o := range idx.Columns {
				names = append(names, t.Columns[o].Name)
			}
			dt.UniqueKeys = append(dt.UniqueKeys, docUK{IndexName: idx.Name, Attributes: names})
		}
		dt.IndexFiles = append(dt.IndexFiles, docIndex{
			Name: idx.Name, IsUnique: flagNum(idx.Unique), IndexType: indexTypeName, Form: idx.Form.String(), Elements: flagNum(idx.Elements),
			KeySpace: num(idx.ID), KeyLayout: idx.KeyLayout(t), ValueLayout: idx.ValueLayout(t),
			Attributes: keyAttrs(t, idx.Columns, idx.Desc), Include: includeDoc(t, idx.Include),
		})
	}
	return dt
}
