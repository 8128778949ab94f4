package session

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/kvsql/kvsql/catalog"
	"github.com/kvsql/kvsql/exec"
	"github.com/kvsql/kvsql/exec/eval"
	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/planner"
	"github.com/kvsql/kvsql/planner/parse"
	"github.com/kvsql/kvsql/types"
	"vitess.io/vitess/go/vt/sqlparser"
)

// setPartitionBy makes table name a partitioned table (CREATE TABLE ...
// PARTITION BY): its keys are checked and typed, and its unique
// constraints must include every key column, as PostgreSQL requires so
// that each partition's own index enforces them.
func (s *Session) setPartitionBy(t *txn, name string, ps *parse.PartitionSpec) error {
	tbl, err := t.cat.Table(s.database, name)
	if err != nil {
		return err
	}
	spec := &catalog.PartitionSpec{Strategy: ps.Strategy, Keys: ps.Keys, KeyColumns: ps.KeyColumns}
	for i, k := range ps.Keys {
		if !ps.KeyColumns[i] {
			typ, err := s.planner(t.cat).PartitionKeyType(tbl, k)
			if err != nil {
				return err
			}
			spec.KeyTypes = append(spec.KeyTypes, typ)
			continue
		}
		o := tbl.ColumnOrdinal(k)
		if o < 0 || tbl.Columns[o].Hidden {
			return pgerror.Newf(pgerror.UndefinedColumn, "column %q named in partition key does not exist", k)
		}
		spec.KeyTypes = append(spec.KeyTypes, tbl.Columns[o].Type)
	}
	for _, kt := range spec.KeyTypes {
		if spec.Strategy == "hash" && !exec.HashPartitionable(kt) {
			// Only these types hash as PostgreSQL hashes them; another
			// hash would send rows to other partitions than PostgreSQL.
			return pgerror.Newf(pgerror.FeatureNotSupported, "hash partitioning on type %s is not supported", kt)
		}
	}
	if !tbl.HiddenRowID {
		if err := keyInUnique(tbl, spec, "PRIMARY KEY", tbl.PrimaryKey); err != nil {
			return err
		}
	}
	for _, idx := range tbl.Indexes {
		if idx.Unique {
			if err := keyInUnique(tbl, spec, "UNIQUE", idx.Columns); err != nil {
				return err
			}
		}
	}
	next, err := t.cat.AlterTable(t.kv, s.database, name, func(nt *catalog.Table) error {
		nt.PartitionBy = spec
		return nil
	})
	if err != nil {
		return err
	}
	t.setCatalog(next)
	return nil
}

// keyInUnique refuses a unique constraint of a partitioned table that
// lacks a partition key column (0A000).
func keyInUnique(tbl *catalog.Table, spec *catalog.PartitionSpec, kind string, cols []int) error {
	for i, k := range spec.Keys {
		if !spec.KeyColumns[i] {
			e := pgerror.Newf(pgerror.FeatureNotSupported, "unsupported %s constraint with partition key definition", kind)
			e.Detail = kind + " constraints cannot be used when partition keys include expressions."
			return e
		}
		found := false
		for _, o := range cols {
			found = found || tbl.Columns[o].Name == k
		}
		if !found {
			e := pgerror.New(pgerror.FeatureNotSupported, "unique constraint on partitioned table must include all partitioning columns")
			e.Detail = fmt.Sprintf("%s constraint on table %q lacks column %q which is part of the partition key.", kind, tbl.Name, k)
			return e
		}
	}
	return nil
}

