package session

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/kvsql/kvsql/catalog"
	"github.com/kvsql/kvsql/index"
	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/planner"
	"github.com/kvsql/kvsql/planner/parse"
	"github.com/kvsql/kvsql/types"
	"github.com/kvsql/kvsql/wire/backend"
	"vitess.io/vitess/go/vt/sqlparser"
)

// ddl runs a schema statement in the session's transaction (or its own):
// the catalog change and the data it touches commit in one batch.
func (s *Session) ddl(ctx context.Context, p *parse.Statement) (backend.Result, error) {
	if p.Database != nil {
		return s.databaseStmt(p.Database)
	}
	if p.Vacuum != nil {
		return s.vacuum(p.Vacuum)
	}
	var tag string
	err := s.inTxn(func(t *txn) error {
		var err error
		tag, err = s.ddlIn(ctx, t, p)
		return err
	})
	if err != nil {
		return nil, err
	}
	return &staticResult{tag: tag}, nil
}

func (s *Session) ddlIn(ctx context.Context, t *txn, p *parse.Statement) (string, error) {
	p, err := s.tempInherit(t, p) // temp.go
	if err != nil {
		return "", err
	}
	cat, db := t.cat, s.database
	if err := s.checkDDL(t, p); err != nil { // ownercheck.go
		return "", err
	}
	p, err = resolveRefs(s.planner(cat), p)
	if err != nil {
		return "", err
	}
	switch {
	case p.DropIndex != nil:
		for _, name := range p.DropIndex.Names {
			next, err := cat.DropIndex(t.kv, db, name)
			if err != nil {
				if p.DropIndex.IfExists && pgerror.HasCode(err, pgerror.UndefinedObject) {
					continue
				}
				return "", err
			}
			cat = next
		}
		t.setCatalog(cat)
		return "DROP INDEX", nil
	case p.Analyze != nil:
		return "ANALYZE", s.analyze(t, p.Analyze.Tables)
	case p.Comment != nil:
		return "COMMENT", s.comment(t, p.Comment)
	case p.Lock != nil:
		return "LOCK TABLE", s.lockTables(t, p.Lock)
	case p.DropConstraint != nil:
		return "ALTER TABLE", s.dropConstraint(t, p.DropConstraint)
	case p.AttachIndex != nil:
		return "ALTER INDEX", s.attachIndex(t, p.AttachIndex) // partition.go
	case p.Owner != nil:
		return "ALTER " + strings.ToUpper(p.Owner.Kind), s.alterOwner(t, p.Owner)
	case p.Role != nil:
		return s.roleStmt(t, p.Role) // role.go
	case p.Grant != nil:
		return s.grantStmt(t, p.Grant) // grant.go
	case p.AddIdentity != nil:
		return "ALTER TABLE", s.addIdentity(t, p.AddIdentity)
	case p.MatView != nil:
		return s.matView(ctx, t, p.MatView)
	case p.CreateAs != nil:
		return s.createAs(ctx, t, p.CreateAs)
	case p.ViewDefault != nil:
		return "ALTER VIEW", s.viewDefault(t, p.ViewDefault) // alter.go
	case p.AlterColumn != nil && p.AlterColumn.Constraint != nil:
		return "ALTER TABLE", s.alterConstraint(t, p.AlterColumn.Table, p.AlterColumn.Constraint)
	case p.AlterColumn != nil && p.AlterColumn.Type != "":
		return "ALTER TABLE", s.alterType(ctx, t, p.AlterColumn)
	case p.AlterColumn != nil:
		return "ALTER TABLE", s.alterNotNull(t, p.AlterColumn)
	case p.Truncate != nil:
		if p.Truncate.RestartIdentity {
			return "", pgerror.New(pgerror.FeatureNotSupported, "TRUNCATE ... RESTART IDENTITY is not supported")
		}
		var tables []*catalog.Table
		for i, name := range p.Truncate.Tables {
			tbl, err := cat.Table(db, name)
			if err != nil {
				return "", err
			}
			tables = append(tables, tbl)
			if !p.Truncate.Only[i] {
				// The table's partitions and inheritance children too.
				tables = append(tables, cat.Descendants(db, tbl.Key())...)
			}
		}
		for i, tbl := range tables {
			if slices.Contains(tables[:i], tbl) {
				continue // named twice, or reached through two parents
			}
			if err := truncate(t, tbl); err != nil {
				return "", err
			}
			t.markFresh(tbl.ID)
		}
		return "TRUNCATE TABLE", nil
	case p.Reindex != nil:
		return "REINDEX", s.reindex(t, p.Reindex)
	case p.Trigger != nil && p.Trigger.Create:
		return "CREATE TRIGGER", s.createTrigger(t, p.Trigger)
	case p.Trigger != nil:
		return "DROP TRIGGER", s.dropTrigger(t, p.Trigger)
	case p.Sequence != nil:
		return s.sequenceStmt(t, p.Sequence)
	case p.Inherit != nil:
		return s.inheritTable(ctx, t, p.Inherit)
	case p.Attach != nil:
		return "ALTER TABLE", s.attachPartition(ctx, t, p.Attach)
	case p.Routine != nil:
		return s.routineStmt(ctx, t, p)
	case p.Aggregate != nil:
		return s.aggregateStmt(t, p.Aggregate) // aggregate.go
	case p.UserType != nil:
		return s.typeStmt(ctx, t, p.UserType)
	case p.Schema != nil:
		return s.schemaStmt(ctx, t, p.Schema)
	case p.SetSchema != nil:
		return "ALTER TABLE", s.setTableSchema(t, p.SetSchema)
	}
	if p, err = s.tempStatement(t, p); err != nil { // temp.go
		return "", err
	}
	cat = t.cat
	p, err = s.resolveDDLNames(s.planner(cat), p)
	if err != nil {
		return "", err
	}
	switch ast := p.AST.(type) {
	case *sqlparser.CreateTable:
		if ast.Select != nil {
			return s.createTableAs(ctx, t, ast, p.Frames)
		}
		if err := s.createTable(ctx, t, ast, p); err != nil {
			return "", err
		}
		if tbl, err := t.cat.Table(db, ast.Table.Name.String()); err == nil {
			t.markFresh(tbl.ID)
		}
		if p.PartitionBy != nil {
			return "CREATE TABLE", s.setPartitionBy(t, ast.Table.Name.String(), p.PartitionBy)
		}
		return "CREATE TABLE", nil
	case *sqlparser.DropTable:
		var names []string
		listed := map[string]bool{}
		for _, tn := range ast.FromTables {
			listed[tn.Name.String()] = true
		}
		for _, tn := range ast.FromTables {
			below, err := dropTree(cat, db, tn.Name.String(), p.Cascade, listed)
			if err != nil {
				return "", err
			}
			for _, n := range append(below, tn.Name.String()) {
				if !slices.Contains(names, n) {
					names = append(names, n)
				}
			}
		}
		if err := partitionsReferenced(cat, db, names); err != nil {
			return "", err
		}
		dropping := map[string]bool{}
		for _, n := range names {
			dropping[n] = true
		}
		for _, name := range names {
			tn := sqlparser.TableName{Name: sqlparser.NewIdentifierCS(name)}
			var err error
			if cat, err = dropReferences(t, cat, db, tn.Name.String(), p.Cascade, dropping); err != nil {
				return "", err
			}
			if tbl, err := cat.Table(db, tn.Name.String()); err == nil && tbl.MatView != "" {
				e := pgerror.Newf(pgerror.WrongObjectType, "%q is not a table", tn.Name.String())
				e.Hint = "Use DROP MATERIALIZED VIEW to remove a materialized view."
				return "", e
			}
			next, err := cat.DropTable(t.kv, db, tn.Name.String())
			if err != nil {
				if _, serr := cat.Sequence(db, tn.Name.String()); serr == nil {
					e := pgerror.Newf(pgerror.WrongObjectType, "%q is not a table", tn.Name.String())
					e.Hint = "Use DROP SEQUENCE to remove a sequence."
					return "", e
				}
				if ast.IfExists && pgerror.HasCode(err, pgerror.UndefinedTable) {
					continue
				}
				return "", err
			}
			// A sequence OWNED BY one of the table's columns goes with it.
			for _, seq := range next.OwnedSequences(db, tn.Name.String()) {
				if next, err = next.DropSequence(t.kv, db, seq); err != nil {
					return "", err
				}
			}
			cat = next
		}
		t.setCatalog(cat)
		return "DROP TABLE", nil
	case *sqlparser.CreateView:
		name := ast.ViewName.Name.String()
		if _, err := cat.View(db, name); err == nil && ast.IsReplace {
			if cat, err = cat.DropView(t.kv, db, name); err != nil {
				return "", err
			}
		}
		body := parse.Statement{AST: ast.Select, Frames: p.Frames}
		if _, _, err := s.planner(cat).Plan(&body, nil); err != nil {
			return "", err
		}
		// Keep the query as the user wrote it: it is parsed again, by the
		// dialect layer, whenever the view is used.
		text, ok := parse.ViewQuery(p.SQL)
		if !ok {
			text = sqlparser.String(ast.Select)
		}
		v := catalog.View{Name: name, SQL: text, SearchPath: slices.Clone(s.searchPath()), CheckOption: strings.ToLower(ast.CheckOption), Owner: s.newOwner(cat)}
		for _, c := range ast.Columns {
			v.Columns = append(v.Columns, c.String())
		}
		if v.CheckOption != "" {
			if err := s.planner(cat).CheckViewOption(&v); err != nil {
				return "", err
			}
		}
		next, err := cat.CreateView(t.kv, db, v)
		if err != nil {
			return "", err
		}
		t.setCatalog(next)
		return "CREATE VIEW", nil
	case *sqlparser.DropView:
		for _, tn := range ast.FromTables {
			next, err := cat.DropView(t.kv, db, tn.Name.String())
			if err != nil {
				if ast.IfExists && pgerror.HasCode(err, pgerror.UndefinedTable) {
					continue
				}
				return "", err
			}
			cat = next
		}
		t.setCatalog(cat)
		return "DROP VIEW", nil
	case *sqlparser.AlterTable:
		tag, err := s.alterTable(ctx, t, p, ast)
		if err == nil && !p.AlterOnly {
			err = s.alterTree(ctx, t, p, ast) // partition.go
		}
		if err == nil && len(p.Checks) > 0 {
			err = s.addChecks(ctx, t, ast.Table.Name.String(), p.Checks, p.AlterOnly) // constraint.go
		}
		return tag, err
	}
	return "", pgerror.Newf(pgerror.FeatureNotSupported, "statement not supported: %s", p.SQL)
}

