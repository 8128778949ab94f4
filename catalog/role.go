package catalog

import (
	"crypto/hmac"
	"crypto/pbkdf2"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/kvsql/kvsql/kv"
	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/types"
)

// Roles. A role is the cluster's (not a database's): CREATE ROLE, CREATE
// USER and CREATE GROUP make one, stored at /1/"role"/name. The bootstrap
// superuser (OID 10) is not stored: it is whoever the server runs as, the
// name a session connects with when that name is no stored role (kvsql
// accepts any user name, as PostgreSQL with trust authentication accepts
// the superuser's; see session.Session.bootstrapName).

// BootstrapRoleID is the OID of the bootstrap superuser, PostgreSQL's.
const BootstrapRoleID = 10

// DatabaseOwnerRoleID is pg_database_owner's OID, the owner of schema
// public.
const DatabaseOwnerRoleID = 6171

const tagRole = "role" // /1/"role"/name → JSON Role

// RoleKey is the descriptor key of role name.
func RoleKey(name string) []byte { return metaKey(text(tagRole), text(name)) }

// Role is one role: its attributes, its password's SCRAM-SHA-256
// verifier, and the roles it is a member of.
type Role struct {
	// ID is the role's OID, allocated from the key space counter.
	ID          uint64 `json:"id"`
	Name        string `json:"name"`
	Superuser   bool   `json:"superuser,omitempty"`
	Login       bool   `json:"login,omitempty"`
	CreateDB    bool   `json:"createdb,omitempty"`
	CreateRole  bool   `json:"createrole,omitempty"`
	Replication bool   `json:"replication,omitempty"`
	BypassRLS   bool   `json:"bypassrls,omitempty"`
	// NoInherit is NOINHERIT (INHERIT, the default, is the zero value).
	NoInherit bool `json:"noinherit,omitempty"`
	// ConnLimit is CONNECTION LIMIT; -1 (no limit) is stored as 0 and
	// read back by Limit.
	ConnLimit  int    `json:"connlimit,omitempty"`
	HasLimit   bool   `json:"haslimit,omitempty"`
	Password   string `json:"password,omitempty"`   // SCRAM-SHA-256$... verifier, as pg_authid.rolpassword
	ValidUntil string `json:"validuntil,omitempty"` // VALID UNTIL as written
	// MemberOf are the roles this role was granted (GRANT role TO this).
	MemberOf []Membership `json:"memberof,omitempty"`
}

// Membership is one GRANT role TO member: the granted role's OID, who
// granted it and whether WITH ADMIN OPTION.
type Membership struct {
	RoleID    uint64 `json:"role"`
	GrantorID uint64 `json:"grantor"`
	Admin     bool   `json:"admin,omitempty"`
}

// Limit is the role's CONNECTION LIMIT, -1 for none.
func (r *Role) Limit() int {
	if !r.HasLimit {
		return -1
	}
	return r.ConnLimit
}

