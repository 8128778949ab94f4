package session

import (
	"context"
	"strings"

	"github.com/kvsql/kvsql/catalog"
	"github.com/kvsql/kvsql/exec"
	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/planner"
	"github.com/kvsql/kvsql/planner/parse"
	"github.com/kvsql/kvsql/types"
	"vitess.io/vitess/go/vt/sqlparser"
)

// The statements pg_dump sends (LOCK TABLE) and writes into its scripts
// (ALTER ... OWNER TO, ALTER COLUMN ... ADD GENERATED AS IDENTITY, ALTER
// TABLE ... ADD CONSTRAINT ... FOREIGN KEY) beyond plain DDL.

// weakLock reports whether a LOCK mode is one a read-only transaction may
// take (PostgreSQL allows up to ROW EXCLUSIVE there).
func weakLock(mode string) bool {
	return mode == "access share" || mode == "row share" || mode == "row exclusive"
}

// lockTables is LOCK TABLE. kvsql has no table locks: a transaction reads
// one snapshot of data and catalog, so the modes that only keep a table's
// definition from changing under a reader (ACCESS SHARE, which pg_dump
// takes, ROW SHARE and ROW EXCLUSIVE) hold already; the stronger ones,
// which would block other writers, are refused. The tables must exist.
func (s *Session) lockTables(t *txn, l *parse.LockStmt) error {
	if s.cur == nil {
		return pgerror.New(pgerror.NoActiveSQLTransaction, "LOCK TABLE can only be used in transaction blocks")
	}
	for _, name := range l.Tables {
		if _, err := t.cat.Table(s.database, name); err != nil {
			if _, verr := t.cat.View(s.database, name); verr == nil {
				continue
			}
			return err
		}
	}
	if !weakLock(l.Mode) {
		return pgerror.Newf(pgerror.FeatureNotSupported, "LOCK TABLE IN %s MODE is not supported (kvsql has no table locks)", strings.ToUpper(l.Mode))
	}
	return nil
}

// alterOwner is ALTER TABLE / SEQUENCE / VIEW / SCHEMA / DATABASE ...
// OWNER TO role (pg_dump -C writes the last): the object must exist,
// then setOwner checks the role and records it.
func (s *Session) alterOwner(t *txn, o *parse.OwnerStmt) error {
	exists := false
	switch o.Kind {
	case "sequence":
		if _, err := t.cat.Sequence(s.database, o.Name); err == nil || t.cat.SerialSequence(s.database, o.Name) != nil {
			exists = true
		} else if !pgerror.HasCode(err, pgerror.UndefinedTable) {
			return err
		}
	case "view":
		if _, err := t.cat.View(s.database, o.Name); err == nil {
			exists = true
		}
	case "database":
		if _, err := t.cat.Database(o.Name); err != nil {
			return err
		}
		exists = true
	case "schema":
		if _, err := t.cat.Schema(s.database, o.Name); err != nil {
			return err
		}
		exists = true
	case "index":
		if _, _, err := t.cat.Index(s.database, o.Name); err == nil {
			exists = true
		} else if !pgerror.HasCode(err, pgerror.UndefinedObject) && !pgerror.HasCode(err, pgerror.UndefinedTable) {
			return err
		}
	default: // ALTER TABLE and ALTER MATERIALIZED VIEW name any relation
		if _, err := t.cat.Table(s.database, o.Name); err == nil {
			exists = true
		} else if _, err := t.cat.View(s.database, o.Name); err == nil {
			exists = true
		} else if _, err := t.cat.Sequence(s.database, o.Name); err == nil || t.cat.SerialSequence(s.database, o.Name) != nil {
			exists = true
		}
	}
	if !exists {
		_, _, name := planner.SplitRef(o.Name)
		if o.IfExists {
			s.notice(pgerror.Newf(pgerror.UndefinedTable, "relation %q does not exist, skipping", name))
			return nil
		}
		return pgerror.Newf(pgerror.UndefinedTable, "relation %q does not exist", name)
	}
	if o.Options && o.Column != "" {
		// A column's storage, statistics target or compression.
		tbl, err := t.cat.Table(s.database, o.Name)
		if err != nil {
			return err
		}
		if i := tbl.ColumnOrdinal(o.Column); i < 0 || tbl.Columns[i].Hidden {
			return columnMissing(o.Column, tbl.Name)
		}
		return nil
	}
	if o.Options {
		return nil // storage parameters: nothing kvsql keeps
	}
	return s.setOwner(t, o) // role.go
}