func truncate(t *txn, tbl *catalog.Table) error {
	if err := catalog.CheckForeignDDL(tbl, "TRUNCATE"); err != nil {
		return err
	}
	spaces := []uint64{tbl.ID}
	for _, idx := range tbl.Indexes {
		spaces = append(spaces, idx.ID)
	}
	for _, id := range spaces {
		start := catalog.SpacePrefix(id)
		if err := t.kv.DeleteRange(start, catalog.SpacePrefix(id+1)); err != nil {
			return err
		}
	}
	t.addRows(tbl.ID, -t.db.rowCounter(tbl.ID).Load())
	return nil
}

// createTable turns CREATE TABLE into a catalog.TableDef.
// createTable runs CREATE TABLE; identityAlways names the columns declared
// GENERATED ALWAYS AS IDENTITY.
// createTableLike is CREATE TABLE name (LIKE src): src's columns with
// their types and NOT NULL constraints, and nothing else (no defaults,
// keys, indexes or checks: PostgreSQL copies those only when INCLUDING
// says so).
func (s *Session) createTableLike(t *txn, name, src string) error {
	from, err := t.cat.Table(s.database, src)
	if err != nil {
		return err
	}
	def := catalog.TableDef{Name: name}
	for _, c := range from.Columns {
		if !c.Hidden {
			def.Columns = append(def.Columns, catalog.Column{Name: c.Name, Type: c.Type, NotNull: c.NotNull, Domain: c.Domain, Composite: c.Composite})
		}
	}
	def.Owner = s.newOwner(t.cat)
	next, err := t.cat.CreateTable(t.kv, s.database, def)
	if err != nil {
		return err
	}
	t.setCatalog(next)
	return nil
}

