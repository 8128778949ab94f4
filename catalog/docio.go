package catalog

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"strings"

	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/types"
)

// ExportXML renders c as the XML catalog document (see document.go for the
// vocabulary). The output is deterministic.
func ExportXML(c *Catalog) ([]byte, error) {
	out, err := xml.MarshalIndent(toDoc(c), "", "  ")
	if err != nil {
		return nil, err
	}
	return append(append([]byte(xml.Header), out...), '\n'), nil
}

// ExportJSON renders c as the JSON catalog document.
func ExportJSON(c *Catalog) ([]byte, error) {
	out, err := json.MarshalIndent(jsonDoc{Databases: toDoc(c)}, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(out, '\n'), nil
}

// ImportXML parses and validates an XML catalog document. Errors carry
// 22023 and name the offending element.
func ImportXML(data []byte) (*Catalog, error) {
	var root docRoot
	dec := xml.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&root); err != nil {
		return nil, docError("XML: %v", err)
	}
	return fromDoc(&root)
}

// ImportJSON parses and validates a JSON catalog document.
func ImportJSON(data []byte) (*Catalog, error) {
	var doc jsonDoc
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&doc); err != nil {
		return nil, docError("JSON: %v", err)
	}
	return fromDoc(&doc.Databases)
}

func docError(format string, args ...any) error {
	return pgerror.Newf(pgerror.InvalidParameterValue, "catalog document: "+format, args...)
}

// importer carries the state of one fromDoc call.
type importer struct {
	nextID uint64
	spaces map[uint64]string // key space → element that claimed it
}

func (im *importer) claim(space num, where string) error {
	s := uint64(space)
	if s < FirstUserSpace || s >= im.nextID {
		return docError("%s: keySpace %d is outside [%d, nextID=%d)", where, s, FirstUserSpace, im.nextID)
	}
	if prev, ok := im.spaces[s]; ok {
		return docError("%s: keySpace %d is already used by %s", where, s, prev)
	}
	im.spaces[s] = where
	return nil
}

func fromDoc(root *docRoot) (*Catalog, error) {
	if uint64(root.FormatVersion) != CurrentVersion {
		return nil, docError("Databases: formatVersion %d is not supported (this kvsql reads version %d)", root.FormatVersion, CurrentVersion)
	}
	im := &importer{nextID: uint64(root.NextID), spaces: map[uint64]string{}}
	c := empty(im.nextID)
	if root.Roles != nil {
		if err := im.importRoles(c, root.Roles.Role); err != nil {
			return nil, err
		}
	}
	for _, ddb := range root.DataBases {
		where := fmt.Sprintf("DataBase %q", ddb.Name)
		if ddb.Name == "" {
			return nil, docError("DataBase: dbName is missing")
		}
		if _, dup := c.dbs[ddb.Name]; dup {
			return nil, docError("%s: duplicate dbName", where)
		}
		d := newDatabase(ddb.Name)
		c.dbs[d.Name] = d
		names := map[string]string{} // relation names (tables, views, indexes) in d
		if ddb.Store != "" {
			if err := im.foreignDB(d, &ddb, where, names); err != nil {
				return nil, err
			}
			continue
		}
		for i := range ddb.Tables {
			t, err := im.table(d.Name, &ddb.Tables[i], where, names)
			if err != nil {
				return nil, err
			}
			d.Tables[t.Key()] = t
		}
		for _, dv := range ddb.Views {
			vw := fmt.Sprintf("%s / View %q", where, dv.Name)
			if dv.Name == "" {
				return nil, docError("%s / View: viewName is missing", where)
			}
			if prev, dup := names[dv.Name]; dup {
				return nil, docError("%s: name already used by %s", vw, prev)
			}
			names[dv.Name] = vw
			d.Views[dv.Name] = &View{Name: dv.Name, SQL: dv.Query, Columns: dv.Columns}
		}
		for _, ds := range ddb.Sequences {
			sw := fmt.Sprintf("%s / Sequence %q", where, ds.Name)
			if ds.Name == "" {
				return nil, docError("%s / Sequence: sequenceName is missing", where)
			}
			if prev, dup := names[ds.Name]; dup {
				return nil, docError("%s: name already used by %s", sw, prev)
			}
			names[ds.Name] = sw
			if err := im.claim(ds.ID, sw); err != nil {
				return nil, err
			}
			id := uint64(ds.ID)
			s := &Sequence{ID: id, Name: ds.Name, Type: ds.Type, Start: ds.Start, Increment: ds.Increment,
				Min: ds.Min, Max: ds.Max, Cache: ds.Cache, Cycle: ds.Cycle != 0, OwnedTable: ds.OwnedTable, OwnedColumn: ds.OwnedColumn}
			if err := CheckSequence(s); err != nil {
				return nil, docError("%s: %v", sw, err)
			}
			d.Sequences[s.Key()] = s
		}
		for i := range ddb.Functions {
			df := &ddb.Functions[i]
			fw := fmt.Sprintf("%s / Function %q", where, df.Name)
			if df.Name == "" {
				return nil, docError("%s / Function: functionName is missing", where)
			}
			if df.Kind != "f" && df.Kind != "p" {
				return nil, docError("%s: kind must be f or p", fw)
			}
			if err := im.claim(df.ID, fw); err != nil {
				return nil, err
			}
			if d.Functions == nil {
				d.Functions = map[uint64]*Function{}
			}
			d.Functions[uint64(df.ID)] = functionFromDoc(df)
		}
		for i := range ddb.Types {
			dt := &ddb.Types[i]
			tw := fmt.Sprintf("%s / Type %q", where, dt.Name)
			if dt.Name == "" {
				return nil, docError("%s / Type: typeName is missing", where)
			}
			if dt.Kind != "c" && dt.Kind != "d" && dt.Kind != "e" {
				return nil, docError("%s: kind must be c, d or e", tw)
			}
			if err := im.claim(dt.ID, tw); err != nil {
				return nil, err
			}
			if err := im.claim(dt.ID+1, tw+" (its array type)"); err != nil {
				return nil, err
			}
			u, err := userTypeFromDoc(dt)
			if err != nil {
				return nil, err
			}
			if d.Types[u.Key()] != nil {
				return nil, docError("%s: defined twice", tw)
			}
			d.Types[u.Key()] = u
		}
		resolveEnums(d, 0, true)
		resolveComposites(c, d.Name, d)
		if err := checkDomainColumns(d, where); err != nil {
			return nil, err
		}
	}
	c.nextID = im.nextID // foreign tables may have taken ids past nextID
	return c, nil
}