// inheritTable runs CREATE TABLE ... INHERITS and ... PARTITION OF: it
// writes out the whole definition — the parents' columns merged with the
// table's own elements, the parents' CHECK constraints and, for a
// partition, the parent's keys and foreign keys — creates that table,
// and records its place in the tree.
func (s *Session) inheritTable(ctx context.Context, t *txn, is *parse.InheritStmt) (string, error) {
	if _, err := t.cat.Table(s.database, is.Name); err == nil && is.IfNotExists {
		s.notice(pgerror.Newf(pgerror.DuplicateTable, "relation %q already exists, skipping", is.Name))
		return "CREATE TABLE", nil
	}
	var parents []*catalog.Table
	for _, name := range is.Parents {
		p, err := t.cat.Table(s.database, name)
		if err != nil {
			return "", err
		}
		for _, q := range parents {
			if q.Name == name {
				return "", pgerror.Newf(pgerror.DuplicateTable, "relation %q would be inherited from more than once", name)
			}
		}
		switch {
		case is.PartitionOf && !p.Partitioned():
			return "", pgerror.Newf(pgerror.WrongObjectType, "%q is not partitioned", name)
		case !is.PartitionOf && p.Partitioned():
			return "", pgerror.Newf(pgerror.WrongObjectType, "cannot inherit from partitioned table %q", name)
		case !is.PartitionOf && p.PartitionOf != "":
			return "", pgerror.Newf(pgerror.WrongObjectType, "cannot inherit from partition %q", name)
		}
		parents = append(parents, p)
	}
	cols, defs, inherited, err := s.mergeColumns(t, parents, is)
	if err != nil {
		return "", err
	}
	elems := make([]string, 0, len(cols))
	for _, c := range cols {
		elems = append(elems, defs[c])
	}
	for _, e := range is.Elements {
		if e.Column == "" && e.Like == "" {
			elems = append(elems, e.Text)
		}
	}
	elems = append(elems, inheritedConstraints(parents, is.PartitionOf)...)
	sql := "CREATE TABLE " + quoteIdent(is.Name) + " (" + strings.Join(elems, ", ") + ")"
	if is.Temp {
		sql = "CREATE TEMPORARY TABLE " + quoteIdent(is.Name) + " (" + strings.Join(elems, ", ") + ")"
	}
	st, err := parse.ParseOne(sql)
	if err != nil {
		return "", err
	}
	ct, ok := st.AST.(*sqlparser.CreateTable)
	if !ok {
		return "", pgerror.New(pgerror.Internal, "inherited table definition did not parse as CREATE TABLE")
	}
	if err := s.createTable(ctx, t, ct, &st); err != nil {
		return "", err
	}
	created, err := t.cat.Table(s.database, is.Name)
	if err != nil {
		return "", err
	}
	t.markFresh(created.ID) // created in this transaction (COPY FREEZE)
	if err := typeConflicts(created, inherited); err != nil {
		return "", err
	}
	var bound *catalog.PartitionBound
	if is.PartitionOf {
		if bound, err = s.partitionBound(ctx, t, parents[0], is.Name, is.Bound); err != nil {
			return "", err
		}
	}
	next, err := t.cat.AlterTable(t.kv, s.database, is.Name, func(nt *catalog.Table) error {
		if is.PartitionOf {
			nt.PartitionOf, nt.Bound = parents[0].Key(), bound
		} else if len(is.Parents) > 0 {
			nt.Inherits = is.Parents
		}
		return nil
	})
	if err != nil {
		return "", err
	}
	t.setCatalog(next)
	if is.PartitionOf {
		if err := s.cascadeIndexes(t, parents[0], is.Name); err != nil {
			return "", err
		}
	}
	if is.PartitionBy != nil {
		if err := s.setPartitionBy(t, is.Name, is.PartitionBy); err != nil {
			return "", err
		}
	}
	return "CREATE TABLE", nil
}