func (s *Session) createTable(ctx context.Context, t *txn, ct *sqlparser.CreateTable, st *parse.Statement) error {
	identityAlways, identityByDefault, checks := st.IdentityAlways, st.IdentityByDefault, st.Checks
	name := ct.Table.Name.String()
	if ct.IfNotExists {
		if _, err := t.cat.Table(s.database, name); err == nil {
			return nil
		}
	}
	if ct.OptLike != nil {
		return s.createTableLike(t, name, ct.OptLike.LikeTable.Name.String())
	}
	if ct.TableSpec == nil {
		return pgerror.New(pgerror.FeatureNotSupported, "CREATE TABLE without a column list is not supported")
	}
	def := catalog.TableDef{Name: name}
	for _, cd := range ct.TableSpec.Columns {
		col, err := columnDef(s.planner(t.cat), cd)
		if err != nil {
			return err
		}
		col.IdentityAlways = col.Serial && slices.Contains(identityAlways, col.Name)
		col.IdentityByDefault = col.Serial && slices.Contains(identityByDefault, col.Name)
		def.Columns = append(def.Columns, col)
		if o := cd.Type.Options; o != nil {
			switch o.KeyOpt {
			case sqlparser.ColKeyPrimary:
				if len(def.PrimaryKey) > 0 {
					return pgerror.Newf(pgerror.InvalidTableDefinition, "multiple primary keys for table %q are not allowed", name)
				}
				def.PrimaryKey = []string{col.Name}
			case sqlparser.ColKeyUnique, sqlparser.ColKeyUniqueKey:
				def.Uniques = append(def.Uniques, catalog.UniqueDef{Columns: []string{col.Name}})
			}
			if ref := o.Reference; ref != nil {
				fk, err := foreignKey("", []string{col.Name}, ref, st.FKAttrs)
				if err != nil {
					return err
				}
				def.ForeignKeys = append(def.ForeignKeys, fk)
			}
		}
	}
	for _, id := range ct.TableSpec.Indexes {
		attrs, err := uniqueAttrs(id, st.FKAttrs)
		if err != nil {
			return err
		}
		var cols []string
		var desc []bool
		for _, ic := range id.Columns {
			if ic.Expression != nil {
				return pgerror.New(pgerror.FeatureNotSupported, "indexes on expressions are not supported")
			}
			cols = append(cols, ic.Column.String())
			desc = append(desc, ic.Direction == sqlparser.DescOrder)
		}
		switch id.Info.Type {
		case sqlparser.IndexTypePrimary:
			if len(def.PrimaryKey) > 0 {
				return pgerror.Newf(pgerror.InvalidTableDefinition, "multiple primary keys for table %q are not allowed", name)
			}
			def.PrimaryKey, def.PrimaryKeyDesc, def.PrimaryKeyDeferrable = cols, desc, attrs.Deferrable
			def.PrimaryKeyInclude = attrs.Include
		case sqlparser.IndexTypeUnique:
			uname := id.Info.Name.String()
			if uname == "" {
				uname = id.Info.ConstraintName.String() // CONSTRAINT name UNIQUE (cols)
			}
			def.Uniques = append(def.Uniques, catalog.UniqueDef{Name: uname, Columns: cols,
				NullsNotDistinct: attrs.NullsNotDistinct, Deferrable: attrs.Deferrable, Include: attrs.Include})
		default:
			return pgerror.New(pgerror.FeatureNotSupported, "index definitions inside CREATE TABLE are not supported: use CREATE INDEX")
		}
	}
	for _, cd := range ct.TableSpec.Constraints {
		switch d := cd.Details.(type) {
		case *sqlparser.ForeignKeyDefinition:
			var cols []string
			for _, c := range d.Source {
				cols = append(cols, c.String())
			}
			fk, err := foreignKey(cd.Name.String(), cols, d.ReferenceDefinition, st.FKAttrs)
			if err != nil {
				return err
			}
			def.ForeignKeys = append(def.ForeignKeys, fk)
		case *sqlparser.CheckConstraintDefinition:
			return pgerror.New(pgerror.FeatureNotSupported, "CHECK constraints are not supported")
		}
	}
	if err := checkDefs(&def, checks); err != nil {
		return err
	}
	// PRIMARY KEY implies NOT NULL.
	for i := range def.Columns {
		for _, pk := range def.PrimaryKey {
			if def.Columns[i].Name == pk {
				def.Columns[i].NotNull = true
			}
		}
	}
	def.Owner = s.newOwner(t.cat)
	next, err := t.cat.CreateTable(t.kv, s.database, def)
	if err != nil {
		return err
	}
	if len(def.Checks) > 0 || len(def.ForeignKeys) > 0 {
		tbl, err := next.Table(s.database, name)
		if err != nil {
			return err
		}
		for _, c := range tbl.Checks {
			if err := s.planner(next).BindCheck(tbl, c.Expr); err != nil {
				return err
			}
		}
		if err := s.planner(next).CheckForeignKeys(tbl); err != nil {
			return err
		}
	}
	t.setCatalog(next)
	return nil
}

