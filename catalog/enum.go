package catalog

import (
	"encoding/hex"
	"sort"

	"github.com/kvsql/kvsql/kv"
	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/types"
)

// Enum types. An enum's UserType (Kind "e") lists its labels, each with
// the sort key its values are stored as (types.EnumType) and the float
// sort order pg_enum shows. A column of the type is T{Family: Enum,
// Width: the type's OID}; the catalog attaches the type's
// *types.EnumType to such columns (resolveEnums) whenever it loads them
// or the type changes, so the layers above read labels from the
// column's T as they read a composite's fields.

// EnumLabel is one label of an enum type.
type EnumLabel struct {
	Label string `json:"label"`
	// Key is the label's sort key: the bytes stored for its values,
	// given when the label is added and never changed (RENAME VALUE
	// changes Label only). Keys order as the labels are declared.
	Key []byte `json:"key"`
	// Sort is pg_enum.enumsortorder as PostgreSQL numbers it: 1, 2, ...
	// at creation, the last plus one for a label added at the end, the
	// midpoint of its neighbours for one added BEFORE or AFTER.
	Sort float64 `json:"sort"`
}

// MaxEnumLabel is the longest label in bytes (NAMEDATALEN-1).
const MaxEnumLabel = 63

// Enum returns the enum type u describes (nil for other kinds).
func (u *UserType) Enum() *types.EnumType { return u.enum }

// buildEnum makes u.enum from u's labels (ordered by key); u's ID must
// be set.
func (u *UserType) buildEnum() {
	if u.Kind != "e" {
		u.enum = nil
		return
	}
	ls := append([]EnumLabel(nil), u.Labels...)
	sort.Slice(ls, func(i, j int) bool { return string(ls[i].Key) < string(ls[j].Key) })
	e := &types.EnumType{Name: DisplayName(u.Key()), OID: uint32(u.OID()), ArrayOID: uint32(u.ArrayOID())}
	for _, l := range ls {
		e.Labels = append(e.Labels, l.Label)
		e.Keys = append(e.Keys, string(l.Key))
	}
	u.enum = e
}

// EnumLabelsInOrder returns u's labels ordered by sort key.
func (u *UserType) EnumLabelsInOrder() []EnumLabel {
	ls := append([]EnumLabel(nil), u.Labels...)
	sort.Slice(ls, func(i, j int) bool { return string(ls[i].Key) < string(ls[j].Key) })
	return ls
}

// NewEnumLabels gives the labels of CREATE TYPE ... AS ENUM their sort
// keys and orders: 42602 for a label over 63 bytes, 23505 (pg_enum's
// unique index, as PostgreSQL reports it) for a repeated one.
func NewEnumLabels(labels []string) ([]EnumLabel, error) {
	var out []EnumLabel
	key := ""
	seen := map[string]bool{}
	for i, l := range labels {
		if err := checkEnumLabel(l); err != nil {
			return nil, err
		}
		if seen[l] {
			return nil, pgerror.New(pgerror.UniqueViolation, `duplicate key value violates unique constraint "pg_enum_typid_label_index"`)
		}
		seen[l] = true
		key = types.NextEnumKey(key)
		out = append(out, EnumLabel{Label: l, Key: []byte(key), Sort: float64(i + 1)})
	}
	return out, nil
}

// codeInvalidName is 42602 invalid_name, which package pgerror does not
// name yet.
const codeInvalidName pgerror.Code = "42602"

func checkEnumLabel(l string) error {
	if len(l) > MaxEnumLabel {
		e := pgerror.Newf(codeInvalidName, "invalid enum label %q", l)
		e.Detail = "Labels must be 63 bytes or less."
		return e
	}
	return nil
}

// AddEnumLabel returns u's labels with label added: at the end, or
// just before (before) or after neighbor. 42710 when it exists (the
// caller handles IF NOT EXISTS), 22023 when neighbor is no label.
func AddEnumLabel(u *UserType, label, neighbor string, before bool) ([]EnumLabel, error) {
	if err := checkEnumLabel(label); err != nil {
		return nil, err
	}
	ls := u.EnumLabelsInOrder()
	for _, l := range ls {
		if l.Label == label {
			return nil, pgerror.Newf(pgerror.DuplicateObject, "enum label %q already exists", label)
		}
	}
	var nl EnumLabel
	switch {
	case neighbor == "" && len(ls) == 0:
		nl = EnumLabel{Label: label, Key: []byte(types.NextEnumKey("")), Sort: 1}
	case neighbor == "":
		last := ls[len(ls)-1]
		nl = EnumLabel{Label: label, Key: []byte(types.NextEnumKey(string(last.Key))), Sort: float64(int64(last.Sort)) + 1}
	default:
		i := -1
		for j, l := range ls {
			if l.Label == neighbor {
				i = j
			}
		}
		if i < 0 {
			return nil, pgerror.Newf(pgerror.InvalidParameterValue, "%q is not an existing enum label", neighbor)
		}
		lo, hi := i-1, i // the new label goes between ls[lo] and ls[hi]
		if !before {
			lo, hi = i, i+1
		}
		var loKey, hiKey string
		loSort, hiSort := 0.0, 0.0
		if lo >= 0 {
			loKey, loSort = string(ls[lo].Key), ls[lo].Sort
		}
		if hi < len(ls) {
			hiKey, hiSort = string(ls[hi].Key), ls[hi].Sort
		}
		sortOrder := float64(float32((loSort + hiSort) / 2))
		switch {
		case lo < 0:
			sortOrder = hiSort - 1
		case hi >= len(ls):
			sortOrder = loSort + 1
		}
		k := types.EnumKeyBetween(loKey, hiKey)
		if k == "" {
			return nil, pgerror.Newf(pgerror.Internal, "enum %s: sort keys out of order", u.Name)
		}
		nl = EnumLabel{Label: label, Key: []byte(k), Sort: sortOrder}
	}
	return append(append([]EnumLabel(nil), u.Labels...), nl), nil
}

