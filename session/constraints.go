package session

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/kvsql/kvsql/catalog"
	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/planner/parse"
	"vitess.io/vitess/go/vt/sqlparser"
)

// Constraint clauses as the dialect layer delivers them: vitess's
// REFERENCES and key definitions, plus what vitess has no grammar for
// (DEFERRABLE, INITIALLY DEFERRED, ON DELETE SET NULL | SET DEFAULT's
// column list, NULLS NOT DISTINCT) in Statement.FKAttrs, named by a
// marker column in the constraint's column list (parse.MarkerFKAttrs).

// foreignKey converts a REFERENCES clause; attrs are the statement's
// constraint attributes, which the clause's marker column indexes.
func foreignKey(name string, cols []string, ref *sqlparser.ReferenceDefinition, attrs []parse.FKAttrs) (catalog.ForeignKey, error) {
	fk := catalog.ForeignKey{Name: name, Columns: cols, RefTable: ref.ReferencedTable.Name.String()}
	actions := map[sqlparser.ReferenceAction]string{sqlparser.Restrict: "restrict", sqlparser.Cascade: "cascade",
		sqlparser.SetNull: "set null", sqlparser.SetDefault: "set default"}
	fk.OnUpdate, fk.OnDelete = actions[ref.OnUpdate], actions[ref.OnDelete]
	if ref.Match == sqlparser.Full {
		fk.Match = "full"
	}
	for _, c := range ref.ReferencedColumns {
		switch c.String() {
		case parse.MarkerPrimaryKey:
			continue // REFERENCES t: its primary key
		}
		if a, ok := conAttrs(c.String(), attrs); ok {
			fk.Deferrable, fk.InitiallyDeferred = a.Deferrable, a.InitiallyDeferred
			if a.DeleteSetColumns != nil {
				if err := deleteSetColumns(&fk, a.DeleteSetColumns); err != nil {
					return fk, err
				}
			}
			continue
		}
		fk.RefColumns = append(fk.RefColumns, c.String())
	}
	return fk, nil
}

// uniqueAttrs takes the constraint-attribute marker out of a UNIQUE or
// PRIMARY KEY constraint's column list and returns its attributes. Such
// a constraint is checked as each row is written: DEFERRABLE (INITIALLY
// IMMEDIATE) is recorded, and changes nothing a statement that leaves
// no duplicate behind can see; INITIALLY DEFERRED is refused (0A000)
// rather than checked too early.
func uniqueAttrs(id *sqlparser.IndexDefinition, attrs []parse.FKAttrs) (parse.FKAttrs, error) {
	for i, ic := range id.Columns {
		if ic.Expression != nil {
			continue
		}
		a, ok := conAttrs(ic.Column.String(), attrs)
		if !ok {
			continue
		}
		id.Columns = append(id.Columns[:i:i], id.Columns[i+1:]...)
		if a.InitiallyDeferred {
			return a, pgerror.New(pgerror.FeatureNotSupported, "INITIALLY DEFERRED unique constraints are not supported")
		}
		if a.NullsNotDistinct && id.Info.Type == sqlparser.IndexTypePrimary {
			return a, pgerror.New(pgerror.SyntaxError, "PRIMARY KEY constraints cannot be marked NULLS NOT DISTINCT")
		}
		return a, nil
	}
	return parse.FKAttrs{}, nil
}

// conAttrs returns the attributes a marker column (parse.MarkerFKAttrs
// followed by an index) names; ok is false for any other column.
func conAttrs(col string, attrs []parse.FKAttrs) (parse.FKAttrs, bool) {
	rest, ok := strings.CutPrefix(col, parse.MarkerFKAttrs)
	if !ok {
		return parse.FKAttrs{}, false
	}
	i, err := strconv.Atoi(rest)
	if err != nil || i < 0 || i >= len(attrs) {
		return parse.FKAttrs{}, false
	}
	return attrs[i], true
}

// deleteSetColumns records ON DELETE SET NULL | SET DEFAULT (cols);
// planner.CheckForeignKeys checks that each is one of the key's columns.
func deleteSetColumns(fk *catalog.ForeignKey, cols []string) error {
	if fk.OnDelete != "set null" && fk.OnDelete != "set default" {
		return pgerror.New(pgerror.SyntaxError, "a column list is only allowed with ON DELETE SET NULL or SET DEFAULT")
	}
	fk.DeleteSetColumns = cols
	return nil
}