// dropReferences lets DROP TABLE name go ahead of the foreign keys of
// other tables that reference it, or, for a partition, a partitioned
// table it belongs to: refused (2BP01) unless CASCADE, which drops those
// constraints, as PostgreSQL does.
//
// name is a table key; dropping holds the keys of the tables the same
// statement drops, whose own references go with them.
func dropReferences(t *txn, cat *catalog.Catalog, db, name string, cascade bool, dropping map[string]bool) (*catalog.Catalog, error) {
	tables, err := cat.Tables(db)
	if err != nil {
		return cat, err
	}
	// A partition holds rows of its partitioned ancestors: a foreign key
	// that references one of them (not dropped too) depends on it.
	referenced := map[string]bool{name: true}
	for key := name; ; {
		tbl, err := cat.Table(db, key)
		if err != nil || tbl.PartitionOf == "" || dropping[tbl.PartitionOf] {
			break
		}
		key = tbl.PartitionOf
		referenced[key] = true
	}
	for _, child := range tables {
		if child.Key() == name || dropping[child.Key()] {
			continue
		}
		for _, fk := range child.ForeignKeys {
			if !referenced[fk.RefTable] {
				continue
			}
			fkName := catalog.ForeignKeyName(child, fk)
			if !cascade {
				e := pgerror.Newf(pgerror.DependentObjectsStillExist, "cannot drop table %s because other objects depend on it", catalog.DisplayName(name))
				e.Detail = fmt.Sprintf("constraint %s on table %s depends on table %s", fkName, catalog.DisplayName(child.Key()), catalog.DisplayName(name))
				e.Hint = "Use DROP ... CASCADE to drop the dependent objects too."
				return cat, e
			}
			if cat, err = cat.DropForeignKey(t.kv, db, child.Key(), fk); err != nil {
				return cat, err
			}
		}
	}
	t.setCatalog(cat)
	return cat, nil
}