// addIdentity is ALTER TABLE t ALTER COLUMN c ADD GENERATED ... AS
// IDENTITY: the column becomes a serial column (kvsql's identity), its
// counter at START WITH. Its sequence is the synthetic table_column_seq
// (catalog.SerialSequences); the options it cannot have (another name, an
// increment other than 1, other bounds, CYCLE) are refused.
func (s *Session) addIdentity(t *txn, a *parse.AddIdentityStmt) error {
	tbl, err := t.cat.Table(s.database, a.Table)
	if err != nil {
		return err
	}
	i := tbl.ColumnOrdinal(a.Column)
	if i < 0 || tbl.Columns[i].Hidden {
		return columnMissing(a.Column, a.Table)
	}
	col := tbl.Columns[i]
	typ := ""
	switch col.Type.Family {
	case types.Int2:
		typ = "smallint"
	case types.Int4:
		typ = "integer"
	case types.Int8:
		typ = "bigint"
	default:
		return pgerror.New(pgerror.InvalidParameterValue, "identity column type must be smallint, integer, or bigint")
	}
	switch {
	case col.Serial:
		return pgerror.Newf(pgerror.ObjectNotInPrerequisiteState, "column %q of relation %q is already an identity column", a.Column, a.Table)
	case col.Default != "":
		return pgerror.Newf(pgerror.ObjectNotInPrerequisiteState, "column %q of relation %q already has a default value", a.Column, a.Table)
	case !col.NotNull:
		return pgerror.Newf(pgerror.ObjectNotInPrerequisiteState, "column %q of relation %q must be declared NOT NULL before identity can be added", a.Column, a.Table)
	}
	name := catalog.SerialSequenceName(tbl.Name, a.Column)
	if _, _, seqName := planner.SplitRef(a.SeqName); a.SeqName != "" && seqName != name {
		return pgerror.Newf(pgerror.FeatureNotSupported, "an identity sequence named other than %q is not supported", name)
	}
	o := a.Options
	_, hi, _ := catalog.SequenceTypeBounds(typ)
	switch {
	case o.Type != "" && o.Type != typ:
		return pgerror.Newf(pgerror.FeatureNotSupported, "an identity sequence of a type other than the column's (%s) is not supported", typ)
	case o.Increment != nil && *o.Increment != 1:
		return pgerror.New(pgerror.FeatureNotSupported, "an identity sequence with an increment other than 1 is not supported")
	case o.Min != nil && *o.Min != 1, o.Max != nil && *o.Max != hi:
		return pgerror.New(pgerror.FeatureNotSupported, "an identity sequence with MINVALUE or MAXVALUE is not supported")
	case o.Cycle != nil && *o.Cycle:
		return pgerror.New(pgerror.FeatureNotSupported, "an identity sequence with CYCLE is not supported")
	case o.Start != nil && (*o.Start < 1 || *o.Start > hi):
		return pgerror.Newf(pgerror.InvalidParameterValue, "START value (%d) cannot be less than MINVALUE (1)", *o.Start)
	}
	next, err := t.cat.AlterTable(t.kv, s.database, a.Table, func(nt *catalog.Table) error {
		nt.Columns[i].Serial = true
		nt.Columns[i].IdentityAlways = a.Always
		nt.Columns[i].IdentityByDefault = !a.Always
		return nil
	})
	if err != nil {
		return err
	}
	if o.Start != nil && *o.Start != 1 {
		if err := catalog.WriteSerialCounter(t.kv, tbl.ID, col.ID, *o.Start); err != nil {
			return err
		}
	}
	t.setCatalog(next)
	return nil
}

