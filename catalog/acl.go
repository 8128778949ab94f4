package catalog

import (
	"slices"
	"strings"

	"github.com/kvsql/kvsql/kv"
)

// Access control lists, PostgreSQL's aclitem[]: each item gives one
// grantee (a role's OID, 0 for PUBLIC) privileges granted by one grantor.
// A descriptor with a nil ACL has the default for its kind (the owner
// holds every privilege: acldefault); the first GRANT or REVOKE stores
// the default with the change applied, as PostgreSQL does.

// ACLItem is one aclitem. Privs and Grant are privilege letters
// (ACLLetters); Grant holds those the grantee may grant on.
type ACLItem struct {
	Grantee uint64 `json:"grantee"`
	Grantor uint64 `json:"grantor"`
	Privs   string `json:"privs"`
	Grant   string `json:"grant,omitempty"`
}

// ACLLetters are the privilege letters in the order aclitem prints them:
// INSERT, SELECT, UPDATE, DELETE, TRUNCATE, REFERENCES, TRIGGER, EXECUTE,
// USAGE, CREATE, TEMPORARY, CONNECT.
const ACLLetters = "arwdDxtXUCTc"

// PrivilegeLetter maps a privilege's name to its letter.
var PrivilegeLetter = map[string]byte{
	"insert": 'a', "select": 'r', "update": 'w', "delete": 'd', "truncate": 'D',
	"references": 'x', "trigger": 't', "execute": 'X', "usage": 'U', "create": 'C',
	"temporary": 'T', "connect": 'c',
}

// AllPrivileges are the privileges an object kind has ("table" for
// tables, views and materialized views).
var AllPrivileges = map[string]string{
	"table": "arwdDxt", "sequence": "rwU", "schema": "UC", "database": "CTc",
	"function": "X", "type": "U", "language": "U",
}

// DefaultACL is acldefault(kind, owner): what a nil ACL means.
func DefaultACL(kind string, owner uint64) []ACLItem {
	all := AllPrivileges[kind]
	switch kind {
	case "function", "type", "language":
		return []ACLItem{{Grantee: 0, Grantor: owner, Privs: all}, {Grantee: owner, Grantor: owner, Privs: all}}
	case "database":
		return []ACLItem{{Grantee: 0, Grantor: owner, Privs: "Tc"}, {Grantee: owner, Grantor: owner, Privs: all}}
	}
	return []ACLItem{{Grantee: owner, Grantor: owner, Privs: all}}
}

// sortLetters puts privilege letters in ACLLetters order, each once.
func sortLetters(s string) string {
	var b strings.Builder
	for i := 0; i < len(ACLLetters); i++ {
		if strings.IndexByte(s, ACLLetters[i]) >= 0 {
			b.WriteByte(ACLLetters[i])
		}
	}
	return b.String()
}

// removeLetters is s without the letters of del.
func removeLetters(s, del string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if strings.IndexByte(del, s[i]) < 0 {
			b.WriteByte(s[i])
		}
	}
	return b.String()
}

// GrantACL returns acl with privs (letters) granted to grantee by
// grantor, with the grant option when grantOption.
func GrantACL(acl []ACLItem, grantee, grantor uint64, privs string, grantOption bool) []ACLItem {
	out := slices.Clone(acl)
	i := slices.IndexFunc(out, func(a ACLItem) bool { return a.Grantee == grantee && a.Grantor == grantor })
	if i < 0 {
		out = append(out, ACLItem{Grantee: grantee, Grantor: grantor})
		i = len(out) - 1
	}
	out[i].Privs = sortLetters(out[i].Privs + privs)
	if grantOption {
		out[i].Grant = sortLetters(out[i].Grant + privs)
	}
	return out
}

// RevokeACL returns acl with privs taken from grantee as granted by
// grantor (only the grant option of them when grantOption); an item left
// with no privileges goes.
func RevokeACL(acl []ACLItem, grantee, grantor uint64, privs string, grantOption bool) []ACLItem {
	var out []ACLItem
	for _, a := range acl {
		if a.Grantee == grantee && a.Grantor == grantor {
			a.Grant = removeLetters(a.Grant, privs)
			if !grantOption {
				a.Privs = removeLetters(a.Privs, privs)
			}
			if a.Privs == "" {
				continue
			}
		}
		out = append(out, a)
	}
	if out == nil {
		out = []ACLItem{} // empty, not the default
	}
	return out
}

// FormatACL prints an ACL as aclitem[]'s elements:
// grantee=privs/grantor, an empty grantee for PUBLIC, a * after each
// letter held with the grant option; name names a role OID.
func FormatACL(acl []ACLItem, name func(uint64) string) []string {
	out := make([]string, 0, len(acl))
	for _, a := range acl {
		var b strings.Builder
		if a.Grantee != 0 {
			b.WriteString(aclName(name(a.Grantee)))
		}
		b.WriteByte('=')
		for i := 0; i < len(a.Privs); i++ {
			b.WriteByte(a.Privs[i])
			if strings.IndexByte(a.Grant, a.Privs[i]) >= 0 {
				b.WriteByte('*')
			}
		}
		b.WriteByte('/')
		b.WriteString(aclName(name(a.Grantor)))
		out = append(out, b.String())
	}
	return out
}

