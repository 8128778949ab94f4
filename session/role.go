package session

import (
	"slices"
	"strconv"
	"strings"

	"github.com/kvsql/kvsql/catalog"
	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/planner/parse"
	"github.com/kvsql/kvsql/wire/backend"
)

// Roles (catalog/role.go). A session has three role names, as in
// PostgreSQL:
//
//   - the login user, the name the client connected with (s.user);
//   - the session user, SET SESSION AUTHORIZATION's (the setting
//     session_authorization, the login user until set);
//   - the current user, SET ROLE's (the setting role; "none" means the
//     session user).
//
// kvsql accepts any user name at login. A name that is no stored role
// is the bootstrap superuser (OID 10) for that session, as before kvsql
// had roles; a stored role logs in as itself, and the bootstrap
// superuser is then called postgres.

// bootstrapDefault names the bootstrap superuser for a session whose
// login user is a stored role.
const bootstrapDefault = "postgres"

// loginName is the login user ("kvsql" when the client sent none).
func (s *Session) loginName() string {
	if s.user == "" {
		return "kvsql"
	}
	return s.user
}

// bootstrapName is the name of the bootstrap superuser in this session.
func (s *Session) bootstrapName(cat *catalog.Catalog) string {
	if _, err := cat.Role(s.loginName()); err == nil {
		return bootstrapDefault
	}
	return s.loginName()
}

// sessionUser is session_user.
func (s *Session) sessionUser() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if v := s.settings["session_authorization"]; v != "" {
		return v
	}
	return s.loginName()
}

// currentRole is current_user: the role SET ROLE chose, else the session
// user.
func (s *Session) currentRole() string {
	s.mu.Lock()
	v := s.settings["role"]
	s.mu.Unlock()
	if v == "" || v == "none" {
		return s.sessionUser()
	}
	return v
}

// resolveRole maps a role specification to a role name: CURRENT_USER,
// CURRENT_ROLE and SESSION_USER to theirs; a name to itself if it is a
// stored role or the bootstrap superuser, else 42704.
func (s *Session) resolveRole(cat *catalog.Catalog, spec string) (string, error) {
	switch spec {
	case "current_user", "current_role":
		return s.currentRole(), nil
	case "session_user":
		return s.sessionUser(), nil
	case s.bootstrapName(cat):
		return spec, nil
	}
	if _, err := cat.Role(spec); err != nil {
		return "", err
	}
	return spec, nil
}

// roleID is the OID of a resolved role name.
func (s *Session) roleID(cat *catalog.Catalog, name string) uint64 {
	if r, err := cat.Role(name); err == nil {
		return r.ID
	}
	return catalog.BootstrapRoleID
}

// isSuperuser reports whether role (a resolved name) is a superuser.
func (s *Session) isSuperuser(cat *catalog.Catalog, role string) bool {
	r, err := cat.Role(role)
	if err != nil {
		return role == s.bootstrapName(cat)
	}
	return r.Superuser
}

// memberOf reports whether role has the privileges of target: it is
// target, a superuser, or a member of it through a chain of INHERIT
// roles (inheritOnly) or of any roles (for SET ROLE).
func (s *Session) memberOf(cat *catalog.Catalog, role, target string, inheritOnly bool) bool {
	return role == target || s.isSuperuser(cat, role) || s.inRole(cat, role, target, inheritOnly)
}

// inRole reports whether role is a member of target through a chain of
// memberships (of INHERIT roles when inheritOnly), superusers aside.
func (s *Session) inRole(cat *catalog.Catalog, role, target string, inheritOnly bool) bool {
	want := s.roleID(cat, target)
	seen := map[string]bool{}
	var walk func(name string) bool
	walk = func(name string) bool {
		if seen[name] {
			return false
		}
		seen[name] = true
		r, err := cat.Role(name)
		if err != nil || inheritOnly && r.NoInherit {
			return false
		}
		for _, m := range r.MemberOf {
			if m.RoleID == want {
				return true
			}
			if g := cat.RoleByID(m.RoleID); g != nil && walk(g.Name) {
				return true
			}
		}
		return false
	}
	return walk(role)
}

