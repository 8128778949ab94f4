package session

import (
	"strings"

	"github.com/kvsql/kvsql/catalog"
	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/types"
)

// privilegeFunc answers has_table_privilege, has_sequence_privilege,
// has_schema_privilege and pg_has_role (eval.Env.Privilege): ([user,]
// object, privileges), the user and the object by name or OID, the
// privileges a comma-separated list of which any one suffices, each
// optionally WITH GRANT OPTION.
func (s *Session) privilegeFunc(fn string, args []types.Datum) (bool, error) {
	cat := s.catalog()
	user := s.currentRole()
	if len(args) == 3 {
		u, err := s.roleArg(cat, args[0])
		if err != nil {
			return false, err
		}
		user, args = u, args[1:]
	}
	if len(args) != 2 || args[0].Kind == types.KindNull || args[1].Kind == types.KindNull {
		return false, nil
	}
	if fn == "pg_has_role" {
		role, err := s.roleArg(cat, args[0])
		if err != nil {
			return false, err
		}
		for _, p := range strings.Split(args[1].S, ",") {
			switch w := strings.ToUpper(strings.TrimSpace(p)); strings.TrimSuffix(w, " WITH ADMIN OPTION") {
			case "MEMBER", "SET":
				if s.memberOf(cat, user, role, false) {
					return true, nil
				}
			case "USAGE":
				if s.memberOf(cat, user, role, true) {
					return true, nil
				}
			default:
				return false, pgerror.Newf(pgerror.InvalidParameterValue, "unrecognized privilege type: %q", strings.TrimSpace(p))
			}
		}
		return false, nil
	}
	kind, owner, acl, err := s.privilegeObject(cat, fn, args[0])
	if err != nil {
		return false, err
	}
	valid := catalog.AllPrivileges[kind]
	if kind == "view" {
		valid = catalog.AllPrivileges["table"]
	}
	roles := s.inheritedRoles(cat, user)
	for _, p := range strings.Split(args[1].S, ",") {
		w := strings.ToUpper(strings.TrimSpace(p))
		grantOpt := strings.HasSuffix(w, " WITH GRANT OPTION")
		l := catalog.PrivilegeLetter[strings.ToLower(strings.TrimSuffix(w, " WITH GRANT OPTION"))]
		if l == 0 || strings.IndexByte(valid, l) < 0 {
			return false, pgerror.Newf(pgerror.InvalidParameterValue, "unrecognized privilege type: %q", strings.TrimSpace(p))
		}
		if !grantOpt {
			if s.hasPrivilege(cat, user, owner, acl, kind, l) {
				return true, nil
			}
			continue
		}
		if s.isSuperuser(cat, user) || s.inRole(cat, user, s.roleNameByID(cat, owner), true) || s.roleID(cat, user) == owner {
			return true, nil
		}
		for _, a := range acl {
			if (a.Grantee == 0 || containsID(roles, a.Grantee)) && strings.IndexByte(a.Grant, l) >= 0 {
				return true, nil
			}
		}
	}
	return false, nil
}

func containsID(ids []uint64, id uint64) bool {
	for _, x := range ids {
		if x == id {
			return true
		}
	}
	return false
}

// roleArg reads a role given by name or OID: 42704 for none.
func (s *Session) roleArg(cat *catalog.Catalog, d types.Datum) (string, error) {
	if d.Kind == types.KindInt {
		if d.I == catalog.BootstrapRoleID {
			return s.bootstrapName(cat), nil
		}
		if r := cat.RoleByID(uint64(d.I)); r != nil {
			return r.Name, nil
		}
		return "", pgerror.Newf(pgerror.UndefinedObject, "role with OID %d does not exist", d.I)
	}
	return s.resolveRole(cat, d.S)
}

// privilegeObject finds a has_*_privilege function's object, by name
// or OID: its kind, owner and ACL (nil: the default).
func (s *Session) privilegeObject(cat *catalog.Catalog, fn string, d types.Datum) (string, uint64, []catalog.ACLItem, error) {
	db := s.database
	if fn == "has_schema_privilege" {
		var sc *catalog.Schema
		if d.Kind == types.KindInt {
			sc = cat.SchemaByID(db, uint64(d.I))
		} else {
			sc, _ = cat.Schema(db, d.S)
		}
		if sc == nil {
			if d.Kind == types.KindInt {
				return "", 0, nil, pgerror.Newf(pgerror.InvalidSchemaName, "schema with OID %d does not exist", d.I)
			}
			return "", 0, nil, pgerror.Newf(pgerror.InvalidSchemaName, "schema %q does not exist", d.S)
		}
		owner, acl := cat.SchemaOwnerACL(sc)
		return "schema", owner, acl, nil
	}
	if d.Kind == types.KindInt {
		if t := cat.TableByID(uint64(d.I)); t != nil && fn == "has_table_privilege" {
			return "table", catalog.OwnerID(t.Owner), t.ACL, nil
		}
		seqs, _ := cat.Sequences(db)
		for _, sq := range seqs {
			if sq.ID == uint64(d.I) {
				return "sequence", catalog.OwnerID(sq.Owner), sq.ACL, nil
			}
		}
		return "", 0, nil, pgerror.Newf(pgerror.UndefinedTable, "relation with OID %d does not exist", d.I)
	}
	schema, name := "", d.S
	if i := strings.IndexByte(name, '.'); i >= 0 {
		schema, name = name[:i], name[i+1:]
	}
	key, err := s.planner(cat).DDLLookupKey(schema, name)
	if err != nil {
		return "", 0, nil, err
	}
	if t, err := cat.Table(db, key); err == nil && fn == "has_table_privilege" {
		return "table", catalog.OwnerID(t.Owner), t.ACL, nil
	}
	if v, err := cat.View(db, key); err == nil && fn == "has_table_privilege" {
		return "view", catalog.OwnerID(v.Owner), v.ACL, nil
	}
	if sq, err := cat.Sequence(db, key); err == nil {
		return "sequence", catalog.OwnerID(sq.Owner), sq.ACL, nil
	}
	if fn == "has_sequence_privilege" {
		if _, err := cat.Table(db, key); err == nil {
			return "", 0, nil, pgerror.Newf(pgerror.WrongObjectType, "%q is not a sequence", d.S)
		}
	}
	return "", 0, nil, pgerror.Newf(pgerror.UndefinedTable, "relation %q does not exist", d.S)
}
