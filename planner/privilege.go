package planner

import (
	"github.com/kvsql/kvsql/catalog"
)

// Privilege checks (docs/privileges.md, "Roles and privileges"). The
// session sets Planner.Privilege when the current user is not a
// superuser; binding a relation then checks USAGE on its schema and the
// privilege the statement needs on it: SELECT to read, INSERT, UPDATE or
// DELETE on a DML target. A view's query is checked as the view's owner
// (Planner.AsRole), as PostgreSQL does.

// PrivilegeCheck reports whether role (0: the current user) holds
// privilege letter priv (catalog.ACLLetters) on an object of kind
// ("table", "view", "sequence", "schema") owned by owner with ACL acl
// (nil: the default); its error is PostgreSQL's 42501.
type PrivilegeCheck func(role uint64, kind, name string, owner uint64, acl []catalog.ACLItem, priv byte) error

// checkRelation checks priv on a relation of schema and USAGE on the
// schema.
func (b *binder) checkRelation(kind, key string, owner uint64, acl []catalog.ACLItem, priv byte) error {
	check := b.p.Privilege
	if check == nil {
		return nil
	}
	schema, _ := catalog.SplitRelKey(key)
	if sc, err := b.p.Catalog.Schema(b.p.DB, schema); err == nil && !sc.Temp {
		owner, sacl := b.p.Catalog.SchemaOwnerACL(sc)
		if err := check(b.p.AsRole, "schema", sc.Name, owner, sacl, 'U'); err != nil {
			return err
		}
	}
	return check(b.p.AsRole, kind, catalog.DisplayName(key), catalog.OwnerID(owner), acl, priv)
}

// checkTable checks priv on table t.
func (b *binder) checkTable(t *catalog.Table, priv byte) error {
	kind := "table"
	if t.MatView != "" {
		kind = "materialized view"
	}
	return b.checkRelation(kind, t.Key(), t.Owner, t.ACL, priv)
}

// checkSequenceUse checks a sequence function's privilege on a sequence
// named by a constant: nextval needs USAGE or UPDATE, currval SELECT or
// USAGE, setval UPDATE. (A serial column's sequence, which cannot be
// granted on, is left unchecked.)
func (b *binder) checkSequenceUse(fn, key string, seq *catalog.Sequence) error {
	if b.p.Privilege == nil {
		return nil
	}
	privs := ""
	switch fn {
	case "nextval":
		privs = "Uw"
	case "currval":
		privs = "rU"
	case "setval":
		privs = "w"
	}
	var err error
	for i := 0; i < len(privs); i++ {
		if err = b.checkRelation("sequence", key, seq.Owner, seq.ACL, privs[i]); err == nil {
			return nil
		}
	}
	return err
}

// checkTarget checks priv on a DML target: the table itself or, written
// through an automatically updatable view (uv, viewdml.go), the view for
// the current user and the base table for the view's owner, as
// PostgreSQL's rewriter checks a view's base relation as its owner.
func (b *binder) checkTarget(t *catalog.Table, uv *updatableView, priv byte) error {
	if uv == nil {
		return b.checkTable(t, priv)
	}
	v := uv.view
	if err := b.checkRelation("view", v.Key(), v.Owner, v.ACL, priv); err != nil {
		return err
	}
	saved := b.p.AsRole
	b.p.AsRole = catalog.OwnerID(v.Owner)
	defer func() { b.p.AsRole = saved }()
	return b.checkTable(t, priv)
}