// RenameEnumLabel returns u's labels with from renamed to; 22023 when
// from is no label, 42710 when to is one.
func RenameEnumLabel(u *UserType, from, to string) ([]EnumLabel, error) {
	if err := checkEnumLabel(to); err != nil {
		return nil, err
	}
	ls := append([]EnumLabel(nil), u.Labels...)
	i := -1
	for j, l := range ls {
		if l.Label == to {
			if from == to {
				break
			}
			return nil, pgerror.Newf(pgerror.DuplicateObject, "enum label %q already exists", to)
		}
		if l.Label == from {
			i = j
		}
	}
	if i < 0 {
		return nil, pgerror.Newf(pgerror.InvalidParameterValue, "%q is not an existing enum label", from)
	}
	ls[i].Label = to
	return ls, nil
}

// enumColumn reports whether t holds values of the enum type oid (0:
// of any enum type).
func enumColumn(t types.T, oid uint64) bool {
	return (t.Family == types.Enum || t.Family == types.Array && t.Elem == types.Enum) &&
		(oid == 0 || uint64(uint32(t.Width)) == oid)
}

// UsesEnum reports whether table t has a column of the enum type oid
// (or an array of it), and names the first.
func UsesEnum(t *Table, oid uint64) (string, bool) {
	for _, c := range t.Columns {
		if enumColumn(c.Type, oid) {
			return c.Name, true
		}
	}
	return "", false
}

// resolveEnums attaches to the enum columns of d's tables (of the type
// oid, 0 for all) their type's current *types.EnumType. inPlace edits
// the tables (a catalog being loaded); otherwise each table that
// changes is copied first (d itself must be a fresh cloneDB).
func resolveEnums(d *Database, oid uint64, inPlace bool) {
	byOID := map[uint64]*types.EnumType{}
	for _, u := range d.Types {
		if u.enum != nil {
			byOID[u.OID()] = u.enum
		}
	}
	for key, t := range d.Tables {
		nt := t
		for i, c := range t.Columns {
			if !enumColumn(c.Type, oid) {
				continue
			}
			e := byOID[uint64(uint32(c.Type.Width))]
			if c.Type.Enum == e {
				continue
			}
			if nt == t && !inPlace {
				nt = cloneTable(t)
			}
			nt.Columns[i].Type.Enum = e
		}
		d.Tables[key] = nt
	}
}

// RenameUserType renames the type with key key to name (same schema):
// 42710 when a type or relation has that name.
func (c *Catalog) RenameUserType(w kv.Writer, db, key, name string) (*Catalog, error) {
	u := c.UserType(db, key)
	if u == nil {
		return nil, pgerror.Newf(pgerror.UndefinedObject, "type %q does not exist", DisplayName(key))
	}
	d := c.dbs[db]
	nu := *u
	nu.Name = name
	nk := nu.Key()
	_, isTable := d.Tables[nk]
	_, isView := d.Views[nk]
	if d.Types[nk] != nil || isTable || isView {
		return nil, pgerror.Newf(pgerror.DuplicateObject, "type %q already exists", name)
	}
	if err := w.Delete(TypeKey(db, key)); err != nil {
		return nil, err
	}
	if err := writeJSON(w, TypeKey(db, nk), &nu); err != nil {
		return nil, err
	}
	nu.buildEnum()
	n := c.clone()
	nd := n.cloneDB(db)
	delete(nd.Types, key)
	nd.Types[nk] = &nu
	if nu.Kind == "e" {
		resolveEnums(nd, nu.OID(), false)
	}
	return n, nil
}

// docEnumLabel is an enum label in the catalog document: the label, its
// sort key in hex (the bytes its values are stored as) and pg_enum's
// sort order.
type docEnumLabel struct {
	Label string  `xml:"label,attr" json:"label"`
	Key   string  `xml:"key,attr" json:"key"`
	Sort  float64 `xml:"sort,attr" json:"sort"`
}

// docEnumLabels holds an enum's labels (nil for other kinds of type).
type docEnumLabels struct {
	Labels []docEnumLabel `xml:"Label" json:"Label"`
}

func enumLabelDocs(u *UserType) *docEnumLabels {
	if u.Kind != "e" {
		return nil
	}
	out := &docEnumLabels{Labels: []docEnumLabel{}}
	for _, l := range u.Labels {
		out.Labels = append(out.Labels, docEnumLabel{Label: l.Label, Key: hex.EncodeToString(l.Key), Sort: l.Sort})
	}
	return out
}

func enumLabelsFromDoc(ds *docEnumLabels) ([]EnumLabel, error) {
	if ds == nil {
		return nil, nil
	}
	var out []EnumLabel
	for _, d := range ds.Labels {
		k, err := hex.DecodeString(d.Key)
		if err != nil || len(k) == 0 {
			return nil, docError("enum label %q: bad key %q", d.Label, d.Key)
		}
		out = append(out, EnumLabel{Label: d.Label, Key: k, Sort: d.Sort})
	}
	return out, nil
}
