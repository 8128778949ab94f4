package catalog

import (
	"testing"

	"github.com/kvsql/kvsql/kv"
	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/types"
)

// TestEnumColumns checks that the columns of an enum type carry the
// type's current labels: after CREATE TABLE, after ADD VALUE BEFORE and
// RENAME VALUE (which keep every existing key), after reloading the
// catalog from the store and after a document round trip.
func TestEnumColumns(t *testing.T) {
	e := kv.NewMemory()
	defer e.Close()
	c, err := Open(e)
	if err != nil {
		t.Fatal(err)
	}
	labels, err := NewEnumLabels([]string{"sad", "ok", "happy"})
	if err != nil {
		t.Fatal(err)
	}
	c = applyDDL(t, e, func(w kv.Writer) (*Catalog, error) {
		n, _, err := c.CreateUserType(w, DefaultDatabase, UserType{Name: "mood", Kind: "e", Labels: labels})
		return n, err
	})
	u := c.UserType(DefaultDatabase, "mood")
	c = applyDDL(t, e, func(w kv.Writer) (*Catalog, error) {
		return c.CreateTable(w, DefaultDatabase, TableDef{Name: "feel", PrimaryKey: []string{"m"},
			Columns: []Column{{Name: "m", Type: types.EnumOf(u.Enum())}, {Name: "ms", Type: types.ArrayOf(types.EnumOf(u.Enum()))}}})
	})
	okKey, _ := u.Enum().Key("ok")

	ls, err := AddEnumLabel(u, "meh", "ok", true)
	if err != nil {
		t.Fatal(err)
	}
	nu := *u
	nu.Labels = ls
	c = applyDDL(t, e, func(w kv.Writer) (*Catalog, error) { return c.ReplaceUserType(w, DefaultDatabase, nu) })
	u = c.UserType(DefaultDatabase, "mood")
	if ls, err = RenameEnumLabel(u, "ok", "fine"); err != nil {
		t.Fatal(err)
	}
	nu = *u
	nu.Labels = ls
	c = applyDDL(t, e, func(w kv.Writer) (*Catalog, error) { return c.ReplaceUserType(w, DefaultDatabase, nu) })

	check := func(what string, c *Catalog) {
		t.Helper()
		tbl, err := c.Table(DefaultDatabase, "feel")
		if err != nil {
			t.Fatal(err)
		}
		for _, col := range tbl.Columns {
			en := col.Type.Enum
			if en == nil {
				t.Fatalf("%s: column %s has no enum type", what, col.Name)
			}
			want := []string{"sad", "meh", "fine", "happy"}
			if len(en.Labels) != len(want) {
				t.Fatalf("%s: labels %q, want %q", what, en.Labels, want)
			}
			for i, l := range want {
				if en.Labels[i] != l {
					t.Fatalf("%s: labels %q, want %q", what, en.Labels, want)
				}
			}
			if k, _ := en.Key("fine"); k != okKey {
				t.Fatalf("%s: RENAME VALUE changed the key %x to %x", what, okKey, k)
			}
			if en.OID != uint32(c.UserType(DefaultDatabase, "mood").OID()) || col.Type.OID() == 0 {
				t.Fatalf("%s: enum OID %d", what, en.OID)
			}
		}
	}
	check("altered", c)
	loaded, err := Load(e)
	if err != nil {
		t.Fatal(err)
	}
	check("reloaded", loaded)
	doc, err := ExportJSON(c)
	if err != nil {
		t.Fatal(err)
	}
	imported, err := ImportJSON(doc)
	if err != nil {
		t.Fatalf("%v\n%s", err, doc)
	}
	check("imported", imported)
}

// TestEnumLabelErrors checks the labels PostgreSQL refuses.
func TestEnumLabelErrors(t *testing.T) {
	long := string(make([]byte, MaxEnumLabel+1))
	for _, tc := range []struct {
		labels []string
		code   pgerror.Code
	}{
		{[]string{"a", "b", "a"}, pgerror.UniqueViolation},
		{[]string{long}, codeInvalidName},
	} {
		if _, err := NewEnumLabels(tc.labels); !pgerror.HasCode(err, tc.code) {
			t.Errorf("NewEnumLabels(%q) = %v, want %s", tc.labels, err, tc.code)
		}
	}
	ls, err := NewEnumLabels([]string{"", "x"}) // an empty label is allowed, as in PostgreSQL 15
	if err != nil || len(ls) != 2 {
		t.Fatalf("NewEnumLabels with an empty label: %v", err)
	}
	u := &UserType{Name: "e", Kind: "e", Labels: ls}
	if _, err := AddEnumLabel(u, "x", "", false); !pgerror.HasCode(err, pgerror.DuplicateObject) {
		t.Errorf("ADD VALUE of an existing label: %v", err)
	}
	if _, err := AddEnumLabel(u, "y", "nope", true); !pgerror.HasCode(err, pgerror.InvalidParameterValue) {
		t.Errorf("ADD VALUE BEFORE a missing label: %v", err)
	}
	if _, err := RenameEnumLabel(u, "nope", "z"); !pgerror.HasCode(err, pgerror.InvalidParameterValue) {
		t.Errorf("RENAME VALUE of a missing label: %v", err)
	}
	if _, err := RenameEnumLabel(u, "", "x"); !pgerror.HasCode(err, pgerror.DuplicateObject) {
		t.Errorf("RENAME VALUE to an existing label: %v", err)
	}
}
