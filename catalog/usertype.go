package catalog

import (
	"encoding/json"
	"errors"
	"sort"

	"github.com/kvsql/kvsql/encoding"
	"github.com/kvsql/kvsql/kv"
	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/types"
)

// UserType is a type a user defined: a composite type (CREATE TYPE name
// AS (a int, b text)) or a domain (CREATE DOMAIN name AS int CHECK
// (VALUE > 0)). Its descriptor is a meta key /1/"type"/db/key, written
// by DDL in the statement's transaction like a sequence's; the map key
// is RelKey(schema, name), types living in schemas as relations do.
// Types name other types by their SQL spelling ("integer[]",
// "jbpop"), which the planner resolves when the type is used, so a
// UserType holds no key space and no resolved types.
type UserType struct {
	// ID is allocated from the key space counter; the type's OID is
	// ID+UserTypeOIDBase (OID) and its array type's the next (ID+1 is
	// allocated too).
	ID     uint64 `json:"id"`
	Name   string `json:"name"`
	Schema string `json:"schema,omitempty"` // "" is public
	// Kind is pg_type.typtype: "c" composite, "d" domain, "e" enum.
	Kind string `json:"kind"`
	// Labels are an enum's labels, in the order they were added
	// (enum.go).
	Labels []EnumLabel `json:"labels,omitempty"`
	// Attrs are a composite type's fields, in order.
	Attrs []TypeAttr `json:"attrs,omitempty"`
	// Base is a domain's underlying type; NotNull, Default and Checks
	// are its constraints (a CHECK's Expr reads the value as VALUE).
	Base    string  `json:"base,omitempty"`
	NotNull bool    `json:"notNull,omitempty"`
	Default string  `json:"default,omitempty"`
	Checks  []Check `json:"checks,omitempty"`
	Comment string  `json:"comment,omitempty"`

	enum *types.EnumType // built from Labels (buildEnum)
}

// TypeAttr is one field of a composite type.
type TypeAttr struct {
	Name string `json:"name"`
	Type string `json:"type"`
}

// Key is the type's key in its database (RelKey).
func (u *UserType) Key() string { return RelKey(u.Schema, u.Name) }

// UserTypeOIDBase is added to a user type's ID to make its OID: above
// every built-in type's OID (PostgreSQL's FirstNormalObjectId), so a
// client that maps type OIDs to decoders never takes an enum or a
// composite for json or int4[].
const UserTypeOIDBase = 16384

// OID is the type's OID (pg_type.oid, RowDescription's type).
func (u *UserType) OID() uint64 { return u.ID + UserTypeOIDBase }

// ArrayOID is the OID of the type's array type.
func (u *UserType) ArrayOID() uint64 { return u.OID() + 1 }

const tagType = "type" // /1/"type"/db/key → JSON UserType

// TypeKey is the descriptor key of the type with key key in db.
func TypeKey(db, key string) []byte { return metaKey(text(tagType), text(db), text(key)) }

// UserTypes returns db's types ordered by key.
func (c *Catalog) UserTypes(db string) []*UserType {
	d, ok := c.dbs[db]
	if !ok {
		return nil
	}
	out := make([]*UserType, 0, len(d.Types))
	for _, u := range d.Types {
		out = append(out, u)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Key() < out[j].Key() })
	return out
}

// UserType returns the type with that key in db, or nil.
func (c *Catalog) UserType(db, key string) *UserType {
	if d, ok := c.dbs[db]; ok {
		return d.Types[key]
	}
	return nil
}

// UserTypeByOID returns the type of db whose OID (or whose array type's
// OID) is oid, or nil.
func (c *Catalog) UserTypeByOID(db string, oid uint64) *UserType {
	if d, ok := c.dbs[db]; ok {
		for _, u := range d.Types {
			if u.OID() == oid || u.ArrayOID() == oid {
				return u
			}
		}
	}
	return nil
}

// CreateUserType adds u with new OIDs; 42710 when a type or a relation
// of its name exists in its schema (a table's name is its row type's).
func (c *Catalog) CreateUserType(w kv.Writer, db string, u UserType) (*Catalog, *UserType, error) {
	d, err := c.Database(db)
	if err != nil {
		return nil, nil, err
	}
	key := u.Key()
	_, isTable := d.Tables[key]
	_, isView := d.Views[key]
	if d.Types[key] != nil || isTable || isView {
		return nil, nil, pgerror.Newf(pgerror.DuplicateObject, "type %q already exists", u.Name)
	}
	n := c.clone()
	nu := u
	nu.ID = n.allocID()
	n.allocID() // the array type's OID
	nu.buildEnum()
	if err := writeJSON(w, TypeKey(db, key), &nu); err != nil {
		return nil, nil, err
	}
	if err := writeNextID(w, n.nextID); err != nil {
		return nil, nil, err
	}
	n.cloneDB(db).Types[key] = &nu
	return n, &nu, nil
}