// mergeColumns merges the parents' columns, in order, with the table's
// own column elements: a column of several parents, or a parent's column
// the table declares again, is one column (with PostgreSQL's NOTICEs);
// a partition's own elements add options to its parent's columns. It
// returns the column names in order, their definitions, and the
// inherited type of each inherited column.
func (s *Session) mergeColumns(t *txn, parents []*catalog.Table, is *parse.InheritStmt) ([]string, map[string]string, map[string]types.T, error) {
	var order []string
	defs := map[string]string{}
	inherited := map[string]types.T{}
	for _, p := range parents {
		for _, c := range p.Columns {
			if c.Hidden {
				continue
			}
			if prev, ok := inherited[c.Name]; ok {
				s.notice(pgerror.Newf(pgerror.SuccessfulCompletion, "merging multiple inherited definitions of column %q", c.Name))
				if !prev.Same(c.Type) {
					e := pgerror.Newf(pgerror.DatatypeMismatch, "inherited column %q has a type conflict", c.Name)
					e.Detail = prev.String() + " versus " + c.Type.String()
					return nil, nil, nil, e
				}
				if c.NotNull && !strings.Contains(defs[c.Name], " NOT NULL") {
					defs[c.Name] += " NOT NULL"
				}
				continue
			}
			inherited[c.Name] = c.Type
			order = append(order, c.Name)
			defs[c.Name] = columnText(s.planner(t.cat), c)
		}
	}
	for _, e := range is.Elements {
		if e.Like != "" {
			src, err := t.cat.Table(s.database, e.Like)
			if err != nil {
				return nil, nil, nil, err
			}
			for _, c := range src.Columns {
				if c.Hidden {
					continue
				}
				if _, dup := defs[c.Name]; dup {
					return nil, nil, nil, pgerror.Newf(pgerror.DuplicateColumn, "column %q specified more than once", c.Name)
				}
				if !e.LikeDefaults {
					c.Default = ""
				}
				order = append(order, c.Name)
				defs[c.Name] = columnText(s.planner(t.cat), c)
			}
			continue
		}
		if e.Column == "" {
			continue
		}
		if _, ok := inherited[e.Column]; !ok {
			if is.PartitionOf {
				return nil, nil, nil, pgerror.Newf(pgerror.UndefinedColumn, "column %q named in partition key does not exist", e.Column)
			}
			if _, dup := defs[e.Column]; dup {
				return nil, nil, nil, pgerror.Newf(pgerror.DuplicateColumn, "column %q specified more than once", e.Column)
			}
			order = append(order, e.Column)
			defs[e.Column] = e.Text
			continue
		}
		if is.PartitionOf {
			// name [WITH OPTIONS] constraints: added to the parent's column.
			opts := e.Rest
			if lower := strings.ToLower(opts); strings.HasPrefix(lower, "with options") {
				opts = strings.TrimSpace(opts[len("with options"):])
			}
			defs[e.Column] += " " + opts
			continue
		}
		s.notice(pgerror.Newf(pgerror.SuccessfulCompletion, "merging column %q with inherited definition", e.Column))
		def := e.Text
		if strings.Contains(defs[e.Column], " NOT NULL") {
			def += " NOT NULL"
		}
		defs[e.Column] = def
	}
	return order, defs, inherited, nil
}

// typeConflicts refuses a table whose own definition of an inherited
// column changed its type (42804).
func typeConflicts(t *catalog.Table, inherited map[string]types.T) error {
	for _, c := range t.Columns {
		if want, ok := inherited[c.Name]; ok && !want.Same(c.Type) {
			e := pgerror.Newf(pgerror.DatatypeMismatch, "column %q has a type conflict", c.Name)
			e.Detail = want.String() + " versus " + c.Type.String()
			return e
		}
	}
	return nil
}

// columnText writes a column's definition out as SQL.
func columnText(pl *planner.Planner, c catalog.Column) string {
	s := quoteIdent(c.Name) + " " + columnTypeText(pl, c) // usertype.go
	if c.NotNull {
		s += " NOT NULL"
	}
	if c.Default != "" && !c.Serial {
		s += " DEFAULT " + c.Default
	}
	return s
}

// inheritedConstraints are the constraints a child takes from its
// parents: CHECK constraints always; for a partition also the parent's
// primary key, unique constraints and foreign keys.
func inheritedConstraints(parents []*catalog.Table, partition bool) []string {
	var out []string
	seen := map[string]bool{}
	for _, p := range parents {
		for _, c := range p.Checks {
			if seen[c.Name] || c.NoInherit {
				continue
			}
			seen[c.Name] = true
			out = append(out, "CONSTRAINT "+quoteIdent(c.Name)+" CHECK ("+c.Expr+")")
		}
		if !partition {
			continue
		}
		if !p.HiddenRowID {
			out = append(out, "PRIMARY KEY ("+columnList(p, p.PrimaryKey)+")")
		}
		for _, idx := range p.Indexes {
			if idx.Unique && idx.Constraint {
				out = append(out, "UNIQUE ("+columnList(p, idx.Columns)+")")
			}
		}
		for _, fk := range p.ForeignKeys {
			text := "CONSTRAINT " + quoteIdent(catalog.ForeignKeyName(p, fk)) + " FOREIGN KEY (" + strings.Join(quoteAll(fk.Columns), ", ") + ") REFERENCES " + quoteIdent(fk.RefTable)
			if len(fk.RefColumns) > 0 && fk.RefColumns[0] != parse.MarkerPrimaryKey {
				text += " (" + strings.Join(quoteAll(fk.RefColumns), ", ") + ")"
			}
			out = append(out, text+fk.Clause())
		}
	}
	return out
}