// checkDefs adds CREATE TABLE's CHECK constraints to def, named as
// PostgreSQL names them when the user did not: table_column_check when
// the expression reads one column, else table_check (a number added on
// a clash). The expressions are bound once the table exists.
func checkDefs(def *catalog.TableDef, checks []parse.CheckDef) error {
	used := map[string]bool{}
	for _, c := range checks {
		name := c.Name
		if name != "" && used[name] {
			return pgerror.Newf(pgerror.DuplicateObject, "check constraint %q already exists", name)
		}
		if name == "" {
			col := ""
			if cols := checkColumns(c.Expr); len(cols) == 1 {
				col = cols[0]
			}
			name = catalog.ChooseName(def.Name, col, "check", func(n string) bool { return used[n] })
		}
		used[name] = true
		def.Checks = append(def.Checks, catalog.Check{Name: name, Expr: c.Expr, NoInherit: c.NoInherit})
	}
	return nil
}

// checkColumns returns the distinct column names a CHECK expression
// reads (nil when it does not parse: binding reports that).
func checkColumns(expr string) []string {
	st, err := parse.ParseOne("SELECT (" + expr + ")")
	if err != nil || st.AST == nil {
		return nil
	}
	var cols []string
	_ = sqlparser.Walk(func(n sqlparser.SQLNode) (bool, error) {
		if c, ok := n.(*sqlparser.ColName); ok && !slices.Contains(cols, c.Name.Lowered()) {
			cols = append(cols, c.Name.Lowered())
		}
		return true, nil
	}, st.AST)
	return cols
}