// roleStmt runs CREATE / ALTER / DROP ROLE and GRANT / REVOKE of roles.
func (s *Session) roleStmt(t *txn, rs *parse.RoleStmt) (string, error) {
	tag := strings.ToUpper(rs.Op) + " ROLE" // CREATE USER's tag too
	var err error
	switch rs.Op {
	case "create":
		err = s.createRole(t, rs)
	case "alter":
		err = s.alterRole(t, rs)
	case "rename":
		err = s.renameRole(t, rs)
	case "drop":
		err = s.dropRoles(t, rs)
	case "grant", "revoke":
		if rs.Kind == "group" { // ALTER GROUP ... ADD / DROP USER
			tag = "ALTER ROLE"
			rs = &parse.RoleStmt{Op: rs.Op, Names: rs.Names, Members: rs.Members}
		}
		err = s.grantRoles(t, rs)
	}
	if rs.Op == "rename" || rs.Op == "alter" {
		tag = "ALTER ROLE"
	}
	return tag, err
}

// mayManageRoles checks that the current user may create, alter or drop
// target: a superuser may; a role with CREATEROLE may, unless target is a
// superuser (42501 otherwise).
func (s *Session) mayManageRoles(cat *catalog.Catalog, target *catalog.Role, what string) error {
	me := s.currentRole()
	if s.isSuperuser(cat, me) {
		return nil
	}
	r, err := cat.Role(me)
	if err == nil && r.CreateRole && (target == nil || !target.Superuser) {
		return nil
	}
	if target != nil && target.Superuser {
		return pgerror.Newf(pgerror.InsufficientPrivilege, "must be superuser to %s superusers", what)
	}
	return pgerror.Newf(pgerror.InsufficientPrivilege, "permission denied to %s role", what)
}

func (s *Session) createRole(t *txn, rs *parse.RoleStmt) error {
	name := rs.Names[0]
	cat := t.cat
	if err := catalog.CheckRoleName(name); err != nil {
		return err
	}
	if name == s.bootstrapName(cat) {
		return pgerror.Newf(pgerror.DuplicateObject, "role %q already exists", name)
	}
	r := catalog.Role{Name: name, Login: rs.Kind == "user"}
	var inRoles, members, admins []string
	for _, o := range rs.Options {
		switch o.Name {
		case "in role":
			inRoles = append(inRoles, o.Roles...)
		case "role":
			members = append(members, o.Roles...)
		case "admin":
			admins = append(admins, o.Roles...)
		}
	}
	if err := applyRoleOptions(&r, rs.Options); err != nil {
		return err
	}
	if err := s.mayManageRoles(cat, &r, "create"); err != nil {
		return err
	}
	// Every role named must exist before anything is written.
	for _, n := range slices.Concat(inRoles, members, admins) {
		if _, err := s.resolveRole(cat, n); err != nil {
			return err
		}
	}
	me := s.roleID(cat, s.currentRole())
	for _, n := range inRoles {
		if g, err := cat.Role(n); err == nil {
			r.MemberOf = append(r.MemberOf, catalog.Membership{RoleID: g.ID, GrantorID: me})
		}
	}
	next, err := cat.CreateRole(t.kv, r)
	if err != nil {
		return err
	}
	created, _ := next.Role(name)
	for i, list := range [][]string{members, admins} {
		for _, n := range list {
			m, err := next.Role(n)
			if err != nil {
				continue // the bootstrap superuser: a member of every role already
			}
			nm := *m
			nm.MemberOf = append(slices.Clone(m.MemberOf), catalog.Membership{RoleID: created.ID, GrantorID: me, Admin: i == 1})
			if next, err = next.PutRole(t.kv, nm); err != nil {
				return err
			}
		}
	}
	t.setCatalog(next)
	return nil
}