func columnList(t *catalog.Table, ords []int) string {
	names := make([]string, len(ords))
	for i, o := range ords {
		names[i] = quoteIdent(t.Columns[o].Name)
	}
	return strings.Join(names, ", ")
}

func quoteAll(names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = quoteIdent(n)
	}
	return out
}

// cascadeIndexes gives a new partition the parent's plain indexes (its
// unique ones came with the definition).
func (s *Session) cascadeIndexes(t *txn, parent *catalog.Table, name string) error {
	for _, idx := range parent.Indexes {
		if idx.Unique {
			continue
		}
		cols := make([]string, len(idx.Columns))
		for i, o := range idx.Columns {
			cols[i] = parent.Columns[o].Name
		}
		ixName := name + "_" + strings.Join(cols, "_") + "_idx"
		next, err := t.cat.CreateIndex(t.kv, s.database, catalog.IndexDef{Name: ixName, Table: name, Columns: cols, Desc: idx.Desc, Form: idx.Form, Elements: idx.Elements})
		if err != nil {
			return err
		}
		t.setCatalog(next)
	}
	return nil
}

// partitionBound evaluates a FOR VALUES clause against parent's key
// types and checks it: its form must match the strategy (42P16), a range
// may not be empty and no two partitions may overlap (42P17).
func (s *Session) partitionBound(ctx context.Context, t *txn, parent *catalog.Table, name string, bs *parse.BoundSpec) (*catalog.PartitionBound, error) {
	spec := parent.PartitionBy
	b := &catalog.PartitionBound{Default: bs.Default}
	invalid := func() error {
		return pgerror.Newf(pgerror.InvalidTableDefinition, "invalid bound specification for a %s partition", spec.Strategy)
	}
	switch {
	case bs.Default:
		if spec.Strategy == "hash" {
			return nil, pgerror.New(pgerror.InvalidTableDefinition, "a hash-partitioned table may not have a default partition")
		}
		b.Text = "DEFAULT"
	case spec.Strategy == "list":
		if bs.In == nil {
			return nil, invalid()
		}
		var texts []string
		for _, v := range bs.In {
			d, err := s.evalConstant(ctx, t, v, spec.KeyTypes[0])
			if err != nil {
				return nil, err
			}
			b.In = append(b.In, d)
			texts = append(texts, boundLiteral(d, spec.KeyTypes[0]))
		}
		b.Text = "FOR VALUES IN (" + strings.Join(texts, ", ") + ")"
	case spec.Strategy == "range":
		if bs.From == nil {
			return nil, invalid()
		}
		var err error
		var from, to string
		if b.From, from, err = s.rangeValues(ctx, t, spec, bs.From, "FROM"); err != nil {
			return nil, err
		}
		if b.To, to, err = s.rangeValues(ctx, t, spec, bs.To, "TO"); err != nil {
			return nil, err
		}
		b.Text = "FOR VALUES FROM (" + from + ") TO (" + to + ")"
		if !rangeNonEmpty(b) {
			e := pgerror.Newf(pgerror.InvalidObjectDefinition, "empty range bound specified for partition %q", name)
			e.Detail = "Specified lower bound (" + from + ") is greater than or equal to upper bound (" + to + ")."
			return nil, e
		}
	default: // hash
		if !bs.Hash {
			return nil, invalid()
		}
		if bs.Modulus <= 0 {
			return nil, pgerror.New(pgerror.InvalidTableDefinition, "modulus for hash partition must be an integer value greater than zero")
		}
		if bs.Remainder < 0 || bs.Remainder >= bs.Modulus {
			return nil, pgerror.New(pgerror.InvalidTableDefinition, "remainder for hash partition must be less than modulus")
		}
		b.Modulus, b.Remainder = bs.Modulus, bs.Remainder
		b.Text = fmt.Sprintf("FOR VALUES WITH (modulus %d, remainder %d)", bs.Modulus, bs.Remainder)
	}
	if !bs.Default && spec.Strategy != "hash" && bs.Hash || bs.In != nil && spec.Strategy != "list" || bs.From != nil && spec.Strategy != "range" {
		return nil, invalid()
	}
	if err := t.cat.CheckNewBound(s.database, parent, name, b); err != nil {
		return nil, err
	}
	return b, nil
}