// columnDef converts one column definition; pl resolves user types.
// A column of a composite type (or an array of one) names the type
// (Column.Composite); one of a domain stores the domain's base type and
// names the domain (Column.Domain), whose constraints writes check.
func columnDef(pl *planner.Planner, cd *sqlparser.ColumnDefinition) (catalog.Column, error) {
	typeName := strings.ToLower(cd.Type.Type)
	t, dom, err := pl.ResolveType(typeName, cd.Type.Length, cd.Type.Scale)
	if err != nil {
		return catalog.Column{}, err
	}
	col := catalog.Column{Name: cd.Name.String(), Type: t}
	if t.Family == types.Record || t.Elem == types.Record {
		if t.Comp == nil {
			return catalog.Column{}, pgerror.Newf(pgerror.InvalidTableDefinition, "column %q has pseudo-type record", cd.Name.String())
		}
		col.Composite = t.Comp.OID
	}
	if dom != nil {
		col.Domain = dom.OID
	}
	switch typeName {
	case "serial", "bigserial", "smallserial", "serial2", "serial4", "serial8":
		col.Serial, col.NotNull = true, true
	}
	if o := cd.Type.Options; o != nil {
		if o.Null != nil && !*o.Null {
			col.NotNull = true
		}
		if o.Autoincrement {
			col.Serial = true
		}
		if o.Default != nil {
			col.Default = sqlparser.String(o.Default)
			if c, ok := o.Default.(*sqlparser.CastExpr); ok && t.Family == types.Enum {
				if lit, ok := c.Expr.(*sqlparser.Literal); ok && lit.Type == sqlparser.StrVal {
					// pg_dump's DEFAULT 'ok'::public.mood: the label,
					// which the column's type reads.
					col.Default = sqlparser.String(lit)
				}
			}
			if _, isNull := o.Default.(*sqlparser.NullVal); isNull {
				col.Default = ""
			}
		}
	}
	return col, nil
}

// addDomainColumn readies col, of a domain, for ALTER TABLE ... ADD
// COLUMN: without a default of its own the rows already stored take the
// domain's, and when there are such rows, the value they take must pass
// the domain's constraints, as PostgreSQL checks it for each row.
func (s *Session) addDomainColumn(ctx context.Context, t *txn, tableName string, col *catalog.Column) error {
	pl := s.planner(t.cat)
	text := col.Default
	if text == "" {
		if text = pl.DomainDefault(col.Domain); text != "" {
			v, err := s.evalConstant(ctx, t, text, col.Type)
			if err != nil {
				return err
			}
			col.DefaultValue = v
		}
	}
	tbl, err := t.cat.Table(s.database, tableName)
	if err != nil {
		return err
	}
	if n, err := countRows(t, tbl); err != nil || n == 0 {
		return err
	}
	dom, err := pl.ColumnDomain(col)
	if err != nil {
		return err
	}
	if text == "" {
		text = "NULL"
	}
	typ := userTypeName(t.cat.UserTypeByOID(s.database, uint64(col.Domain)), dom.Elements) // usertype.go
	_, err = s.evalQuery(ctx, t, "SELECT CAST(("+text+") AS "+typ+")")                     // pgdump.go
	return err
}

