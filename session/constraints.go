package session

import (
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