// addForeignKey is ALTER TABLE t ADD [CONSTRAINT name] FOREIGN KEY (cols)
// REFERENCES parent [(cols)], as pg_dump writes foreign keys: the rows
// already in t must reference existing parent rows (23503 otherwise).
func (s *Session) addForeignKey(ctx context.Context, t *txn, table string, cd *sqlparser.ConstraintDefinition, d *sqlparser.ForeignKeyDefinition, attrs []parse.FKAttrs) error {
	var cols []string
	for _, c := range d.Source {
		cols = append(cols, c.String())
	}
	fk, err := foreignKey(cd.Name.String(), cols, d.ReferenceDefinition, attrs)
	if err != nil {
		return err
	}
	next, err := t.cat.AlterTable(t.kv, s.database, table, func(nt *catalog.Table) error {
		nt.NameForeignKey(&fk)
		nt.ForeignKeys = append(nt.ForeignKeys, fk)
		return nil
	})
	if err != nil {
		return err
	}
	tbl, err := next.Table(s.database, table)
	if err != nil {
		return err
	}
	if err := s.planner(next).CheckForeignKeys(tbl); err != nil {
		return err
	}
	parent, err := next.Table(s.database, fk.RefTable)
	if err != nil {
		return err
	}
	refCols := fk.RefColumns
	if len(refCols) == 0 {
		for _, o := range parent.PrimaryKey {
			refCols = append(refCols, parent.Columns[o].Name)
		}
	}
	// One child row whose key is complete and has no parent row.
	var notNull, isNull, match []string
	for i, c := range cols {
		notNull = append(notNull, "c."+quoteIdent(c)+" IS NOT NULL")
		isNull = append(isNull, "c."+quoteIdent(c)+" IS NULL")
		match = append(match, "p."+quoteIdent(refCols[i])+" = c."+quoteIdent(c))
	}
	t.setCatalog(next)
	name := fk.Name // named by NameForeignKey
	violation := func(detail string) error {
		e := pgerror.Newf(pgerror.ForeignKeyViolation, "insert or update on table %q violates foreign key constraint %q", table, name).OnTable(table)
		e.Detail, e.Constraint = detail, name
		return e
	}
	if fk.Match == "full" && len(cols) > 1 {
		// Under MATCH FULL a key is all NULL or all non-NULL.
		q := "SELECT count(*) FROM " + keySQL(table) + " AS c WHERE NOT (" + strings.Join(notNull, " AND ") +
			") AND NOT (" + strings.Join(isNull, " AND ") + ")"
		n, err := s.evalQuery(ctx, t, q)
		if err != nil {
			return err
		}
		if n.I > 0 {
			return violation("MATCH FULL does not allow mixing of null and nonnull key values.")
		}
	}
	q := "SELECT count(*) FROM " + keySQL(table) + " AS c WHERE " + strings.Join(notNull, " AND ") +
		" AND NOT EXISTS (SELECT 1 FROM " + keySQL(fk.RefTable) + " AS p WHERE " + strings.Join(match, " AND ") + ")"
	n, err := s.evalQuery(ctx, t, q)
	if err != nil {
		return err
	}
	if n.I > 0 {
		return violation("")
	}
	return nil
}

// quoteIdent double-quotes a name unless it is a plain lower-case
// identifier.
func quoteIdent(s string) string { return planner.QuoteIdent(s) }

// evalQuery runs a one-row query in t and returns its first column.
func (s *Session) evalQuery(ctx context.Context, t *txn, q string) (types.Datum, error) {
	st, err := parse.ParseOne(q)
	if err != nil {
		return types.Null, err
	}
	pl := s.planner(t.cat)
	pl.Privilege = nil // the system's own check, as PostgreSQL's RI queries run as the owner
	plan, _, err := pl.Plan(&st, nil)
	if err != nil {
		return types.Null, err
	}
	op, err := exec.Build(s.execCtx(ctx, t, nil), plan)
	if err != nil {
		return types.Null, err
	}
	defer op.Close()
	row, err := op.Next()
	if err != nil || row == nil {
		return types.Null, err
	}
	return row[0], nil
}

// addUniqueConstraint is ALTER TABLE t ADD [CONSTRAINT name] UNIQUE
// (cols): a unique index marked as made by a constraint, named name or,
// without one, PostgreSQL's t_col1_col2_key.
func (s *Session) addUniqueConstraint(t *txn, p *parse.Statement, table string, id *sqlparser.IndexDefinition, attrs parse.FKAttrs) error {
	def := *id
	name := id.Info.ConstraintName.String()
	if name == "" {
		parts := []string{table}
		for _, c := range id.Columns {
			parts = append(parts, c.Column.String())
		}
		parts = append(parts, attrs.Include...) // PostgreSQL names the included columns too
		name = strings.Join(append(parts, "key"), "_")
	}
	def.Info = &sqlparser.IndexInfo{Type: sqlparser.IndexTypeUnique, Name: sqlparser.NewIdentifierCI(name)}
	pc := *p
	pc.IndexNullsNotDistinct = attrs.NullsNotDistinct
	pc.IndexInclude, pc.IndexConstraint = attrs.Include, true
	if err := s.createIndex(t, &pc, table, &def); err != nil {
		return err
	}
	next, err := t.cat.AlterTable(t.kv, s.database, table, func(nt *catalog.Table) error {
		for i, idx := range nt.Indexes {
			if idx.Name == name {
				c := *idx // indexes are shared with older catalogs: copy
				c.Constraint, c.Deferrable = true, attrs.Deferrable
				nt.Indexes[i] = &c
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	t.setCatalog(next)
	return nil
}