// aclName quotes a role name in an aclitem as PostgreSQL's putid does:
// when it has characters other than letters, digits and underscores.
func aclName(s string) string {
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r >= 0x80) {
			return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
		}
	}
	return s
}

// ACLHas reports whether acl gives role (or PUBLIC, or a role in
// roles, the ones role inherits from) privilege letter p.
func ACLHas(acl []ACLItem, roles []uint64, p byte) bool {
	for _, a := range acl {
		if (a.Grantee == 0 || slices.Contains(roles, a.Grantee)) && strings.IndexByte(a.Privs, p) >= 0 {
			return true
		}
	}
	return false
}

// ACLMentions reports whether acl names role id (as grantee or grantor).
func ACLMentions(acl []ACLItem, id uint64) bool {
	for _, a := range acl {
		if a.Grantee == id || a.Grantor == id {
			return true
		}
	}
	return false
}

// AlterView stores a view changed by change (its ACL, its owner); 42P01
// if there is no such view.
func (c *Catalog) AlterView(w kv.Writer, db, key string, change func(*View)) (*Catalog, error) {
	v, err := c.View(db, key)
	if err != nil {
		return nil, err
	}
	nv := *v
	nv.Columns = append([]string(nil), v.Columns...)
	change(&nv)
	if err := writeView(w, db, &nv); err != nil {
		return nil, err
	}
	n := c.clone()
	n.cloneDB(db).Views[key] = &nv
	return n, nil
}

// AlterSchema stores a schema changed by change (its ACL, its owner);
// 3F000.
func (c *Catalog) AlterSchema(w kv.Writer, db, name string, change func(*Schema)) (*Catalog, error) {
	s, err := c.Schema(db, name)
	if err != nil {
		return nil, err
	}
	ns := *s
	change(&ns)
	return c.putSchema(w, db, ns)
}

// aclDependents lists the relations role id owns and the objects whose
// ACLs name it, as DROP ROLE's detail does ("owner of table t",
// "privileges for table t").
func (c *Catalog) aclDependents(id uint64) []string {
	var out []string
	for _, db := range c.Databases() {
		ts, _ := c.Tables(db)
		for _, t := range ts {
			if t.Owner == id {
				out = append(out, "owner of table "+DisplayName(t.Key()))
			}
		}
		vs, _ := c.Views(db)
		for _, v := range vs {
			if v.Owner == id {
				out = append(out, "owner of view "+DisplayName(v.Key()))
			}
		}
		ss, _ := c.Sequences(db)
		for _, s := range ss {
			if s.Owner == id {
				out = append(out, "owner of sequence "+DisplayName(s.Key()))
			}
		}
	}
	for _, db := range c.Databases() {
		for _, s := range c.Schemas(db) {
			if ACLMentions(s.ACL, id) {
				out = append(out, "privileges for schema "+s.Name)
			}
		}
		ts, _ := c.Tables(db)
		for _, t := range ts {
			if ACLMentions(t.ACL, id) {
				out = append(out, "privileges for table "+DisplayName(t.Key()))
			}
		}
		vs, _ := c.Views(db)
		for _, v := range vs {
			if ACLMentions(v.ACL, id) {
				out = append(out, "privileges for view "+DisplayName(v.Key()))
			}
		}
		ss, _ := c.Sequences(db)
		for _, s := range ss {
			if ACLMentions(s.ACL, id) {
				out = append(out, "privileges for sequence "+DisplayName(s.Key()))
			}
		}
	}
	return out
}

// OwnerID is a descriptor's Owner field as a role OID: 0 is the
// bootstrap superuser.
func OwnerID(owner uint64) uint64 {
	if owner == 0 {
		return BootstrapRoleID
	}
	return owner
}

// SchemaOwnerACL is a schema's owner (a role OID) and ACL: public, owned
// by pg_database_owner, has initdb's ACL (its owner may use and create,
// everyone may use) until a GRANT changes it; another schema's nil ACL
// is the default (DefaultACL).
func (c *Catalog) SchemaOwnerACL(s *Schema) (owner uint64, acl []ACLItem) {
	owner, acl = BootstrapRoleID, s.ACL
	switch {
	case s.Name == PublicSchema && s.Owner == "pg_database_owner":
		owner = DatabaseOwnerRoleID
		if acl == nil {
			acl = []ACLItem{{Grantee: owner, Grantor: owner, Privs: "UC"}, {Grantee: 0, Grantor: owner, Privs: "U"}}
		}
	case s.Owner != "":
		if r, err := c.Role(s.Owner); err == nil {
			owner = r.ID
		}
	}
	return owner, acl
}