// rangeValues evaluates one side of a range bound.
func (s *Session) rangeValues(ctx context.Context, t *txn, spec *catalog.PartitionSpec, texts []string, side string) ([]catalog.RangeDatum, string, error) {
	if len(texts) != len(spec.Keys) {
		return nil, "", pgerror.Newf(pgerror.InvalidTableDefinition, "%s must specify exactly one value per partitioning column", side)
	}
	out := make([]catalog.RangeDatum, len(texts))
	shown := make([]string, len(texts))
	for i, v := range texts {
		switch strings.ToLower(strings.TrimSpace(v)) {
		case "minvalue":
			out[i], shown[i] = catalog.RangeDatum{Inf: -1}, "MINVALUE"
			continue
		case "maxvalue":
			out[i], shown[i] = catalog.RangeDatum{Inf: 1}, "MAXVALUE"
			continue
		}
		d, err := s.evalConstant(ctx, t, v, spec.KeyTypes[i])
		if err != nil {
			return nil, "", err
		}
		if d.IsNull() {
			return nil, "", pgerror.New(pgerror.InvalidTableDefinition, "cannot specify NULL in range bound")
		}
		out[i], shown[i] = catalog.RangeDatum{Value: d}, boundLiteral(d, spec.KeyTypes[i])
	}
	for i := 1; i < len(out); i++ {
		if prev := out[i-1].Inf; prev != 0 && out[i].Inf != prev {
			word := map[int8]string{-1: "MINVALUE", 1: "MAXVALUE"}[prev]
			return nil, "", pgerror.Newf(pgerror.DatatypeMismatch, "every bound following %s must also be %s", word, word)
		}
	}
	return out, strings.Join(shown, ", "), nil
}

// rangeNonEmpty reports whether From < To.
func rangeNonEmpty(b *catalog.PartitionBound) bool {
	for i := range b.From {
		lo, hi := b.From[i], b.To[i]
		if lo.Inf != 0 || hi.Inf != 0 {
			return lo.Inf < hi.Inf || lo.Inf == 0 && hi.Inf > 0 || lo.Inf < 0
		}
		if c := catalog.CompareKey(lo.Value, hi.Value); c != 0 {
			return c < 0
		}
	}
	return false
}

// boundLiteral prints a bound value as pg_get_expr does: numbers bare,
// everything else quoted.
func boundLiteral(d types.Datum, t types.T) string {
	if d.IsNull() {
		return "NULL"
	}
	text := eval.FormatText(d, t)
	switch t.Family {
	case types.Int2, types.Int4, types.Int8, types.Numeric, types.Float4, types.Float8:
		if !strings.HasPrefix(text, "-") {
			return text
		}
	case types.Bool:
		return text
	}
	return "'" + strings.ReplaceAll(text, "'", "''") + "'"
}

// dropTree lists what DROP TABLE name takes with it: a partitioned
// table's partitions, always; inheritance children with CASCADE or when
// the same statement names them (listed), and otherwise 2BP01, as
// PostgreSQL refuses.
func dropTree(cat *catalog.Catalog, db, name string, cascade bool, listed map[string]bool) ([]string, error) {
	var out []string
	for _, ch := range cat.Children(db, name) {
		if ch.PartitionOf == "" && !cascade && !listed[ch.Key()] {
			e := pgerror.Newf(pgerror.DependentObjectsStillExist, "cannot drop table %s because other objects depend on it", name)
			e.Detail = fmt.Sprintf("table %s depends on table %s", ch.Name, name)
			e.Hint = "Use DROP ... CASCADE to drop the dependent objects too."
			return nil, e
		}
		below, err := dropTree(cat, db, ch.Key(), cascade, listed)
		if err != nil {
			return nil, err
		}
		out = append(append(out, below...), ch.Key())
	}
	return out, nil
}