// checkDomainColumns refuses a document whose column names a domain or
// a composite type (by OID) that its database does not define.
func checkDomainColumns(d *Database, where string) error {
	kinds := map[uint32]string{}
	for _, u := range d.Types {
		kinds[uint32(u.OID())] = u.Kind
	}
	for _, t := range d.Tables {
		for _, c := range t.Columns {
			if c.Domain != 0 && kinds[c.Domain] != "d" {
				return docError("%s / Table %q / Attribute %q: domain %d is no domain of the database", where, t.Name, c.Name, c.Domain)
			}
			if c.Composite != 0 && kinds[c.Composite] != "c" {
				return docError("%s / Table %q / Attribute %q: composite %d is no composite type of the database", where, t.Name, c.Name, c.Composite)
			}
		}
	}
	return nil
}

func (im *importer) table(db string, dt *docTable, dbWhere string, names map[string]string) (*Table, error) {
	where := fmt.Sprintf("%s / Table %q", dbWhere, dt.Name)
	if dt.Name == "" {
		return nil, docError("%s / Table: tableName is missing", dbWhere)
	}
	if prev, dup := names[dt.Name]; dup {
		return nil, docError("%s: name already used by %s", where, prev)
	}
	names[dt.Name] = where
	if err := im.claim(dt.KeySpace, where); err != nil {
		return nil, err
	}
	if dt.HiddenRowID > 1 {
		return nil, docError("%s: hiddenRowID must be 0 or 1", where)
	}
	t := &Table{ID: uint64(dt.KeySpace), DB: db, Name: dt.Name, HiddenRowID: dt.HiddenRowID == 1, NextColumnID: uint32(dt.NextColumnID), PrimaryKeyName: dt.PrimaryKey.Name}
	if dt.Partitioning != "" {
		var dp docPartitioning
		if err := json.Unmarshal([]byte(dt.Partitioning), &dp); err != nil {
			return nil, docError("%s: partitioning: %v", where, err)
		}
		t.PartitionBy, t.PartitionOf, t.Bound, t.Inherits = dp.PartitionBy, dp.PartitionOf, dp.Bound, dp.Inherits
	}
	if len(dt.Structure) == 0 {
		return nil, docError("%s / Structure: a table needs at least one Attribute", where)
	}
	ids := map[uint32]bool{}
	for _, da := range dt.Structure {
		col, err := attribute(&da, where, t)
		if err != nil {
			return nil, err
		}
		if ids[col.ID] {
			return nil, docError("%s / Attribute %q: columnID %d is used twice", where, da.Name, col.ID)
		}
		ids[col.ID] = true
		t.Columns = append(t.Columns, col)
	}
	pkWhere := where + " / primaryKey"
	if t.PrimaryKeyName == "" {
		return nil, docError("%s: name is missing", pkWhere)
	}
	if len(dt.PrimaryKey.Attributes) == 0 {
		return nil, docError("%s: needs at least one pkAttribute", pkWhere)
	}
	var err error
	if t.PrimaryKey, t.PrimaryKeyDesc, err = keyColumns(t, dt.PrimaryKey.Attributes, pkWhere+" / pkAttribute"); err != nil {
		return nil, err
	}
	if t.HiddenRowID && (len(t.PrimaryKey) != 1 || !t.Columns[t.PrimaryKey[0]].Hidden) {
		return nil, docError("%s: hiddenRowID=1 needs a primary key of one hidden column", where)
	}
	if inc := dt.PrimaryKey.Include; inc != nil {
		for _, name := range inc.Attributes {
			o := t.ColumnOrdinal(name)
			if o < 0 {
				return nil, docError("%s / IncAttribute: no column %q", pkWhere, name)
			}
			t.PrimaryKeyInclude = append(t.PrimaryKeyInclude, o)
		}
	}
	for _, fk := range dt.ForeignKeys {
		for _, a := range fk.Attributes {
			if t.ColumnOrdinal(a) < 0 {
				return nil, docError("%s / foreignKey %q / fkAttribute %q: no such Attribute", where, fk.Name, a)
			}
		}
		if fk.RefTable == "" || len(fk.RefAttrs) != len(fk.Attributes) {
			return nil, docError("%s / foreignKey %q / references: needs refTable and one refAttribute per fkAttribute", where, fk.Name)
		}
		t.ForeignKeys = append(t.ForeignKeys, ForeignKey{Name: fk.Name, Columns: fk.Attributes, RefTable: fk.RefTable, RefColumns: fk.RefAttrs, OnDelete: fk.OnDelete, OnUpdate: fk.OnUpdate})
	}
	for i := range dt.IndexFiles {
		idx, err := im.index(t, &dt.IndexFiles[i], where, names)
		if err != nil {
			return nil, err
		}
		t.Indexes = append(t.Indexes, idx)
	}
	for _, uk := range dt.UniqueKeys {
		ukWhere := fmt.Sprintf("%s / uniqueKey %q", where, uk.IndexName)
		idx := t.IndexByName(uk.IndexName)
		if idx == nil || !idx.Unique {
			return nil, docError("%s: indexName must name a unique IndexFile of the table", ukWhere)
		}
		if len(uk.Attributes) != len(idx.Columns) {
			return nil, docError("%s: ukAttribute list differs from the IndexFile's IAttributes", ukWhere)
		}
		for j, a := range uk.Attributes {
			if t.Columns[idx.Columns[j]].Name != a {
				return nil, docError("%s: ukAttribute %q differs from the IndexFile's IAttribute %q", ukWhere, a, t.Columns[idx.Columns[j]].Name)
			}
		}
		idx.Constraint = true
	}
	for _, dtr := range dt.Triggers {
		trWhere := fmt.Sprintf("%s / Trigger %q", where, dtr.Name)
		switch {
		case dtr.Name == "":
			return nil, docError("%s / Trigger: triggerName is missing", where)
		case names["trigger "+dtr.Name] != "":
			return nil, docError("%s: name already used by %s", trWhere, names["trigger "+dtr.Name])
		case dtr.Timing != "before" && dtr.Timing != "after":
			return nil, docError("%s: timing must be before or after", trWhere)
		case dtr.Event != "insert" && dtr.Event != "update" && dtr.Event != "delete":
			return nil, docError("%s: event must be insert, update or delete", trWhere)
		case len(dtr.Statements) == 0:
			return nil, docError("%s: needs at least one Statement", trWhere)
		}
		names["trigger "+dtr.Name] = trWhere
		for _, col := range dtr.Columns {
			if t.ColumnOrdinal(col) < 0 {
				return nil, docError("%s / TColumn %q: no such Attribute", trWhere, col)
			}
		}
		t.Triggers = append(t.Triggers, &Trigger{Name: dtr.Name, Timing: dtr.Timing, Event: dtr.Event, Columns: dtr.Columns, When: dtr.When, Body: dtr.Statements})
	}
	for _, dc := range dt.Checks {
		if dc.Name == "" || strings.TrimSpace(dc.Expr) == "" {
			return nil, docError("%s / Check: checkName and the expression are required", where)
		}
		t.Checks = append(t.Checks, Check{Name: dc.Name, Expr: dc.Expr, NoInherit: dc.NoInherit})
	}
	if dt.KeyLayout != "" && dt.KeyLayout != t.MasterKeyLayout() {
		return nil, docError("%s: keyLayout %q does not match the table's key, which is %q", where, dt.KeyLayout, t.MasterKeyLayout())
	}
	if dt.ValueLayout != "" && dt.ValueLayout != t.MasterValueLayout() {
		return nil, docError("%s: valueLayout %q does not match the table's value, which is %q", where, dt.ValueLayout, t.MasterValueLayout())
	}
	return t, nil
}

