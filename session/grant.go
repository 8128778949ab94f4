package session

import (
	"slices"
	"strings"

	"github.com/kvsql/kvsql/catalog"
	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/planner"
	"github.com/kvsql/kvsql/planner/parse"
)

// GRANT and REVOKE of privileges (catalog/acl.go). kvsql keeps ACLs on
// tables, views, sequences and schemas. Every relation is owned by the
// bootstrap superuser (OID 10) and a schema by its AUTHORIZATION role;
// a grant by the owner or a superuser is recorded as the owner's, as
// PostgreSQL records it.

// grantObject is one object a GRANT names: its kind, how messages name
// it, its owner's OID, its ACL (nil for the default) and how to store a
// new one.
type grantObject struct {
	kind  string // "table", "sequence", "schema"
	name  string
	owner uint64
	acl   []catalog.ACLItem
	set   func(acl []catalog.ACLItem) (*catalog.Catalog, error)
}

func (s *Session) grantStmt(t *txn, g *parse.GrantStmt) (string, error) {
	tag := "GRANT"
	if g.Revoke {
		tag = "REVOKE"
	}
	objs, err := s.grantObjects(t, g)
	if err != nil {
		return "", err
	}
	cat := t.cat
	var grantees []uint64
	for _, name := range g.Grantees {
		if name == "public" {
			grantees = append(grantees, 0)
			continue
		}
		if name == `"public"` {
			name = "public"
		}
		role, err := s.resolveRole(cat, name)
		if err != nil {
			return "", err
		}
		grantees = append(grantees, s.roleID(cat, role))
	}
	me := s.currentRole()
	for _, o := range objs {
		all := catalog.AllPrivileges[o.kind]
		privs := all
		if len(g.Privileges) > 0 {
			privs = ""
			for _, p := range g.Privileges {
				if len(p.Columns) > 0 {
					return "", pgerror.New(pgerror.FeatureNotSupported, "column privileges are not supported")
				}
				l := catalog.PrivilegeLetter[p.Name]
				if l == 0 || strings.IndexByte(all, l) < 0 {
					if o.kind == "sequence" && g.Kind == "table" {
						s.warn("sequence %q only supports USAGE, SELECT, and UPDATE privileges", o.name)
						continue
					}
					return "", pgerror.Newf(pgerror.InvalidGrantOperation, "invalid privilege type %s for %s", strings.ToUpper(p.Name), o.kind)
				}
				privs += string(l)
			}
		}
		acl := o.acl
		if acl == nil {
			acl = catalog.DefaultACL(o.kind, o.owner)
		}
		// The grantor: the owner when the owner or a superuser grants;
		// another role grants what it holds with the grant option, as
		// itself, and is warned of the rest.
		grantor := o.owner
		if !s.memberOf(cat, me, s.roleNameByID(cat, o.owner), true) {
			var held, grantable string
			roles := s.inheritedRoles(cat, me)
			for _, a := range acl {
				if a.Grantee == 0 || slices.Contains(roles, a.Grantee) {
					held += a.Privs
					grantable += a.Grant
				}
			}
			if held == "" {
				return "", pgerror.Newf(pgerror.InsufficientPrivilege, "permission denied for %s %s", o.kind, o.name)
			}
			grantor = s.roleID(cat, me)
			want := privs
			privs = ""
			for i := 0; i < len(want); i++ {
				if strings.IndexByte(grantable, want[i]) >= 0 {
					privs += want[i : i+1]
				}
			}
			verb := "were granted"
			if g.Revoke {
				verb = "could be revoked"
			}
			if privs == "" {
				s.warn("no privileges %s for %q", verb, o.name)
				continue
			}
			if privs != want {
				s.warn("not all privileges %s for %q", verb, o.name)
			}
		}
		for _, id := range grantees {
			if g.Revoke {
				acl = catalog.RevokeACL(acl, id, grantor, privs, g.GrantOption)
			} else {
				if g.GrantOption && id == 0 {
					return "", pgerror.New(pgerror.InvalidGrantOperation, "grant options can only be granted to roles")
				}
				acl = catalog.GrantACL(acl, id, grantor, privs, g.GrantOption)
			}
		}
		next, err := o.set(acl)
		if err != nil {
			return "", err
		}
		t.setCatalog(next)
		cat = next
	}
	return tag, nil
}

// grantObjects resolves the objects of a GRANT or REVOKE.
func (s *Session) grantObjects(t *txn, g *parse.GrantStmt) ([]grantObject, error) {
	db := s.database
	var out []grantObject
	switch g.Kind {
	case "table", "sequence":
		keys := g.Objects
		if g.InSchema {
			keys = nil
			for _, schema := range g.Objects {
				if _, err := t.cat.Schema(db, schema); err != nil {
					return nil, err
				}
				if g.Kind == "table" {
					ts, _ := t.cat.Tables(db)
					for _, tb := range ts {
						if catalog.SchemaName(tb.Schema) == schema {
							keys = append(keys, tb.Key())
						}
					}
					vs, _ := t.cat.Views(db)
					for _, v := range vs {
						if catalog.SchemaName(v.Schema) == schema {
							keys = append(keys, v.Key())
						}
					}
				}
				ss, _ := t.cat.Sequences(db)
				for _, sq := range ss {
					if catalog.SchemaName(sq.Schema) == schema {
						keys = append(keys, sq.Key())
					}
				}
			}
		} else {
			pl := s.planner(t.cat)
			for i, ref := range keys {
				_, schema, name := planner.SplitRef(ref)
				key, err := pl.DDLLookupKey(schema, name)
				if err != nil {
					return nil, err
				}
				keys[i] = key
			}
		}
		for _, key := range keys {
			o, err := s.relationObject(t, g.Kind, key)
			if err != nil {
				return nil, err
			}
			out = append(out, o)
		}
	case "schema":
		for _, name := range g.Objects {
			sc, err := t.cat.Schema(db, name)
			if err != nil {
				return nil, err
			}
			owner, acl := t.cat.SchemaOwnerACL(sc)
			out = append(out, grantObject{kind: "schema", name: name, owner: owner, acl: acl,
				set: func(acl []catalog.ACLItem) (*catalog.Catalog, error) {
					return t.cat.AlterSchema(t.kv, db, name, func(s *catalog.Schema) { s.ACL = acl })
				}})
		}
	default:
		return nil, pgerror.Newf(pgerror.FeatureNotSupported, "GRANT and REVOKE ON %s are not supported", strings.ToUpper(g.Kind))
	}
	return out, nil
}