// applyRoleOptions sets r's attributes from CREATE / ALTER ROLE options:
// 42601 "conflicting or redundant options" when one is given twice.
func applyRoleOptions(r *catalog.Role, opts []parse.RoleOption) error {
	seen := map[string]bool{}
	for _, o := range opts {
		key := strings.TrimPrefix(o.Name, "no")
		if o.Name == "nologin" || o.Name == "noinherit" {
			key = o.Name[2:]
		}
		if seen[key] && key != "in role" && key != "role" && key != "admin" {
			return pgerror.New(pgerror.SyntaxError, "conflicting or redundant options")
		}
		seen[key] = true
		on := !strings.HasPrefix(o.Name, "no")
		switch key {
		case "superuser":
			r.Superuser = on
		case "login":
			r.Login = on
		case "createdb":
			r.CreateDB = on
		case "createrole":
			r.CreateRole = on
		case "inherit":
			r.NoInherit = !on
		case "replication":
			r.Replication = on
		case "bypassrls":
			r.BypassRLS = on
		case "connection limit":
			if o.Limit < -1 || o.Limit > 1<<31-1 {
				return pgerror.Newf(pgerror.InvalidParameterValue, "invalid connection limit: %d", o.Limit)
			}
			r.ConnLimit, r.HasLimit = int(max(o.Limit, 0)), o.Limit >= 0
		case "password":
			switch {
			case o.Null || o.Value == "":
				r.Password = "" // PostgreSQL: an empty password is no password (with a NOTICE)
			default:
				v, err := catalog.ScramVerifier(o.Value)
				if err != nil {
					return err
				}
				r.Password = v
			}
		case "valid until":
			r.ValidUntil = o.Value
		}
	}
	return nil
}

func (s *Session) alterRole(t *txn, rs *parse.RoleStmt) error {
	cat := t.cat
	name, err := s.resolveRole(cat, rs.Names[0])
	if err != nil {
		return err
	}
	old, err := cat.Role(name)
	if err != nil {
		// The bootstrap superuser is not stored: it keeps every attribute
		// and its password lives in the server's configuration.
		for _, o := range rs.Options {
			if strings.HasPrefix(o.Name, "no") && o.Name != "noreplication" && o.Name != "nobypassrls" || o.Name == "password" && !o.Null || o.Name == "connection limit" && o.Limit != -1 || o.Name == "valid until" {
				return pgerror.Newf(pgerror.FeatureNotSupported, "the attributes of the bootstrap superuser %q cannot be changed", name)
			}
		}
		return nil
	}
	r := *old
	if err := applyRoleOptions(&r, rs.Options); err != nil {
		return err
	}
	if err := s.mayManageRoles(cat, old, "alter"); err != nil {
		if me := s.currentRole(); me == name && len(rs.Options) == 1 && rs.Options[0].Name == "password" {
			err = nil // a role may change its own password
		} else {
			return err
		}
	}
	if r.Superuser != old.Superuser && !s.isSuperuser(cat, s.currentRole()) {
		return pgerror.New(pgerror.InsufficientPrivilege, "must be superuser to alter superuser roles or change superuser attribute")
	}
	next, err := cat.PutRole(t.kv, r)
	if err != nil {
		return err
	}
	t.setCatalog(next)
	return nil
}

func (s *Session) renameRole(t *txn, rs *parse.RoleStmt) error {
	cat := t.cat
	name := rs.Names[0]
	if name == s.sessionUser() {
		return pgerror.New(pgerror.FeatureNotSupported, "session user cannot be renamed")
	}
	if name == s.currentRole() {
		return pgerror.New(pgerror.FeatureNotSupported, "current user cannot be renamed")
	}
	old, err := cat.Role(name)
	if err != nil {
		return err
	}
	if err := catalog.CheckRoleName(rs.NewName); err != nil {
		return err
	}
	if _, err := cat.Role(rs.NewName); err == nil || rs.NewName == s.bootstrapName(cat) {
		return pgerror.Newf(pgerror.DuplicateObject, "role %q already exists", rs.NewName)
	}
	if err := s.mayManageRoles(cat, old, "rename"); err != nil {
		return err
	}
	r := *old
	r.Name = rs.NewName
	if r.Password != "" && !strings.HasPrefix(r.Password, "SCRAM-SHA-256$") {
		r.Password = "" // an MD5 password is salted with the name
	}
	next, err := cat.PutRole(t.kv, r)
	if err != nil {
		return err
	}
	next, err = next.RenameRoleRefs(t.kv, name, rs.NewName)
	if err != nil {
		return err
	}
	t.setCatalog(next)
	return nil
}

