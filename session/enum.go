package session

import (
	"fmt"

	"github.com/kvsql/kvsql/catalog"
	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/planner/parse"
)

// createEnum runs CREATE TYPE name AS ENUM ('label', ...).
func (s *Session) createEnum(t *txn, ts *parse.TypeStmt) error {
	key, err := newTypeKey(s.planner(t.cat), ts.Names[0])
	if err != nil {
		return err
	}
	labels, err := catalog.NewEnumLabels(ts.Labels)
	if err != nil {
		return err
	}
	schema, name := catalog.SplitRelKey(key)
	u := catalog.UserType{Name: name, Schema: schemaOf(schema), Kind: "e", Labels: labels}
	next, _, err := t.cat.CreateUserType(t.kv, s.database, u)
	if err != nil {
		return err
	}
	t.setCatalog(next)
	return nil
}

// alterEnum runs ALTER TYPE's ADD VALUE and RENAME VALUE on the enum u,
// and RENAME TO on any type; ok is false for the other actions. Stored
// values hold sort keys, which neither action changes: no table is
// rewritten.
func (s *Session) alterEnum(t *txn, u *catalog.UserType, ts *parse.TypeStmt) (ok bool, err error) {
	switch ts.Alter {
	case "owner":
		return true, nil
	case "add value", "rename value":
		if u.Kind != "e" {
			return true, pgerror.Newf(pgerror.WrongObjectType, "%s is not an enum", u.Name)
		}
	case "rename":
		if ts.Domain != (u.Kind == "d") {
			return true, pgerror.Newf(pgerror.WrongObjectType, "%s is not a domain", u.Name)
		}
		next, err := t.cat.RenameUserType(t.kv, s.database, u.Key(), ts.NewName)
		if err == nil {
			t.setCatalog(next)
		}
		return true, err
	default:
		return false, nil
	}
	nu := *u
	if ts.Alter == "add value" {
		nu.Labels, err = catalog.AddEnumLabel(u, ts.Label, ts.Neighbor, ts.Before)
		if err != nil && ts.IfNotExists && pgerror.HasCode(err, pgerror.DuplicateObject) {
			s.notice(pgerror.Newf(pgerror.DuplicateObject, "enum label %q already exists, skipping", ts.Label))
			return true, nil
		}
	} else {
		nu.Labels, err = catalog.RenameEnumLabel(u, ts.Label, ts.NewName)
	}
	if err != nil {
		return true, err
	}
	next, err := t.cat.ReplaceUserType(t.kv, s.database, nu)
	if err != nil {
		return true, err
	}
	t.setCatalog(next)
	return true, nil
}

// columnDependents lists, as PostgreSQL's DETAIL lines do, the table
// columns that have the enum, domain or composite type u (or an array of
// it) as their type.
func (s *Session) columnDependents(t *txn, u *catalog.UserType) ([]string, error) {

	tables, err := t.cat.Tables(s.database)
	if err != nil {
		return nil, err
	}
	var lines []string
	for _, tbl := range tables {
		for _, c := range tbl.Columns {
			_, enum := catalog.UsesEnum(&catalog.Table{Columns: []catalog.Column{c}}, u.OID())
			if enum && u.Kind == "e" || u.Kind == "d" && uint64(c.Domain) == u.OID() || u.Kind == "c" && uint64(c.Composite) == u.OID() {
				typ := u.Name
				if c.Type.IsArray() && u.Kind == "c" {
					typ += "[]"
				}
				lines = append(lines, fmt.Sprintf("column %s of table %s depends on type %s", c.Name, tbl.Name, typ))
			}
		}
	}
	return lines, nil
}
