package catalog

import (
	"reflect"
	"strings"
	"testing"

	"github.com/kvsql/kvsql/kv"
	"github.com/kvsql/kvsql/pgerror"
)

// TestRoles checks that roles and their memberships survive a reload
// and an export and import in both document forms, that a rename keeps
// memberships (they name OIDs) and schema owners, and the errors of
// CreateRole and DropRole.
func TestRoles(t *testing.T) {
	e := kv.NewMemory()
	c, err := Open(e)
	if err != nil {
		t.Fatal(err)
	}
	c = applyDDL(t, e, func(w kv.Writer) (*Catalog, error) { return c.CreateRole(w, Role{Name: "readers"}) })
	readers, _ := c.Role("readers")
	c = applyDDL(t, e, func(w kv.Writer) (*Catalog, error) {
		return c.CreateRole(w, Role{Name: "alice", Login: true, ConnLimit: 3, HasLimit: true, Password: "SCRAM-SHA-256$4096:x$y:z",
			MemberOf: []Membership{{RoleID: readers.ID, GrantorID: BootstrapRoleID, Admin: true}}})
	})
	if _, err := c.CreateRole(e.NewBatch(), Role{Name: "alice"}); !pgerror.HasCode(err, pgerror.DuplicateObject) {
		t.Fatalf("second alice: %v", err)
	}
	if _, err := c.CreateRole(e.NewBatch(), Role{Name: "pg_x"}); !pgerror.HasCode(err, pgerror.ReservedName) {
		t.Fatalf("pg_x: %v", err)
	}
	c = applyDDL(t, e, func(w kv.Writer) (*Catalog, error) {
		return c.CreateSchema(w, DefaultDatabase, Schema{Name: "s", Owner: "readers"})
	})
	if deps := c.RoleDependents("readers"); len(deps) != 1 || deps[0] != "owner of schema s" {
		t.Fatalf("dependents of readers: %q", deps)
	}
	r := *readers
	r.Name = "staff"
	c = applyDDL(t, e, func(w kv.Writer) (*Catalog, error) {
		n, err := c.PutRole(w, r)
		if err != nil {
			return nil, err
		}
		return n.RenameRoleRefs(w, "readers", "staff")
	})
	loaded, err := Load(e)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(loaded.Roles(), c.Roles()) {
		t.Fatalf("reloaded roles %+v, want %+v", loaded.Roles(), c.Roles())
	}
	if s, _ := loaded.Schema(DefaultDatabase, "s"); s == nil || s.Owner != "staff" {
		t.Fatalf("schema s after the rename: %+v", s)
	}
	alice, _ := loaded.Role("alice")
	if len(alice.MemberOf) != 1 || loaded.RoleByID(alice.MemberOf[0].RoleID).Name != "staff" || alice.Limit() != 3 {
		t.Fatalf("alice: %+v", alice)
	}
	for _, f := range []struct {
		name string
		exp  func(*Catalog) ([]byte, error)
		imp  func([]byte) (*Catalog, error)
	}{{"xml", ExportXML, ImportXML}, {"json", ExportJSON, ImportJSON}} {
		doc, err := f.exp(loaded)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(doc), "alice") {
			t.Fatalf("%s export lacks the role:\n%s", f.name, doc)
		}
		back, err := f.imp(doc)
		if err != nil {
			t.Fatalf("%s import: %v", f.name, err)
		}
		if !reflect.DeepEqual(back.Roles(), loaded.Roles()) {
			t.Errorf("%s round trip: %+v, want %+v", f.name, back.Roles(), loaded.Roles())
		}
	}
	c = applyDDL(t, e, func(w kv.Writer) (*Catalog, error) { return loaded.DropRole(w, "staff") })
	if a, _ := c.Role("alice"); len(a.MemberOf) != 0 {
		t.Fatalf("alice still in a dropped role: %+v", a)
	}
	if _, err := c.DropRole(e.NewBatch(), "staff"); !pgerror.HasCode(err, pgerror.UndefinedObject) {
		t.Fatalf("dropping staff twice: %v", err)
	}
}

// TestACLFormat checks aclitem's text form: PUBLIC as an empty grantee,
// * for the grant option, quoted names, and that revoking everything
// leaves an empty ACL, not the default.
func TestACLFormat(t *testing.T) {
	names := map[uint64]string{10: "postgres", 100: "a b"}
	name := func(id uint64) string { return names[id] }
	acl := DefaultACL("table", 10)
	acl = GrantACL(acl, 100, 10, "r", true)
	acl = GrantACL(acl, 0, 10, "wa", false)
	got := strings.Join(FormatACL(acl, name), ",")
	if want := `postgres=arwdDxt/postgres,"a b"=r*/postgres,=aw/postgres`; got != want {
		t.Fatalf("acl %s, want %s", got, want)
	}
	if !ACLHas(acl, []uint64{100}, 'r') || ACLHas(acl, []uint64{100}, 'd') || !ACLHas(acl, nil, 'a') {
		t.Fatal("ACLHas")
	}
	for _, id := range []uint64{10, 100, 0} {
		acl = RevokeACL(acl, id, 10, AllPrivileges["table"], false)
	}
	if acl == nil || len(acl) != 0 {
		t.Fatalf("all revoked: %#v", acl)
	}
}