// alterTree carries an ALTER TABLE that succeeded on table at.Table down
// its tree, as PostgreSQL recurses: column changes to every child
// (partitions and inheritance children), indexes and keys to
// partitions only. Each child gets the same change under its own name
// (an index is named after the child); a child that already has an
// added column keeps it.
func (s *Session) alterTree(ctx context.Context, t *txn, p *parse.Statement, at *sqlparser.AlterTable) error {
	parentName := at.Table.Name.String()
	parent, err := t.cat.Table(s.database, parentName)
	if err != nil {
		return nil // renamed by the statement: nothing to carry
	}
	if err := uniqueOnPartitioned(parent, at); err != nil {
		return err
	}
	for _, ch := range t.cat.Children(s.database, parentName) {
		sub := &sqlparser.AlterTable{Table: sqlparser.TableName{Name: sqlparser.NewIdentifierCS(ch.Key())}}
		for _, opt := range at.AlterOptions {
			if o := childOption(parent, ch, opt); o != nil {
				sub.AlterOptions = append(sub.AlterOptions, o)
			}
		}
		if len(sub.AlterOptions) == 0 {
			continue
		}
		if _, err := s.alterTable(ctx, t, p, sub); err != nil {
			return err
		}
		if err := s.alterTree(ctx, t, p, sub); err != nil {
			return err
		}
	}
	return nil
}

// childOption is an ALTER TABLE option of parent restated for its child
// ch, or nil when it does not reach the child.
func childOption(parent, ch *catalog.Table, opt sqlparser.AlterOption) sqlparser.AlterOption {
	partition := ch.PartitionOf == parent.Key()
	switch o := opt.(type) {
	case *sqlparser.AddColumns:
		c := &sqlparser.AddColumns{}
		for _, cd := range o.Columns {
			if ch.ColumnOrdinal(cd.Name.String()) < 0 {
				c.Columns = append(c.Columns, cd)
			}
		}
		if len(c.Columns) == 0 {
			return nil
		}
		return c
	case *sqlparser.RenameColumn, *sqlparser.DropColumn, *sqlparser.AlterColumn:
		return opt
	case *sqlparser.AddIndexDefinition:
		if !partition {
			return nil
		}
		def := sqlparser.CloneRefOfIndexDefinition(o.IndexDefinition)
		if !def.Info.Name.IsEmpty() {
			var cols []string
			for _, c := range def.Columns {
				cols = append(cols, c.Column.String())
			}
			def.Info.Name = sqlparser.NewIdentifierCI(ch.Name + "_" + strings.Join(cols, "_") + "_idx")
		}
		return &sqlparser.AddIndexDefinition{IndexDefinition: def}
	case *sqlparser.AddConstraintDefinition:
		fk, ok := o.ConstraintDefinition.Details.(*sqlparser.ForeignKeyDefinition)
		if !ok || !partition {
			return nil
		}
		cd := sqlparser.CloneRefOfConstraintDefinition(o.ConstraintDefinition)
		if cd.Name.IsEmpty() {
			var cols []string
			for _, c := range fk.Source {
				cols = append(cols, c.String())
			}
			// The child's copy keeps the name the parent's foreign key
			// was given: the newest over these columns, as this runs
			// once the parent has it.
			name := catalog.ForeignKeyName(parent, catalog.ForeignKey{Columns: cols})
			for i := len(parent.ForeignKeys) - 1; i >= 0; i-- {
				if pfk := parent.ForeignKeys[i]; slices.Equal(pfk.Columns, cols) {
					name = catalog.ForeignKeyName(parent, pfk)
					break
				}
			}
			cd.Name = sqlparser.NewIdentifierCI(name)
		}
		return &sqlparser.AddConstraintDefinition{ConstraintDefinition: cd}
	}
	return nil
}