// Roles returns the stored roles sorted by name.
func (c *Catalog) Roles() []*Role {
	out := make([]*Role, 0, len(c.roles))
	for _, r := range c.roles {
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Role returns the stored role of that name: 42704 when there is none.
func (c *Catalog) Role(name string) (*Role, error) {
	if r, ok := c.roles[name]; ok {
		return r, nil
	}
	return nil, pgerror.Newf(pgerror.UndefinedObject, "role %q does not exist", name)
}

// RoleByID returns the stored role with that OID, or nil.
func (c *Catalog) RoleByID(id uint64) *Role {
	for _, r := range c.roles {
		if r.ID == id {
			return r
		}
	}
	return nil
}

// CheckRoleName refuses the names PostgreSQL reserves: 42939 for public,
// none and pg_ names.
func CheckRoleName(name string) error {
	switch {
	case name == "public" || name == "none":
		return pgerror.Newf(pgerror.ReservedName, "role name %q is reserved", name)
	case strings.HasPrefix(name, "pg_"):
		e := pgerror.Newf(pgerror.ReservedName, "role name %q is reserved", name)
		e.Detail = `Role names starting with "pg_" are reserved.`
		return e
	}
	return nil
}

// CreateRole adds a role and gives it an OID: 42710 if one has the name.
func (c *Catalog) CreateRole(w kv.Writer, r Role) (*Catalog, error) {
	if err := CheckRoleName(r.Name); err != nil {
		return nil, err
	}
	if _, ok := c.roles[r.Name]; ok {
		return nil, pgerror.Newf(pgerror.DuplicateObject, "role %q already exists", r.Name)
	}
	n := c.clone()
	r.ID = n.allocID()
	if err := writeNextID(w, n.nextID); err != nil {
		return nil, err
	}
	return n.PutRole(w, r)
}

// PutRole stores r over the role with its OID (ALTER ROLE, GRANT role):
// a new name replaces the old descriptor.
func (c *Catalog) PutRole(w kv.Writer, r Role) (*Catalog, error) {
	n := c.clone()
	if old := c.RoleByID(r.ID); old != nil && old.Name != r.Name {
		if _, taken := c.roles[r.Name]; taken {
			return nil, pgerror.Newf(pgerror.DuplicateObject, "role %q already exists", r.Name)
		}
		if err := w.Delete(RoleKey(old.Name)); err != nil {
			return nil, err
		}
		delete(n.roles, old.Name)
	}
	r.MemberOf = append([]Membership(nil), r.MemberOf...)
	if err := writeJSON(w, RoleKey(r.Name), &r); err != nil {
		return nil, err
	}
	n.roles[r.Name] = &r
	return n, nil
}

// DropRole removes a role and every membership in it or granted by it
// (the caller checks that nothing else depends on it): 42704.
func (c *Catalog) DropRole(w kv.Writer, name string) (*Catalog, error) {
	r, err := c.Role(name)
	if err != nil {
		return nil, err
	}
	if err := w.Delete(RoleKey(name)); err != nil {
		return nil, err
	}
	n := c.clone()
	delete(n.roles, name)
	for _, o := range n.Roles() {
		kept := o.MemberOf[:0:0]
		for _, m := range o.MemberOf {
			if m.RoleID != r.ID {
				if m.GrantorID == r.ID {
					m.GrantorID = BootstrapRoleID
				}
				kept = append(kept, m)
			}
		}
		if len(kept) != len(o.MemberOf) || !sameMemberships(kept, o.MemberOf) {
			no := *o
			no.MemberOf = kept
			if n, err = n.PutRole(w, no); err != nil {
				return nil, err
			}
		}
	}
	return n, nil
}

func sameMemberships(a, b []Membership) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// loadRole decodes a role descriptor read by Load.
func loadRole(c *Catalog, key []byte, parts []types.Datum, value []byte) error {
	if len(parts) != 2 {
		return corrupt(key, errBadRoleKey)
	}
	r := new(Role)
	if err := json.Unmarshal(value, r); err != nil {
		return corrupt(key, err)
	}
	c.roles[r.Name] = r
	return nil
}

var errBadRoleKey = errors.New("want /role/name")

// docRoles wraps the Role elements, so that a catalog without roles has
// no Roles element at all.
type docRoles struct {
	Role []docRole `xml:"Role" json:"Role"`
}

// docRole is a role in the catalog document: its attributes as
// attributes, its memberships as MemberOf elements naming the granted
// role.
type docRole struct {
	Name        string          `xml:"roleName,attr" json:"roleName"`
	ID          num             `xml:"id,attr" json:"id"`
	Superuser   num             `xml:"superuser,attr" json:"superuser"`
	Login       num             `xml:"login,attr" json:"login"`
	CreateDB    num             `xml:"createdb,attr" json:"createdb"`
	CreateRole  num             `xml:"createrole,attr" json:"createrole"`
	Inherit     num             `xml:"inherit,attr" json:"inherit"`
	Replication num             `xml:"replication,attr,omitempty" json:"replication,omitempty"`
	BypassRLS   num             `xml:"bypassrls,attr,omitempty" json:"bypassrls,omitempty"`
	ConnLimit   int             `xml:"connectionLimit,attr" json:"connectionLimit"`
	Password    string          `xml:"password,attr,omitempty" json:"password,omitempty"`
	ValidUntil  string          `xml:"validUntil,attr,omitempty" json:"validUntil,omitempty"`
	MemberOf    []docMembership `xml:"MemberOf,omitempty" json:"MemberOf,omitempty"`
}

type docMembership struct {
	Role    string `xml:"roleName,attr" json:"roleName"`
	Grantor string `xml:"grantor,attr" json:"grantor"`
	Admin   num    `xml:"admin,attr" json:"admin"`
}

// roleDocs lists c's roles for the document; a membership names its
// role and grantor ("" for the bootstrap superuser).
func roleDocs(c *Catalog) []docRole {
	var out []docRole
	name := func(id uint64) string {
		if r := c.RoleByID(id); r != nil {
			return r.Name
		}
		return ""
	}
	for _, r := range c.Roles() {
		d := docRole{Name: r.Name, ID: num(r.ID), Superuser: flagNum(r.Superuser), Login: flagNum(r.Login),
			CreateDB: flagNum(r.CreateDB), CreateRole: flagNum(r.CreateRole), Inherit: flagNum(!r.NoInherit),
			Replication: flagNum(r.Replication), BypassRLS: flagNum(r.BypassRLS), ConnLimit: r.Limit(),
			Password: r.Password, ValidUntil: r.ValidUntil}
		for _, m := range r.MemberOf {
			d.MemberOf = append(d.MemberOf, docMembership{Role: name(m.RoleID), Grantor: name(m.GrantorID), Admin: flagNum(m.Admin)})
		}
		out = append(out, d)
	}
	return out
}

// importRoles adds the document's roles to c (fromDoc).
func (im *importer) importRoles(c *Catalog, docs []docRole) error {
	for _, d := range docs {
		where := fmt.Sprintf("Role %q", d.Name)
		if d.Name == "" {
			return docError("Role: roleName is missing")
		}
		if _, dup := c.roles[d.Name]; dup {
			return docError("%s: duplicate roleName", where)
		}
		if err := im.claim(d.ID, where); err != nil {
			return err
		}
		c.roles[d.Name] = &Role{ID: uint64(d.ID), Name: d.Name, Superuser: d.Superuser != 0, Login: d.Login != 0,
			CreateDB: d.CreateDB != 0, CreateRole: d.CreateRole != 0, NoInherit: d.Inherit == 0,
			Replication: d.Replication != 0, BypassRLS: d.BypassRLS != 0, ConnLimit: max(d.ConnLimit, 0),
			HasLimit: d.ConnLimit >= 0, Password: d.Password, ValidUntil: d.ValidUntil}
	}
	id := func(name, where string) (uint64, error) {
		if name == "" {
			return BootstrapRoleID, nil
		}
		r, ok := c.roles[name]
		if !ok {
			return 0, docError("%s: MemberOf names no role %q", where, name)
		}
		return r.ID, nil
	}
	for _, d := range docs {
		r := c.roles[d.Name]
		for _, m := range d.MemberOf {
			where := fmt.Sprintf("Role %q", d.Name)
			rid, err := id(m.Role, where)
			if err != nil {
				return err
			}
			gid, err := id(m.Grantor, where)
			if err != nil {
				return err
			}
			r.MemberOf = append(r.MemberOf, Membership{RoleID: rid, GrantorID: gid, Admin: m.Admin != 0})
		}
	}
	return nil
}

// RoleDependents describes what depends on role name, as DROP ROLE's
// 2BP01 detail lists it: the schemas it owns ("owner of schema s").
func (c *Catalog) RoleDependents(name string) []string {
	var out []string
	for _, db := range c.Databases() {
		for _, s := range c.Schemas(db) {
			if s.Owner == name && !s.Temp {
				out = append(out, "owner of schema "+s.Name)
			}
		}
	}
	if r, ok := c.roles[name]; ok {
		out = append(out, c.aclDependents(r.ID)...)
	}
	return out
}

// RenameRoleRefs renames the role old to new where descriptors name it
// (schema owners).
func (c *Catalog) RenameRoleRefs(w kv.Writer, old, new string) (*Catalog, error) {
	n := c
	for _, db := range c.Databases() {
		for _, s := range c.Schemas(db) {
			if s.Owner != old {
				continue
			}
			ns := *s
			ns.Owner = new
			var err error
			if n, err = n.putSchema(w, db, ns); err != nil {
				return nil, err
			}
		}
	}
	return n, nil
}

// ScramVerifier is the SCRAM-SHA-256 verifier PostgreSQL stores for a
// password (pg_authid.rolpassword):
// SCRAM-SHA-256$<iterations>:<salt>$<StoredKey>:<ServerKey>, base64
// parts. A password that already is a verifier (pg_dumpall writes them)
// or an MD5 hash is kept as it is.
func ScramVerifier(password string) (string, error) {
	if strings.HasPrefix(password, "SCRAM-SHA-256$") || len(password) == 35 && strings.HasPrefix(password, "md5") {
		return password, nil
	}
	salt := make([]byte, 16)
	rand.Read(salt)
	salted, err := pbkdf2.Key(sha256.New, password, salt, scramIterations, sha256.Size)
	if err != nil {
		return "", err
	}
	mac := func(msg string) []byte {
		h := hmac.New(sha256.New, salted)
		h.Write([]byte(msg))
		return h.Sum(nil)
	}
	stored := sha256.Sum256(mac("Client Key"))
	b64 := base64.StdEncoding.EncodeToString
	return fmt.Sprintf("SCRAM-SHA-256$%d:%s$%s:%s", scramIterations, b64(salt), b64(stored[:]), b64(mac("Server Key"))), nil
}

// scramIterations is PostgreSQL's default scram_iterations.
const scramIterations = 4096