func attribute(da *docAttr, tableWhere string, t *Table) (Column, error) {
	where := fmt.Sprintf("%s / Attribute %q", tableWhere, da.Name)
	if da.Name == "" {
		return Column{}, docError("%s / Attribute: attributeName is missing", tableWhere)
	}
	if t.ColumnOrdinal(da.Name) >= 0 {
		return Column{}, docError("%s: duplicate attributeName", where)
	}
	if da.ColumnID == 0 || uint64(da.ColumnID) >= uint64(t.NextColumnID) || da.ColumnID > 1<<32-1 {
		return Column{}, docError("%s: columnID %d is outside [1, nextColumnID=%d)", where, da.ColumnID, t.NextColumnID)
	}
	typ, ok := parseType(da.Type)
	fam := typ.Family
	if typ.IsArray() {
		fam = typ.Elem
	}
	if !ok {
		return Column{}, docError("%s: unknown type %q", where, da.Type)
	}
	if da.IsNull > 1 || da.Serial > 1 || da.Hidden > 1 {
		return Column{}, docError("%s: isnull, serial and hidden must be 0 or 1", where)
	}
	if da.Identity != "" && (da.Identity != "always" && da.Identity != "by default" || da.Serial != 1) {
		return Column{}, docError("%s: identity must be \"always\" or \"by default\" and only on a serial column", where)
	}
	if da.Length > 1<<30 {
		return Column{}, docError("%s: length %d is too large", where, da.Length)
	}
	switch fam {
	case types.Timestamp, types.TimestampTZ, types.Time, types.Interval:
		// Scale is the fractional-seconds precision + 1; an interval's
		// Length holds its qualifier's fields (types.T).
		if da.Scale < 0 || da.Scale > 7 || (fam != types.Interval && da.Length != 0) || da.Length > 0x66 {
			return Column{}, docError("%s: precision %d or qualifier %d out of range", where, da.Scale, da.Length)
		}
	default:
		if da.Scale != 0 && (fam != types.Numeric || da.Length == 0 || da.Scale < types.MinNumericScale || da.Scale > types.MaxNumericScale) {
			return Column{}, docError("%s: scale %d needs a numeric with a precision, and between %d and %d", where, da.Scale, types.MinNumericScale, types.MaxNumericScale)
		}
	}
	dv, err := parseDatum(da.DefaultValue)
	if err != nil {
		return Column{}, docError("%s: defaultValue: %v", where, err)
	}
	if !dv.IsNull() && dv.Kind != typ.Kind() {
		return Column{}, docError("%s: defaultValue %q is not a %s", where, da.DefaultValue, da.Type)
	}
	return Column{
		ID: uint32(da.ColumnID), Name: da.Name, Type: types.T{Family: typ.Family, Elem: typ.Elem, Width: int32(da.Length), Scale: da.Scale},
		NotNull: da.IsNull == 0, Default: da.Default, DefaultValue: dv, Serial: da.Serial == 1, Hidden: da.Hidden == 1,
		IdentityAlways: da.Identity == "always", IdentityByDefault: da.Identity == "by default",
		Domain: uint32(da.Domain), Composite: uint32(da.Composite),
	}, nil
}

