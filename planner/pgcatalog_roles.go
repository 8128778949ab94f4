package planner

import (
	"strconv"

	"github.com/kvsql/kvsql/catalog"
)

// The role relations (pg_roles, pg_authid, pg_user, pg_auth_members) and
// the ACL columns (relacl, nspacl): the bootstrap superuser (OID 10,
// named Planner.Bootstrap), pg_database_owner, and the catalog's roles
// (catalog/role.go).

// bootName is the bootstrap superuser's name in this session.
func (g *vgen) bootName() string {
	if g.boot == "" {
		return "kvsql"
	}
	return g.boot
}

// roleName names a role OID as aclitem and pg_get_userbyid do.
func (g *vgen) roleName(id uint64) string {
	switch id {
	case oidBootstrapRole:
		return g.bootName()
	case oidDatabaseOwnerRole:
		return "pg_database_owner"
	}
	if r := g.cat.RoleByID(id); r != nil {
		return r.Name
	}
	return strconv.FormatUint(id, 10)
}

// acl is an ACL as relacl shows it: NULL for the default.
func (g *vgen) acl(acl []catalog.ACLItem) any {
	if acl == nil {
		return nil
	}
	return catalog.FormatACL(acl, g.roleName)
}

// setRelACL puts acl in the relacl column of pg_class's last row.
func (g *vgen) setRelACL(out [][]Expr, acl []catalog.ACLItem) {
	if acl == nil {
		return
	}
	row := out[len(out)-1]
	row[len(row)-5] = vrow(g.acl(acl))[0]
}

// validUntil is VALID UNTIL as a timestamptz, or NULL.
func validUntil(r *catalog.Role) any {
	if r.ValidUntil == "" {
		return nil
	}
	return &Cast{X: textConst(r.ValidUntil), T: tTSTZ}
}

func pgRoles(g *vgen) [][]Expr {
	out := [][]Expr{
		vrow(g.bootName(), true, true, true, true, true, true, -1, "********", nil, true, nil, oidBootstrapRole),
		vrow("pg_database_owner", false, true, false, false, false, false, -1, "********", nil, false, nil, oidDatabaseOwnerRole),
	}
	for _, r := range g.cat.Roles() {
		out = append(out, vrow(r.Name, r.Superuser, !r.NoInherit, r.CreateRole, r.CreateDB, r.Login, r.Replication,
			r.Limit(), "********", validUntil(r), r.BypassRLS, nil, int64(r.ID)))
	}
	return out
}

func pgAuthid(g *vgen) [][]Expr {
	out := [][]Expr{
		vrow(oidBootstrapRole, g.bootName(), true, true, true, true, true, true, true, -1, nil, nil),
		vrow(oidDatabaseOwnerRole, "pg_database_owner", false, true, false, false, false, false, false, -1, nil, nil),
	}
	for _, r := range g.cat.Roles() {
		var pw any
		if r.Password != "" {
			pw = r.Password
		}
		out = append(out, vrow(int64(r.ID), r.Name, r.Superuser, !r.NoInherit, r.CreateRole, r.CreateDB, r.Login,
			r.Replication, r.BypassRLS, r.Limit(), pw, validUntil(r)))
	}
	return out
}

func pgUser(g *vgen) [][]Expr {
	out := [][]Expr{vrow(g.bootName(), oidBootstrapRole, true, true, true, true, "********", nil, nil)}
	for _, r := range g.cat.Roles() {
		if r.Login {
			out = append(out, vrow(r.Name, int64(r.ID), r.CreateDB, r.Superuser, r.Replication, r.BypassRLS,
				"********", validUntil(r), nil))
		}
	}
	return out
}

func pgAuthMembers(g *vgen) [][]Expr {
	var out [][]Expr
	for _, r := range g.cat.Roles() {
		for _, m := range r.MemberOf {
			out = append(out, vrow(int64(m.RoleID), int64(r.ID), int64(m.GrantorID), m.Admin))
		}
	}
	return out
}