// conformPartition gives a table being attached as a partition of
// parent what a partition created PARTITION OF would have: the parent's
// primary key, unique constraints, plain indexes and foreign keys.
func (s *Session) conformPartition(ctx context.Context, t *txn, parent, part *catalog.Table) error {
	var stmts []string
	name := keySQL(part.Key()) // qualified: the search path may find another
	if !parent.HiddenRowID && part.HiddenRowID {
		stmts = append(stmts, "ALTER TABLE "+name+" ADD PRIMARY KEY ("+columnList(parent, parent.PrimaryKey)+")")
	}
	for _, idx := range parent.Indexes {
		if _, ok := keyNamedCols(part, parent, idx.Columns); ok {
			continue
		}
		if idx.Unique {
			stmts = append(stmts, "ALTER TABLE "+name+" ADD UNIQUE ("+columnList(parent, idx.Columns)+")")
		} else {
			stmts = append(stmts, "CREATE INDEX ON "+name+" ("+columnList(parent, idx.Columns)+")")
		}
	}
	for _, fk := range parent.ForeignKeys {
		fkName := catalog.ForeignKeyName(parent, fk)
		if hasForeignKey(part, fkName) {
			continue
		}
		for _, c := range inheritedConstraints([]*catalog.Table{parent}, true) {
			if strings.HasPrefix(c, "CONSTRAINT "+quoteIdent(fkName)+" FOREIGN KEY") {
				stmts = append(stmts, "ALTER TABLE "+name+" ADD "+c)
			}
		}
	}
	for _, sql := range stmts {
		st, err := parse.ParseOne(sql)
		if err != nil {
			return err
		}
		if _, err := s.ddlIn(ctx, t, &st); err != nil {
			return err
		}
	}
	return nil
}

// keyNamedCols finds an index of t over the columns of parent's
// ordinals cols (by name).
func keyNamedCols(t, parent *catalog.Table, cols []int) (*catalog.Index, bool) {
	for _, idx := range t.Indexes {
		if len(idx.Columns) != len(cols) {
			continue
		}
		same := true
		for i, o := range idx.Columns {
			same = same && t.Columns[o].Name == parent.Columns[cols[i]].Name
		}
		if same {
			return idx, true
		}
	}
	return nil, false
}

func hasForeignKey(t *catalog.Table, name string) bool {
	for _, fk := range t.ForeignKeys {
		if catalog.ForeignKeyName(t, fk) == name {
			return true
		}
	}
	return false
}

// partitionsReferenced refuses to drop a partition, without its
// partitioned table, when a foreign key of a table the statement keeps
// references that partitioned table (or one above it): the partition
// holds rows the key may point at (2BP01, as PostgreSQL refuses).
func partitionsReferenced(cat *catalog.Catalog, db string, dropping []string) error {
	tables, err := cat.Tables(db)
	if err != nil {
		return err
	}
	for _, name := range dropping {
		t, err := cat.Table(db, name)
		if err != nil || t.PartitionOf == "" || slices.Contains(dropping, t.PartitionOf) {
			continue
		}
		above := map[string]bool{}
		for p := t; p != nil && p.PartitionOf != ""; {
			above[p.PartitionOf] = true
			p, _ = cat.Table(db, p.PartitionOf)
		}
		for _, other := range tables {
			if slices.Contains(dropping, other.Name) {
				continue
			}
			for _, fk := range other.ForeignKeys {
				if above[fk.RefTable] {
					e := pgerror.Newf(pgerror.DependentObjectsStillExist, "cannot drop table %s because other objects depend on it", name)
					e.Detail = fmt.Sprintf("constraint %s on table %s depends on table %s", catalog.ForeignKeyName(other, fk), other.Name, name)
					e.Hint = "Use DROP ... CASCADE to drop the dependent objects too."
					return e
				}
			}
		}
	}
	return nil
}