// relationObject is the table, view or sequence of key; kind is what
// the GRANT named ("sequence" must name a sequence: 42809).
func (s *Session) relationObject(t *txn, kind, key string) (grantObject, error) {
	db := s.database
	name := catalog.DisplayName(key)
	if tb, err := t.cat.Table(db, key); err == nil && kind == "table" {
		return grantObject{kind: "table", name: name, owner: catalog.OwnerID(tb.Owner), acl: tb.ACL,
			set: func(acl []catalog.ACLItem) (*catalog.Catalog, error) {
				return t.cat.AlterTable(t.kv, db, key, func(nt *catalog.Table) error { nt.ACL = acl; return nil })
			}}, nil
	}
	if v, err := t.cat.View(db, key); err == nil && kind == "table" {
		return grantObject{kind: "table", name: name, owner: catalog.OwnerID(v.Owner), acl: v.ACL,
			set: func(acl []catalog.ACLItem) (*catalog.Catalog, error) {
				return t.cat.AlterView(t.kv, db, key, func(v *catalog.View) { v.ACL = acl })
			}}, nil
	}
	if sq, err := t.cat.Sequence(db, key); err == nil {
		return grantObject{kind: "sequence", name: name, owner: catalog.OwnerID(sq.Owner), acl: sq.ACL,
			set: func(acl []catalog.ACLItem) (*catalog.Catalog, error) {
				ns := *sq
				ns.ACL = acl
				return t.cat.AlterSequence(t.kv, db, ns)
			}}, nil
	}
	if t.cat.SerialSequence(db, key) != nil {
		return grantObject{}, pgerror.Newf(pgerror.FeatureNotSupported, "GRANT and REVOKE on the sequence of a serial column (%s) are not supported", name)
	}
	if kind == "sequence" {
		if _, err := t.cat.Table(db, key); err == nil {
			return grantObject{}, pgerror.Newf(pgerror.WrongObjectType, "%q is not a sequence", name)
		}
	}
	return grantObject{}, pgerror.Newf(pgerror.UndefinedTable, "relation %q does not exist", name)
}

// privilegeCheck is the planner's PrivilegeCheck for this session
// (planner/privilege.go), nil when the current user is a superuser.
func (s *Session) privilegeCheck(cat *catalog.Catalog) planner.PrivilegeCheck {
	me := s.currentRole()
	if s.isSuperuser(cat, me) {
		return nil
	}
	return func(role uint64, kind, name string, owner uint64, acl []catalog.ACLItem, priv byte) error {
		who := me
		if role != 0 {
			who = s.roleNameByID(cat, role)
		}
		if s.hasPrivilege(cat, who, owner, acl, kind, priv) {
			return nil
		}
		return pgerror.Newf(pgerror.InsufficientPrivilege, "permission denied for %s %s", kind, name)
	}
}

// hasPrivilege reports whether role (a name) holds priv on an object of
// kind owned by owner with ACL acl (nil: the default, which gives the
// owner everything): a superuser does, else the ACL must give it to the
// role, to a role it inherits from, or to PUBLIC. An owner may revoke
// its own privileges, as in PostgreSQL (it keeps the right to grant
// them back and to alter and drop the object).
func (s *Session) hasPrivilege(cat *catalog.Catalog, role string, owner uint64, acl []catalog.ACLItem, kind string, priv byte) bool {
	if s.isSuperuser(cat, role) {
		return true
	}
	roles := s.inheritedRoles(cat, role)
	if acl == nil {
		k := kind
		if k == "view" || k == "materialized view" {
			k = "table"
		}
		acl = catalog.DefaultACL(k, owner)
	}
	return catalog.ACLHas(acl, roles, priv)
}

// inheritedRoles are the OIDs of role and of every role whose privileges
// it inherits (memberships through INHERIT roles).
func (s *Session) inheritedRoles(cat *catalog.Catalog, role string) []uint64 {
	r, err := cat.Role(role)
	if err != nil {
		return []uint64{catalog.BootstrapRoleID}
	}
	out := []uint64{r.ID}
	for i := 0; i < len(out); i++ {
		cur := cat.RoleByID(out[i])
		if cur == nil || cur.NoInherit {
			continue
		}
		for _, m := range cur.MemberOf {
			if !slices.Contains(out, m.RoleID) {
				out = append(out, m.RoleID)
			}
		}
	}
	return out
}