func (s *Session) dropRoles(t *txn, rs *parse.RoleStmt) error {
	cat := t.cat
	for _, name := range rs.Names {
		r, err := cat.Role(name)
		if err != nil {
			if name == s.bootstrapName(cat) {
				return pgerror.Newf(pgerror.DependentObjectsStillExist, "cannot drop role %s because it is required by the database system", name)
			}
			if rs.IfExists {
				s.notice(pgerror.Newf(pgerror.UndefinedObject, "role %q does not exist, skipping", name))
				continue
			}
			return err
		}
		switch name {
		case s.currentRole():
			return pgerror.New(pgerror.ObjectInUse, "current user cannot be dropped")
		case s.sessionUser():
			return pgerror.New(pgerror.ObjectInUse, "session user cannot be dropped")
		}
		if err := s.mayManageRoles(cat, r, "drop"); err != nil {
			return err
		}
		if deps := cat.RoleDependents(name); len(deps) > 0 {
			e := pgerror.Newf(pgerror.DependentObjectsStillExist, "role %q cannot be dropped because some objects depend on it", name)
			e.Detail = strings.Join(deps, "\n")
			return e
		}
		if cat, err = cat.DropRole(t.kv, name); err != nil {
			return err
		}
	}
	t.setCatalog(cat)
	return nil
}

// grantRoles runs GRANT role TO member and REVOKE role FROM member.
func (s *Session) grantRoles(t *txn, rs *parse.RoleStmt) error {
	cat := t.cat
	me := s.currentRole()
	grantor := s.roleID(cat, me)
	if rs.GrantedBy != "" {
		g, err := s.resolveRole(cat, rs.GrantedBy)
		if err != nil {
			return err
		}
		grantor = s.roleID(cat, g)
	}
	for _, gname := range rs.Names {
		gname, err := s.resolveRole(cat, gname)
		if err != nil {
			return err
		}
		granted, err := cat.Role(gname)
		if err != nil {
			// The bootstrap superuser: PostgreSQL refuses to make it a
			// member of anything ... the other way round.
			return pgerror.Newf(pgerror.InvalidGrantOperation, "role %q cannot have explicit members", gname)
		}
		if err := s.mayAdminRole(cat, me, granted); err != nil {
			return err
		}
		for _, mname := range rs.Members {
			if mname == "public" {
				return pgerror.New(pgerror.UndefinedObject, `role "public" does not exist`)
			}
			mname, err := s.resolveRole(cat, mname)
			if err != nil {
				return err
			}
			member, err := cat.Role(mname)
			if err != nil {
				if rs.Op == "grant" {
					continue // the bootstrap superuser has every role's privileges already
				}
				s.warnNotMember(mname, gname)
				continue
			}
			r := *member
			r.MemberOf = slices.Clone(member.MemberOf)
			i := slices.IndexFunc(r.MemberOf, func(m catalog.Membership) bool { return m.RoleID == granted.ID })
			if rs.Op == "grant" {
				if mname == gname || s.inRole(cat, gname, mname, false) {
					return pgerror.Newf(pgerror.InvalidGrantOperation, "role %q is a member of role %q", gname, mname)
				}
				if i >= 0 {
					if !rs.Admin || r.MemberOf[i].Admin {
						s.notice(pgerror.Newf(pgerror.SuccessfulCompletion, "role %q has already been granted membership in role %q by role %q",
							mname, gname, s.roleNameByID(cat, r.MemberOf[i].GrantorID)))
						continue
					}
					r.MemberOf[i].Admin = true
				} else {
					r.MemberOf = append(r.MemberOf, catalog.Membership{RoleID: granted.ID, GrantorID: grantor, Admin: rs.Admin})
				}
			} else {
				if i < 0 {
					s.warnNotMember(mname, gname)
					continue
				}
				if rs.Admin {
					r.MemberOf[i].Admin = false
				} else {
					r.MemberOf = slices.Delete(r.MemberOf, i, i+1)
				}
			}
			if cat, err = cat.PutRole(t.kv, r); err != nil {
				return err
			}
		}
	}
	t.setCatalog(cat)
	return nil
}