// alterConstraint is ALTER TABLE table ALTER CONSTRAINT: it changes a
// foreign key's DEFERRABLE and INITIALLY DEFERRED. Another kind of
// constraint is 42809, an unknown name 42704, as in PostgreSQL.
func (s *Session) alterConstraint(t *txn, table string, a *parse.AlterConstraint) error {
	tbl, err := t.cat.Table(s.database, table)
	if err != nil {
		return err
	}
	for i, fk := range tbl.ForeignKeys {
		if catalog.ForeignKeyName(tbl, fk) != a.Name {
			continue
		}
		return s.alterCatalogTable(t, table, func(nt *catalog.Table) {
			nt.ForeignKeys = append([]catalog.ForeignKey(nil), nt.ForeignKeys...)
			nt.ForeignKeys[i].Deferrable, nt.ForeignKeys[i].InitiallyDeferred = a.Deferrable, a.InitiallyDeferred
		})
	}
	if tbl.PrimaryKeyName == a.Name && !tbl.HiddenRowID || tbl.IndexByName(a.Name) != nil || slices.ContainsFunc(tbl.Checks, func(c catalog.Check) bool { return c.Name == a.Name }) {
		return pgerror.Newf(pgerror.WrongObjectType, "constraint %q of relation %q is not a foreign key constraint", a.Name, tbl.Name)
	}
	return pgerror.Newf(pgerror.UndefinedObject, "constraint %q of relation %q does not exist", a.Name, tbl.Name)
}

// dropConstraint runs ALTER TABLE t DROP CONSTRAINT name: a CHECK
// constraint, a foreign key, or a UNIQUE constraint (with the index
// behind it) leaves t and, unless ONLY, every table that inherits it or
// is its partition and has a constraint of that name. A UNIQUE
// constraint that foreign keys reference goes only with CASCADE, which
// drops those foreign keys (2BP01 otherwise), as PostgreSQL does. The
// primary key is the key of kvsql's rows: dropping it is refused.
func (s *Session) dropConstraint(t *txn, d *parse.DropConstraintStmt) error {
	tbl, err := t.cat.Table(s.database, d.Table)
	if err != nil {
		if d.TableIfExists && pgerror.HasCode(err, pgerror.UndefinedTable) {
			_, name := catalog.SplitRelKey(d.Table)
			s.notice(pgerror.Newf(pgerror.SuccessfulCompletion, "relation %q does not exist, skipping", name))
			return nil
		}
		return err
	}
	if !tbl.HasConstraint(d.Name) {
		e := pgerror.Newf(pgerror.UndefinedObject, "constraint %q of relation %q does not exist", d.Name, tbl.Name)
		if d.IfExists {
			e.Message += ", skipping"
			s.notice(e)
			return nil
		}
		return e
	}
	targets := []*catalog.Table{tbl}
	if !d.Only {
		targets = append(targets, t.cat.Descendants(s.database, tbl.Key())...)
	}
	for _, target := range targets {
		// Each step works on the catalog the last one left.
		cur, err := t.cat.Table(s.database, target.Key())
		if err != nil {
			return err
		}
		if err := s.dropOneConstraint(t, cur, d.Name, d.Cascade); err != nil {
			return err
		}
	}
	return nil
}

// dropOneConstraint drops tbl's constraint name, if it has one.
func (s *Session) dropOneConstraint(t *txn, tbl *catalog.Table, name string, cascade bool) error {
	if tbl.PrimaryKeyName == name && len(tbl.PrimaryKey) > 0 {
		return pgerror.Newf(pgerror.FeatureNotSupported, "dropping the primary key %q of %q is not supported: it is the key of the table's rows", name, tbl.Name)
	}
	if slices.ContainsFunc(tbl.Checks, func(c catalog.Check) bool { return c.Name == name }) {
		next, err := t.cat.AlterTable(t.kv, s.database, tbl.Key(), func(nt *catalog.Table) error {
			nt.Checks = slices.DeleteFunc(nt.Checks, func(c catalog.Check) bool { return c.Name == name })
			return nil
		})
		if err != nil {
			return err
		}
		t.setCatalog(next)
		return nil
	}
	for _, fk := range tbl.ForeignKeys {
		if catalog.ForeignKeyName(tbl, fk) == name {
			next, err := t.cat.DropForeignKey(t.kv, s.database, tbl.Key(), fk)
			if err != nil {
				return err
			}
			t.setCatalog(next)
			return nil
		}
	}
	idx := tbl.IndexByName(name)
	if idx == nil || !idx.Constraint {
		return nil // a child without it
	}
	cols := make([]string, len(idx.Columns))
	for i, o := range idx.Columns {
		cols[i] = tbl.Columns[o].Name
	}
	cat, err := s.dropReferencesTo(t, t.cat, tbl, name, cols, cascade)
	if err != nil {
		return err
	}
	next, err := cat.DropIndex(t.kv, s.database, catalog.RelKey(tbl.Schema, name))
	if err != nil {
		return err
	}
	t.setCatalog(next)
	return nil
}