// uniqueOnPartitioned refuses a primary key or unique index added to a
// partitioned table without every partition key column (0A000), as
// setPartitionBy refuses one declared with the table.
func uniqueOnPartitioned(parent *catalog.Table, at *sqlparser.AlterTable) error {
	if !parent.Partitioned() {
		return nil
	}
	for _, opt := range at.AlterOptions {
		o, ok := opt.(*sqlparser.AddIndexDefinition)
		if !ok {
			continue
		}
		kind := map[sqlparser.IndexType]string{sqlparser.IndexTypePrimary: "PRIMARY KEY", sqlparser.IndexTypeUnique: "UNIQUE"}[o.IndexDefinition.Info.Type]
		if kind == "" {
			continue
		}
		var cols []int
		for _, c := range o.IndexDefinition.Columns {
			if i := parent.ColumnOrdinal(c.Column.String()); i >= 0 {
				cols = append(cols, i)
			}
		}
		if err := keyInUnique(parent, parent.PartitionBy, kind, cols); err != nil {
			return err
		}
	}
	return nil
}

// alterInherit runs ALTER TABLE child INHERIT parent (the child must
// already have the parent's columns, with their types and NOT NULL, and
// its CHECK constraints) and NO INHERIT (remove).
func (s *Session) alterInherit(t *txn, parent, child *catalog.Table, remove bool) error {
	inherits := slices.Contains(child.Inherits, parent.Key())
	var next []string
	switch {
	case remove && !inherits:
		return pgerror.Newf(pgerror.UndefinedTable, "relation %q is not a parent of relation %q", parent.Name, child.Name)
	case remove:
		for _, p := range child.Inherits {
			if p != parent.Key() {
				next = append(next, p)
			}
		}
	default:
		if err := s.canInherit(t, parent, child, inherits); err != nil {
			return err
		}
		next = append(append(next, child.Inherits...), parent.Key())
	}
	cat, err := t.cat.AlterTable(t.kv, s.database, child.Key(), func(nt *catalog.Table) error {
		nt.Inherits = next
		return nil
	})
	if err == nil {
		t.setCatalog(cat)
	}
	return err
}

// canInherit checks that child may become parent's inheritance child.
func (s *Session) canInherit(t *txn, parent, child *catalog.Table, already bool) error {
	switch {
	case parent.Partitioned():
		return pgerror.Newf(pgerror.WrongObjectType, "cannot inherit from partitioned table %q", parent.Name)
	case child.Partitioned() || child.PartitionOf != "":
		return pgerror.Newf(pgerror.WrongObjectType, "cannot change inheritance of a partition or partitioned table %q", child.Name)
	case parent.PartitionOf != "":
		return pgerror.Newf(pgerror.WrongObjectType, "cannot inherit from a partition")
	case already:
		return pgerror.Newf(pgerror.DuplicateTable, "relation %q would be inherited from more than once", parent.Name)
	case parent.Name == child.Name:
		return pgerror.Newf(pgerror.DuplicateTable, "circular inheritance not allowed")
	}
	for _, d := range t.cat.Descendants(s.database, child.Key()) {
		if d.Name == parent.Name {
			e := pgerror.New(pgerror.DuplicateTable, "circular inheritance not allowed")
			e.Detail = fmt.Sprintf("%q is already a child of %q.", parent.Name, child.Name)
			return e
		}
	}
	for _, c := range parent.Columns {
		if c.Hidden {
			continue
		}
		o := child.ColumnOrdinal(c.Name)
		switch {
		case o < 0:
			return pgerror.Newf(pgerror.DatatypeMismatch, "child table is missing column %q", c.Name)
		case !child.Columns[o].Type.Same(c.Type) || child.Columns[o].Domain != c.Domain:
			return pgerror.Newf(pgerror.DatatypeMismatch, "child table %q has different type for column %q", child.Name, c.Name)
		case c.NotNull && !child.Columns[o].NotNull:
			return pgerror.Newf(pgerror.DatatypeMismatch, "column %q in child table must be marked NOT NULL", c.Name)
		}
	}
	for _, pc := range parent.Checks {
		if pc.NoInherit {
			continue
		}
		found := false
		for _, cc := range child.Checks {
			found = found || cc.Name == pc.Name
		}
		if !found {
			return pgerror.Newf(pgerror.DatatypeMismatch, "child table is missing constraint %q", pc.Name)
		}
	}
	return nil
}