// alterTable runs ALTER TABLE ... ADD COLUMN and CREATE INDEX (which the
// dialect layer delivers as ALTER TABLE ... ADD INDEX).
func (s *Session) alterTable(ctx context.Context, t *txn, p *parse.Statement, at *sqlparser.AlterTable) (string, error) {
	tableName := at.Table.Name.String()
	tag := "ALTER TABLE"
	for _, opt := range at.AlterOptions {
		switch o := opt.(type) {
		case *sqlparser.AddColumns:
			for _, cd := range o.Columns {
				col, err := columnDef(s.planner(t.cat), cd)
				if err != nil {
					return "", err
				}
				if cd.Type.Options != nil && cd.Type.Options.KeyOpt != sqlparser.ColKeyNone {
					return "", pgerror.New(pgerror.FeatureNotSupported, "ADD COLUMN with PRIMARY KEY or UNIQUE is not supported")
				}
				if col.Default != "" {
					v, err := s.evalConstant(ctx, t, col.Default, col.Type)
					if err != nil {
						return "", err
					}
					col.DefaultValue = v
				}
				if col.Domain != 0 {
					if err := s.addDomainColumn(ctx, t, tableName, &col); err != nil {
						return "", err
					}
				}
				if col.NotNull && col.DefaultValue.IsNull() {
					tbl, err := t.cat.Table(s.database, tableName)
					if err != nil {
						return "", err
					}
					if n, err := countRows(t, tbl); err != nil {
						return "", err
					} else if n > 0 {
						e := pgerror.Newf(pgerror.NotNullViolation, "column %q of relation %q contains null values", col.Name, tableName).OnTable(tableName)
						e.Column = col.Name
						return "", e
					}
				}
				next, err := t.cat.AddColumn(t.kv, s.database, tableName, col)
				if err != nil {
					return "", err
				}
				t.setCatalog(next)
			}
		case *sqlparser.AddIndexDefinition:
			attrs, err := uniqueAttrs(o.IndexDefinition, p.FKAttrs)
			if err != nil {
				return "", err
			}
			if o.IndexDefinition.Info.Type == sqlparser.IndexTypePrimary {
				if err := s.addPrimaryKey(t, tableName, o.IndexDefinition, attrs.Include); err != nil {
					return "", err
				}
				if attrs.Deferrable {
					if err := s.alterCatalogTable(t, tableName, func(nt *catalog.Table) { nt.PrimaryKeyDeferrable = true }); err != nil {
						return "", err
					}
				}
				continue
			}
			if info := o.IndexDefinition.Info; info.Type == sqlparser.IndexTypeUnique && info.Name.IsEmpty() {
				// ALTER TABLE ... ADD [CONSTRAINT name] UNIQUE (cols), as
				// pg_dump writes unique constraints.
				if err := s.addUniqueConstraint(t, p, tableName, o.IndexDefinition, attrs); err != nil {
					return "", err
				}
				continue
			}
			tag = "CREATE INDEX"
			if err := s.createIndex(t, p, tableName, o.IndexDefinition); err != nil {
				return "", err
			}
		case *sqlparser.AddConstraintDefinition:
			fk, ok := o.ConstraintDefinition.Details.(*sqlparser.ForeignKeyDefinition)
			if !ok {
				return "", pgerror.Newf(pgerror.FeatureNotSupported, "ALTER TABLE %s is not supported", sqlparser.String(opt))
			}
			if err := s.addForeignKey(ctx, t, tableName, o.ConstraintDefinition, fk, p.FKAttrs); err != nil {
				return "", err
			}
		case *sqlparser.AlterColumn:
			if err := s.alterDefault(ctx, t, tableName, o); err != nil {
				return "", err
			}
		case *sqlparser.RenameColumn:
			if err := s.renameColumn(t, tableName, o); err != nil {
				return "", err
			}
		case *sqlparser.RenameTableName:
			if err := s.renameTable(t, tableName, o); err != nil {
				return "", err
			}
			tableName = o.Table.Name.String()
		case *sqlparser.DropColumn:
			if err := s.dropColumn(t, tableName, o); err != nil {
				return "", err
			}
		default:
			return "", pgerror.Newf(pgerror.FeatureNotSupported, "ALTER TABLE %s is not supported", sqlparser.String(opt))
		}
	}
	return tag, nil
}

// alterCatalogTable changes table's descriptor in t with fn.
func (s *Session) alterCatalogTable(t *txn, table string, fn func(nt *catalog.Table)) error {
	next, err := t.cat.AlterTable(t.kv, s.database, table, func(nt *catalog.Table) error {
		fn(nt)
		return nil
	})
	if err != nil {
		return err
	}
	t.setCatalog(next)
	return nil
}

// evalConstant evaluates a DEFAULT expression once (ADD COLUMN).
func (s *Session) evalConstant(ctx context.Context, t *txn, expr string, typ types.T) (types.Datum, error) {
	name := typ.Family.String()
	if typ.IsArray() {
		name = typ.String()
	}
	return s.evalQuery(ctx, t, "SELECT CAST(("+expr+") AS "+name+")")
}