// dropReferencesTo lets the unique constraint name on cols of tbl go
// ahead of the foreign keys that reference those columns: refused
// (2BP01) unless cascade, which drops them.
func (s *Session) dropReferencesTo(t *txn, cat *catalog.Catalog, tbl *catalog.Table, name string, cols []string, cascade bool) (*catalog.Catalog, error) {
	tables, err := cat.Tables(s.database)
	if err != nil {
		return cat, err
	}
	for _, child := range tables {
		for _, fk := range child.ForeignKeys {
			if fk.RefTable != tbl.Key() || !sameColumnSet(fk.RefColumns, cols) {
				continue
			}
			if !cascade {
				e := pgerror.Newf(pgerror.DependentObjectsStillExist, "cannot drop constraint %s on table %s because other objects depend on it", name, tbl.Name)
				e.Detail = fmt.Sprintf("constraint %s on table %s depends on index %s", catalog.ForeignKeyName(child, fk), child.Name, name)
				e.Hint = "Use DROP ... CASCADE to drop the dependent objects too."
				return cat, e
			}
			s.notice(pgerror.Newf(pgerror.SuccessfulCompletion, "drop cascades to constraint %s on table %s", catalog.ForeignKeyName(child, fk), child.Name))
			if cat, err = cat.DropForeignKey(t.kv, s.database, child.Key(), fk); err != nil {
				return cat, err
			}
		}
	}
	return cat, nil
}

// sameColumnSet reports whether a and b name the same columns in any order.
func sameColumnSet(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for _, x := range a {
		if !slices.Contains(b, x) {
			return false
		}
	}
	return true
}

// addChecks adds ALTER TABLE's CHECK constraints (ADD CONSTRAINT ...
// CHECK, or a CHECK on an added column) to table and, unless only or NO
// INHERIT, to every table below it, named as CREATE TABLE names them.
// The rows already there must pass (23514 otherwise), unless NOT VALID.
func (s *Session) addChecks(ctx context.Context, t *txn, table string, checks []parse.CheckDef, only bool) error {
	tbl, err := t.cat.Table(s.database, table)
	if err != nil {
		return err
	}
	targets := []*catalog.Table{tbl}
	if !only {
		targets = append(targets, t.cat.Descendants(s.database, tbl.Key())...)
	}
	var added []string
	for _, c := range checks {
		name := c.Name
		if name == "" {
			col := c.Column
			if cols := checkColumns(c.Expr); col == "" && len(cols) == 1 {
				col = cols[0]
			}
			name = catalog.ChooseName(tbl.Name, col, "check", func(n string) bool { return tbl.HasConstraint(n) || slices.Contains(added, n) })
		} else if tbl.HasConstraint(name) || slices.Contains(added, name) {
			return pgerror.Newf(pgerror.DuplicateObject, "constraint %q for relation %q already exists", name, tbl.Name)
		}
		added = append(added, name)
		if only && !c.NoInherit && len(t.cat.Children(s.database, tbl.Key())) > 0 {
			return pgerror.New(pgerror.InvalidTableDefinition, "constraint must be added to child tables too")
		}
		for i, target := range targets {
			if i > 0 && (c.NoInherit || target.HasConstraint(name)) {
				continue
			}
			if err := s.addCheck(ctx, t, target.Key(), catalog.Check{Name: name, Expr: c.Expr, NoInherit: c.NoInherit}, c.NotValid); err != nil {
				return err
			}
		}
	}
	return nil
}

// addCheck adds check to the table keyed key after binding it and, unless
// notValid, finding no row of that table alone that it rejects.
func (s *Session) addCheck(ctx context.Context, t *txn, key string, check catalog.Check, notValid bool) error {
	tbl, err := t.cat.Table(s.database, key)
	if err != nil {
		return err
	}
	if err := s.planner(t.cat).BindCheck(tbl, check.Expr); err != nil {
		return err
	}
	if !notValid {
		q := fmt.Sprintf("SELECT EXISTS (SELECT 1 FROM ONLY %s WHERE NOT (%s))", quotedKey(tbl), check.Expr)
		bad, err := s.evalQuery(ctx, t, q)
		if err != nil {
			return err
		}
		if bad.Bool() {
			e := pgerror.Newf(pgerror.CheckViolation, "check constraint %q of relation %q is violated by some row", check.Name, tbl.Name).OnTable(tbl.Name)
			e.Constraint = check.Name
			return e
		}
	}
	next, err := t.cat.AlterTable(t.kv, s.database, key, func(nt *catalog.Table) error {
		nt.Checks = append(nt.Checks, check)
		return nil
	})
	if err != nil {
		return err
	}
	t.setCatalog(next)
	return nil
}

// quotedKey is t's schema-qualified name, quoted for SQL text.
func quotedKey(t *catalog.Table) string {
	return catalog.QuoteIdent(catalog.SchemaName(t.Schema)) + "." + catalog.QuoteIdent(t.Name)
}