func (s *Session) warnNotMember(member, role string) {
	s.warn("role %q is not a member of role %q", member, role)
}

// mayAdminRole checks that me may grant or revoke membership in role: a
// superuser may, a role with CREATEROLE may for a non-superuser role, a
// member WITH ADMIN OPTION may.
func (s *Session) mayAdminRole(cat *catalog.Catalog, me string, role *catalog.Role) error {
	if s.isSuperuser(cat, me) {
		return nil
	}
	if role.Superuser {
		return pgerror.New(pgerror.InsufficientPrivilege, "must be superuser to alter superusers")
	}
	if r, err := cat.Role(me); err == nil {
		if r.CreateRole {
			return nil
		}
		for _, m := range r.MemberOf {
			if m.RoleID == role.ID && m.Admin {
				return nil
			}
		}
	}
	e := pgerror.Newf(pgerror.InsufficientPrivilege, "permission denied to grant role %q", role.Name)
	e.Detail = "Only roles with the ADMIN option on role \"" + role.Name + "\" may grant this role."
	return e
}

// roleNameByID names the role with that OID (the bootstrap superuser's
// for 10).
func (s *Session) roleNameByID(cat *catalog.Catalog, id uint64) string {
	if r := cat.RoleByID(id); r != nil {
		return r.Name
	}
	return s.bootstrapName(cat)
}

// checkSetRole checks SET ROLE's target: "none", or a role the session
// user is a member of (42501 otherwise); it returns the name to keep.
func (s *Session) checkSetRole(value string) (string, error) {
	if value == "none" || value == "" {
		return "none", nil
	}
	value = strings.Trim(value, `"`)
	cat := s.catalog()
	name, err := s.resolveRole(cat, value)
	if err != nil {
		return "", pgerror.Newf(pgerror.InvalidParameterValue, "role %q does not exist", value)
	}
	if !s.memberOf(cat, s.sessionUser(), name, false) {
		return "", pgerror.Newf(pgerror.InsufficientPrivilege, "permission denied to set role %q", name)
	}
	return name, nil
}

// checkSessionAuthorization checks SET SESSION AUTHORIZATION's target:
// the login user may always return to itself; any other role needs a
// superuser login user.
func (s *Session) checkSessionAuthorization(value string) (string, error) {
	if value == "default" {
		return s.loginName(), nil
	}
	value = strings.Trim(value, `"`)
	cat := s.catalog()
	name, err := s.resolveRole(cat, value)
	if err != nil {
		return "", pgerror.Newf(pgerror.InvalidParameterValue, "role %q does not exist", value)
	}
	if name != s.loginName() && !s.isSuperuser(cat, s.loginName()) {
		return "", pgerror.Newf(pgerror.InsufficientPrivilege, "permission denied to set session authorization")
	}
	return name, nil
}