// ReplaceUserType writes u over the type with its key (ALTER DOMAIN,
// ALTER TYPE, COMMENT ON TYPE).
func (c *Catalog) ReplaceUserType(w kv.Writer, db string, u UserType) (*Catalog, error) {
	if c.UserType(db, u.Key()) == nil {
		return nil, pgerror.Newf(pgerror.UndefinedObject, "type %q does not exist", u.Name)
	}
	nu := u
	if err := writeJSON(w, TypeKey(db, nu.Key()), &nu); err != nil {
		return nil, err
	}
	nu.buildEnum()
	n := c.clone()
	nd := n.cloneDB(db)
	nd.Types[nu.Key()] = &nu
	if nu.Kind == "e" {
		resolveEnums(nd, nu.OID(), false)
	}
	return n, nil
}

// DropUserType removes the type with that key.
func (c *Catalog) DropUserType(w kv.Writer, db, key string) (*Catalog, error) {
	u := c.UserType(db, key)
	if u == nil {
		return nil, pgerror.Newf(pgerror.UndefinedObject, "type %q does not exist", DisplayName(key))
	}
	if err := w.Delete(TypeKey(db, key)); err != nil {
		return nil, err
	}
	n := c.clone()
	delete(n.cloneDB(db).Types, key)
	return n, nil
}

// loadUserType installs the descriptor at key (parts decoded) into c.
func loadUserType(c *Catalog, key []byte, parts []types.Datum, value []byte) error {
	if len(parts) != 3 {
		return corrupt(key, errors.New("want /type/db/key"))
	}
	u := new(UserType)
	if err := json.Unmarshal(value, u); err != nil {
		return corrupt(key, err)
	}
	d, ok := c.dbs[parts[1].S]
	if !ok {
		return pgerror.Newf(pgerror.DataCorrupted, "catalog: type %q belongs to missing database %q at %s", u.Name, parts[1].S, encoding.Pretty(key))
	}
	u.buildEnum()
	d.Types[u.Key()] = u
	return nil
}

// docType is a user type in the catalog document: composite types list
// their fields, domains their base type and constraints.
type docType struct {
	Name    string         `xml:"typeName,attr" json:"typeName"`
	Schema  string         `xml:"schema,attr,omitempty" json:"schema,omitempty"`
	ID      num            `xml:"id,attr" json:"id"`
	Kind    string         `xml:"kind,attr" json:"kind"`
	Base    string         `xml:"base,attr,omitempty" json:"base,omitempty"`
	NotNull num            `xml:"notNull,attr" json:"notNull"`
	Default string         `xml:"default,attr,omitempty" json:"default,omitempty"`
	Attrs   []docTypeAttr  `xml:"Attributes>Attribute,omitempty" json:"Attributes,omitempty"`
	Checks  []docCheck     `xml:"Checks>Check,omitempty" json:"Checks,omitempty"`
	Labels  *docEnumLabels `xml:"Labels,omitempty" json:"Labels,omitempty"`
	Comment string         `xml:"Comment,omitempty" json:"Comment,omitempty"`
}

type docTypeAttr struct {
	Name string `xml:"attributeName,attr" json:"attributeName"`
	Type string `xml:"type,attr" json:"type"`
}

func userTypeDoc(u *UserType) docType {
	dt := docType{Name: u.Name, Schema: u.Schema, ID: num(u.ID), Kind: u.Kind, Base: u.Base,
		NotNull: flagNum(u.NotNull), Default: u.Default, Comment: u.Comment, Labels: enumLabelDocs(u)}
	for _, a := range u.Attrs {
		dt.Attrs = append(dt.Attrs, docTypeAttr(a))
	}
	for _, c := range u.Checks {
		dt.Checks = append(dt.Checks, docCheck{Name: c.Name, Expr: c.Expr, NotValid: c.NotValid, Comment: c.Comment})
	}
	return dt
}

func userTypeFromDoc(dt *docType) (*UserType, error) {
	u := &UserType{ID: uint64(dt.ID), Name: dt.Name, Schema: dt.Schema, Kind: dt.Kind, Base: dt.Base,
		NotNull: dt.NotNull != 0, Default: dt.Default, Comment: dt.Comment}
	if u.Schema == PublicSchema {
		u.Schema = ""
	}
	for _, a := range dt.Attrs {
		u.Attrs = append(u.Attrs, TypeAttr(a))
	}
	for _, c := range dt.Checks {
		u.Checks = append(u.Checks, Check{Name: c.Name, Expr: c.Expr, NotValid: c.NotValid, Comment: c.Comment})
	}
	var err error
	if u.Labels, err = enumLabelsFromDoc(dt.Labels); err != nil {
		return nil, err
	}
	u.buildEnum()
	return u, nil
}

// CompositeResolver builds the descriptor (types.Composite) of the
// composite type oid of database db of c. The planner sets it: the
// catalog parses no type names, which a composite's fields are stored
// as. Load gives the table columns of composite types (Column.Composite)
// theirs with it.
var CompositeResolver func(c *Catalog, db string, oid uint64) *types.Composite

// resolveComposites attaches to d's columns of composite types their
// descriptors, in place (a catalog being loaded).
func resolveComposites(c *Catalog, db string, d *Database) {
	if CompositeResolver == nil {
		return
	}
	for _, t := range d.Tables {
		for i := range t.Columns {
			col := &t.Columns[i]
			if col.Composite != 0 && col.Type.Comp == nil {
				col.Type.Comp = CompositeResolver(c, db, uint64(col.Composite))
			}
		}
	}
}