// keyColumns resolves key attributes to ordinals and directions, checking
// that each names a column with the right columnID and encoding.
func keyColumns(t *Table, attrs []docKeyAttr, where string) ([]int, []bool, error) {
	ords := make([]int, len(attrs))
	desc := make([]bool, len(attrs))
	for i, a := range attrs {
		w := fmt.Sprintf("%s %q", where, a.Name)
		o := t.ColumnOrdinal(a.Name)
		if o < 0 {
			return nil, nil, docError("%s: no such Attribute", w)
		}
		if containsInt(ords[:i], o) {
			return nil, nil, docError("%s: listed twice", w)
		}
		if uint32(a.ColumnID) != t.Columns[o].ID {
			return nil, nil, docError("%s: columnID %d, but the Attribute's columnID is %d", w, a.ColumnID, t.Columns[o].ID)
		}
		switch a.Direction {
		case "asc", "":
		case "desc":
			desc[i] = true
		default:
			return nil, nil, docError("%s: direction %q is neither asc nor desc", w, a.Direction)
		}
		if want := keyEncodingName(t.Columns[o].Type, desc[i]); a.Encoding != "" && a.Encoding != want {
			return nil, nil, docError("%s: encoding %q, but a %s key column is encoded as %q", w, a.Encoding, typeNameOf(t.Columns[o].Type), want)
		}
		ords[i] = o
	}
	return ords, desc, nil
}