// setRole is SET [LOCAL] ROLE, SET SESSION AUTHORIZATION and their
// RESETs, kept as the settings role and session_authorization so that a
// transaction's rollback takes them back like any SET. SET SESSION
// AUTHORIZATION also resets the role; is_superuser follows the current
// user.
func (s *Session) setRole(st *parse.SetStmt) (backend.Result, error) {
	name := strings.ToLower(st.Name)
	value := "none"
	if name == "session_authorization" {
		value = s.loginName()
	}
	var err error
	if !st.Reset {
		v := strings.Join(st.Value, "")
		if name == "role" {
			value, err = s.checkSetRole(v)
		} else {
			value, err = s.checkSessionAuthorization(v)
		}
		if err != nil {
			return nil, err
		}
	}
	cat := s.catalog()
	current := value
	if name == "session_authorization" || value == "none" {
		current = s.sessionUser()
		if name == "session_authorization" {
			current = value
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.changeSettingLocked(name, settingVal{text: value}, st.Local)
	if name == "session_authorization" {
		s.changeSettingLocked("role", settingVal{text: "none"}, st.Local)
	}
	s.changeSettingLocked("is_superuser", settingVal{text: onOff(s.isSuperuser(cat, current))}, st.Local)
	tag := "SET"
	if st.Reset {
		tag = "RESET"
	}
	return &staticResult{tag: tag}, nil
}

// roleNameOf is pg_get_userbyid: the name of the role with that OID in
// the catalog the session sees, "unknown (OID=n)" for none.
func (s *Session) roleNameOf(oid int64) string {
	cat := s.catalog()
	if oid == catalog.BootstrapRoleID {
		return s.bootstrapName(cat)
	}
	if r := cat.RoleByID(uint64(oid)); r != nil {
		return r.Name
	}
	return "unknown (OID=" + strconv.FormatInt(oid, 10) + ")"
}

// newOwner is the Owner field of a relation the current user creates: 0
// for the bootstrap superuser, else the role's OID.
func (s *Session) newOwner(cat *catalog.Catalog) uint64 {
	if r, err := cat.Role(s.currentRole()); err == nil {
		return r.ID
	}
	return 0
}

// setOwner is ALTER ... OWNER TO's change once the object is known to
// exist: the new owner must be a role (42704); a non-superuser must own
// the object and be a member of the new owner (42501); tables, views,
// sequences and schemas record the owner.
func (s *Session) setOwner(t *txn, o *parse.OwnerStmt) error {
	cat, db := t.cat, s.database
	role, err := s.resolveRole(cat, o.Role)
	if err != nil {
		return err
	}
	id := s.newOwnerOf(cat, role)
	me := s.currentRole()
	check := func(kind, name string, owner uint64) error {
		if s.isSuperuser(cat, me) {
			return nil
		}
		if !s.memberOf(cat, me, s.roleNameByID(cat, catalog.OwnerID(owner)), true) {
			return pgerror.Newf(pgerror.InsufficientPrivilege, "must be owner of %s %s", kind, name)
		}
		if !s.memberOf(cat, me, role, false) {
			return pgerror.Newf(pgerror.InsufficientPrivilege, "must be able to SET ROLE %q", role)
		}
		return nil
	}
	var next *catalog.Catalog
	switch o.Kind {
	case "schema":
		sc, err := cat.Schema(db, o.Name)
		if err != nil {
			return err
		}
		if err := check("schema", o.Name, s.roleID(cat, sc.Owner)); err != nil {
			return err
		}
		next, err = cat.AlterSchema(t.kv, db, o.Name, func(sc *catalog.Schema) { sc.Owner = role })
		if err != nil {
			return err
		}
	case "database", "index":
		return nil // kvsql keeps no owner of these
	default:
		key := o.Name
		name := catalog.DisplayName(key)
		if tb, err := cat.Table(db, key); err == nil {
			if err := check("table", name, tb.Owner); err != nil {
				return err
			}
			next, err = cat.AlterTable(t.kv, db, key, func(nt *catalog.Table) error { nt.Owner = id; return nil })
			if err != nil {
				return err
			}
		} else if v, err := cat.View(db, key); err == nil {
			if err := check("view", name, v.Owner); err != nil {
				return err
			}
			if next, err = cat.AlterView(t.kv, db, key, func(v *catalog.View) { v.Owner = id }); err != nil {
				return err
			}
		} else if sq, err := cat.Sequence(db, key); err == nil {
			if err := check("sequence", name, sq.Owner); err != nil {
				return err
			}
			ns := *sq
			ns.Owner = id
			if next, err = cat.AlterSequence(t.kv, db, ns); err != nil {
				return err
			}
		} else {
			return nil // a serial column's sequence: its table's owner's
		}
	}
	t.setCatalog(next)
	return nil
}

// newOwnerOf is the Owner field for role (a resolved name).
func (s *Session) newOwnerOf(cat *catalog.Catalog, role string) uint64 {
	if r, err := cat.Role(role); err == nil {
		return r.ID
	}
	return 0
}