// databaseStmt runs CREATE DATABASE / DROP DATABASE, which PostgreSQL
// refuses inside a transaction block.
func (s *Session) databaseStmt(d *parse.DatabaseStmt) (backend.Result, error) {
	if s.cur != nil {
		return nil, pgerror.Newf(pgerror.ActiveSQLTransaction, "%s cannot run inside a transaction block", map[bool]string{true: "CREATE DATABASE", false: "DROP DATABASE"}[d.Create])
	}
	tag := "DROP DATABASE"
	if d.Create {
		tag = "CREATE DATABASE"
	}
	err := s.inTxn(func(t *txn) error {
		// It changes that database only: transactions in others go on.
		t.database = d.Name
		var next *catalog.Catalog
		var err error
		if d.Create {
			next, err = t.cat.CreateDatabase(t.kv, d.Name)
			if err != nil && d.IfNotExists && pgerror.HasCode(err, pgerror.DuplicateDatabase) {
				return nil
			}
		} else {
			if d.Name == s.database {
				return pgerror.New(pgerror.ObjectInUse, "cannot drop the currently open database")
			}
			if d.Name == DefaultDatabase {
				return pgerror.Newf(pgerror.ObjectInUse, "cannot drop the default database %q", d.Name)
			}
			next, err = t.cat.DropDatabase(t.kv, d.Name)
			if err != nil && d.IfExists && pgerror.HasCode(err, pgerror.InvalidCatalogName) {
				return nil
			}
		}
		if err != nil {
			return err
		}
		t.setCatalog(next)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return &staticResult{tag: tag}, nil
}

// addPrimaryKey runs ALTER TABLE ... ADD [CONSTRAINT name] PRIMARY KEY
// (cols) on a table that has none (pg_dump and pgbench -i add it after
// loading the data). The master file's keys change from the hidden row id
// to the new key, so the table is rewritten in the statement's
// transaction: every row is read at the statement's start, the master and
// index key spaces are cleared, and each row is written again under the
// new descriptor, which checks NOT NULL (23502) and uniqueness (23505
// naming the new constraint) as it goes.
func (s *Session) addPrimaryKey(t *txn, tableName string, def *sqlparser.IndexDefinition, include []string) error {
	old, err := t.cat.Table(s.database, tableName)
	if err != nil {
		return err
	}
	var cols []string
	for _, c := range def.Columns {
		if c.Expression != nil {
			return pgerror.New(pgerror.FeatureNotSupported, "a primary key on an expression is not supported")
		}
		cols = append(cols, c.Column.String())
	}
	next, err := t.cat.SetPrimaryKey(t.kv, s.database, tableName, def.Info.ConstraintName.String(), cols, include)
	if err != nil {
		return err
	}
	nt, err := next.Table(s.database, tableName)
	if err != nil {
		return err
	}
	// The iterator reads the rows as they are now; the writes below do
	// not disturb it.
	it, err := index.ScanMaster(t.kv.View(), old, index.Span{}, false)
	if err != nil {
		return err
	}
	defer it.Close()
	spaces := []uint64{old.ID}
	for _, idx := range old.Indexes {
		spaces = append(spaces, idx.ID)
	}
	for _, id := range spaces {
		if err := t.kv.DeleteRange(catalog.SpacePrefix(id), catalog.SpacePrefix(id+1)); err != nil {
			return err
		}
	}
	rowid := old.PrimaryKey[0]
	row := make([]types.Datum, len(nt.Columns))
	prog := s.startRewrite(old, "ALTER TABLE", "writing new heap")
	defer prog.end()
	var n int64
	for it.Next() {
		n++
		prog.rows("", n, n-1)
		r := it.Row()
		row = append(append(row[:0], r[:rowid]...), r[rowid+1:]...)
		for _, o := range nt.PrimaryKey {
			if row[o].IsNull() {
				e := pgerror.Newf(pgerror.NotNullViolation, "column %q of relation %q contains null values", nt.Columns[o].Name, tableName).OnTable(tableName)
				e.Column = nt.Columns[o].Name
				return e
			}
		}
		if err := index.Insert(t.kv, nt, row); err != nil {
			var pe *pgerror.Error
			if errors.As(err, &pe) && pe.Code == pgerror.UniqueViolation && pe.Constraint == nt.PrimaryKeyName {
				e := pgerror.Newf(pgerror.UniqueViolation, "could not create unique index %q", nt.PrimaryKeyName).OnTable(tableName)
				e.Detail, e.Constraint = strings.Replace(pe.Detail, "already exists", "is duplicated", 1), pe.Constraint
				return e
			}
			return err
		}
	}
	if err := it.Err(); err != nil {
		return err
	}
	t.setCatalog(next)
	return nil
}