func (im *importer) index(t *Table, di *docIndex, tableWhere string, names map[string]string) (*Index, error) {
	where := fmt.Sprintf("%s / IndexFile %q", tableWhere, di.Name)
	if di.Name == "" {
		return nil, docError("%s / IndexFile: indexName is missing", tableWhere)
	}
	if prev, dup := names[di.Name]; dup {
		return nil, docError("%s: name already used by %s", where, prev)
	}
	names[di.Name] = where
	if err := im.claim(di.KeySpace, where); err != nil {
		return nil, err
	}
	if di.IndexType != indexTypeName {
		return nil, docError("%s: indexType %q is not supported (want %q)", where, di.IndexType, indexTypeName)
	}
	form, ok := ParseForm(di.Form)
	if !ok {
		return nil, docError("%s: form %q is not one of unique, keyid, inverted", where, di.Form)
	}
	if (di.IsUnique == 1) != (form == FormUnique) || di.IsUnique > 1 {
		return nil, docError("%s: isUnique=%d does not fit form %q (only the unique form is unique)", where, di.IsUnique, di.Form)
	}
	if len(di.Attributes) == 0 {
		return nil, docError("%s / IndexAttributes: needs at least one IAttribute", where)
	}
	ords, desc, err := keyColumns(t, di.Attributes, where+" / IAttribute")
	if err != nil {
		return nil, err
	}
	if di.Elements > 1 || di.Elements == 1 && (form != FormInverted || len(ords) != 1 || !ElementsIndexable(t.Columns[ords[0]].Type)) {
		return nil, docError("%s: elements=%d needs the inverted form over one array or jsonb column", where, di.Elements)
	}
	idx := &Index{ID: uint64(di.KeySpace), Name: di.Name, Columns: ords, Desc: desc, Unique: form == FormUnique, Form: form, Elements: di.Elements == 1}
	if di.Include != nil {
		if form == FormInverted {
			return nil, docError("%s: the inverted form has no IncludeAttributes", where)
		}
		for _, name := range di.Include.Attributes {
			o := t.ColumnOrdinal(name)
			if o < 0 {
				return nil, docError("%s / IncAttribute: no column %q", where, name)
			}
			idx.Include = append(idx.Include, o)
		}
	}
	if di.KeyLayout != "" && di.KeyLayout != idx.KeyLayout(t) {
		return nil, docError("%s: keyLayout %q does not match the index's key, which is %q", where, di.KeyLayout, idx.KeyLayout(t))
	}
	if di.ValueLayout != "" && di.ValueLayout != idx.ValueLayout(t) {
		return nil, docError("%s: valueLayout %q does not match the index's value, which is %q", where, di.ValueLayout, idx.ValueLayout(t))
	}
	return idx, nil
}
