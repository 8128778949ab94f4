package planner

import (
	"fmt"
	"slices"

	"github.com/kvsql/kvsql/catalog"
	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/planner/parse"
	"github.com/kvsql/kvsql/types"
	"vitess.io/vitess/go/vt/sqlparser"
)

// tableScope is the scope of a DML statement's target table: its columns
// in catalog order (full-width rows).
func tableScope(t *catalog.Table, alias string) *scope {
	s := &scope{aggContext: "this context"}
	for i, c := range t.Columns {
		s.cols = append(s.cols, Column{Name: c.Name, Table: alias, T: c.Type, Hidden: c.Hidden, TableID: uint32(t.ID), Attr: int16(i + 1), Base: true})
	}
	return s
}

func (b *binder) targetTable(te sqlparser.TableExpr) (*catalog.Table, string, error) {
	at, ok := te.(*sqlparser.AliasedTableExpr)
	if !ok {
		return nil, "", pgerror.New(pgerror.FeatureNotSupported, "multi-table UPDATE and DELETE are not supported")
	}
	tn, ok := at.Expr.(sqlparser.TableName)
	if !ok {
		return nil, "", pgerror.New(pgerror.FeatureNotSupported, "the target of UPDATE or DELETE must be a table")
	}
	name, _ := parse.OnlyTable(tn.Name.String())
	key, err := b.p.LookupKey(tn.Qualifier.String(), name)
	if err != nil {
		return nil, "", err
	}
	t, err := b.p.Catalog.Table(b.p.DB, key)
	if err != nil {
		if _, verr := b.p.Catalog.View(b.p.DB, key); verr == nil {
			return nil, "", pgerror.Newf(pgerror.WrongObjectType, "cannot change view %q", name)
		}
		return nil, "", err
	}
	if t.MatView != "" && !b.p.WriteMatView {
		return nil, "", pgerror.Newf(pgerror.WrongObjectType, "cannot change materialized view %q", t.Name)
	}
	if err := b.foreignWritable(t); err != nil {
		return nil, "", err // foreign.go
	}
	alias := at.As.String()
	if alias == "" {
		alias = t.Name
	}
	return t, alias, nil
}

// defaultExpr binds a column's DEFAULT. A serial or identity column's is
// types.SerialDefault, the marked NULL the Insert and Update operators
// replace with the column's next sequence value (a NULL written
// explicitly stays NULL); a hidden row-id column's is NULL, which Insert
// fills the same way.
func (b *binder) defaultExpr(c catalog.Column) (Expr, error) {
	if c.Serial && !c.Hidden {
		return &Const{T: c.Type, Value: types.SerialDefault}, nil
	}
	text := c.Default
	if text == "" && !c.Serial {
		text = b.p.DomainDefault(c.Domain) // usertype.go
	}
	if text == "" || c.Serial {
		return &Const{T: c.Type}, nil
	}
	e, err := exprText(text, "DEFAULT expression")
	if err != nil {
		return nil, pgerror.Newf(pgerror.DataCorrupted, "default of column %q: %v", c.Name, err)
	}
	x, err := b.expr(e, &scope{aggContext: "DEFAULT expressions"})
	if err != nil {
		return nil, err
	}
	return assign(x, c.Type)
}

// generatedAlways is PostgreSQL's 428C9 for a value given to a GENERATED
// ALWAYS identity column.
func generatedAlways(c catalog.Column, update bool) error {
	msg := fmt.Sprintf("cannot insert a non-DEFAULT value into column %q", c.Name)
	if update {
		msg = fmt.Sprintf("column %q can only be updated to DEFAULT", c.Name)
	}
	e := pgerror.New(pgerror.GeneratedAlways, msg)
	e.Detail = fmt.Sprintf("Column %q is an identity column defined as GENERATED ALWAYS.", c.Name)
	if !update {
		e.Hint = "Use OVERRIDING SYSTEM VALUE to override."
	}
	return e
}

// fewerExpressions is PostgreSQL's error for an INSERT with a column
// list that its rows do not fill.
func fewerExpressions() error {
	return pgerror.New(pgerror.SyntaxError, "INSERT has more target columns than expressions")
}

// insert plans INSERT. overriding is "system" or "user" for OVERRIDING
// SYSTEM VALUE / OVERRIDING USER VALUE: a GENERATED ALWAYS identity column
// takes a given value only with the first; the second replaces given
// values of such columns by their sequence's.
func (b *binder) insert(ins *sqlparser.Insert, ret []sqlparser.SelectExpr, overriding string, oc *parse.OnConflictClause, as string) (Node, error) {
	t, alias, uv, err := b.dmlTarget(ins.Table, viewInsert) // viewdml.go
	if err == nil {
		err = b.checkTarget(t, uv, 'a') // privilege.go
	}
	if err != nil {
		return nil, err
	}
	if as != "" {
		alias = as
	}
	// The target columns.
	var targets []int
	if uv != nil {
		// Without a column list, the view's first columns take the
		// values: for a query, once its width is known (below).
		if given := insertWidth(ins.Rows); given >= 0 || len(ins.Columns) > 0 {
			if targets, err = uv.insertTargets(ins.Columns, given); err != nil {
				return nil, err
			}
		}
	} else if len(ins.Columns) == 0 {
		for i, c := range t.Columns {
			if !c.Hidden {
				targets = append(targets, i)
			}
		}
	} else {
		seen := map[int]bool{}
		for _, name := range ins.Columns {
			i := t.ColumnOrdinal(name.String())
			if i < 0 {
				return nil, pgerror.Newf(pgerror.UndefinedColumn, "column %q of relation %q does not exist", name.String(), t.Name)
			}
			if seen[i] {
				return nil, pgerror.Newf(pgerror.DuplicateColumn, "column %q specified more than once", name.String())
			}
			seen[i] = true
			targets = append(targets, i)
		}
	}
	// The source rows.
	var src Node
	switch rows := ins.Rows.(type) {
	case sqlparser.Values:
		v := &Values{}
		for _, r := range rows {
			if len(r) != len(rows[0]) {
				// PostgreSQL checks this before the target list: a
				// shorter row is no row with defaults.
				return nil, pgerror.New(pgerror.SyntaxError, "VALUES lists must all be the same length")
			}
		}
		// One slab for the rows' expression slices and one for the
		// constants of their literals (bind_literal.go).
		w := len(targets)
		exprs := make([]Expr, len(rows)*w)
		consts := make([]Const, 0, len(rows)*w)
		v.Rows = make([][]Expr, 0, len(rows))
		for k, r := range rows {
			if len(r) > len(targets) {
				return nil, pgerror.New(pgerror.SyntaxError, "INSERT has more expressions than target columns")
			}
			if len(r) < len(targets) && len(ins.Columns) > 0 {
				// Only a row without a column list is filled with
				// defaults.
				return nil, fewerExpressions()
			}
			row := exprs[k*w : (k+1)*w : (k+1)*w]
			for i := range targets {
				c := &t.Columns[targets[i]]
				if i < len(r) && !c.IdentityAlways && !(c.IdentityByDefault && overriding == "user") {
					if lc, ok := literalConst(r[i], c.Type); ok {
						consts = append(consts, lc) // within its capacity: earlier pointers stay
						row[i] = &consts[len(consts)-1]
						continue
					}
				}
				if i >= len(r) {
					if row[i], err = b.dmlDefault(t, uv, targets[i]); err != nil {
						return nil, err
					}
					continue
				}
				_, isDefault := r[i].(*sqlparser.Default)
				if c.IdentityAlways && !isDefault {
					switch overriding {
					case "":
						return nil, generatedAlways(*c, false)
					case "user":
						isDefault = true
					}
				}
				if c.IdentityByDefault && overriding == "user" {
					isDefault = true // OVERRIDING USER VALUE: any identity column's value is ignored
				}
				if isDefault {
					if row[i], err = b.dmlDefault(t, uv, targets[i]); err != nil {
						return nil, err
					}
					continue
				}
				x, err := b.expr(r[i], &scope{aggContext: "VALUES", insertTarget: &c.Type})
				if err != nil {
					return nil, err
				}
				if row[i], err = assign(x, c.Type); err != nil {
					return nil, assignError(err, c.Name, c.Type, x.Type())
				}
			}
			v.Rows = append(v.Rows, row)
		}
		for _, i := range targets {
			v.Cols = append(v.Cols, Column{Name: t.Columns[i].Name, T: t.Columns[i].Type})
		}
		src = v
	case sqlparser.TableStatement:
		q, err := b.selectStatement(rows, &scope{})
		if err != nil {
			return nil, err
		}
		qc := q.Columns()
		if uv != nil && len(ins.Columns) == 0 {
			if targets, err = uv.insertTargets(nil, len(qc)); err != nil {
				return nil, err
			}
		}
		if len(qc) > len(targets) {
			return nil, pgerror.New(pgerror.SyntaxError, "INSERT has more expressions than target columns")
		}
		if len(qc) < len(targets) && len(ins.Columns) > 0 {
			return nil, fewerExpressions()
		}
		p := &Project{Input: q}
		for i, ti := range targets {
			c := t.Columns[ti]
			var x Expr
			if i < len(qc) && c.IdentityAlways && overriding == "" {
				return nil, generatedAlways(c, false)
			}
			if i < len(qc) && !((c.IdentityAlways || c.IdentityByDefault) && overriding == "user") {
				x, err = assign(&ColRef{Index: i, T: qc[i].T, Name: qc[i].Name}, c.Type)
				if err != nil {
					return nil, pgerror.Newf(pgerror.DatatypeMismatch, "column %q is of type %s but expression is of type %s", c.Name, c.Type, qc[i].T)
				}
			} else if x, err = b.dmlDefault(t, uv, ti); err != nil {
				return nil, err
			}
			p.Exprs = append(p.Exprs, x)
			p.Cols = append(p.Cols, Column{Name: c.Name, T: c.Type})
		}
		src = p
	default:
		return nil, pgerror.New(pgerror.FeatureNotSupported, "unsupported INSERT source")
	}
	// Full-width rows: targets from the source, the rest from defaults.
	full := &Project{Input: src}
	pos := map[int]int{}
	for i, ti := range targets {
		pos[ti] = i
	}
	for i, c := range t.Columns {
		if p, ok := pos[i]; ok {
			full.Exprs = append(full.Exprs, &ColRef{Index: p, T: c.Type, Name: c.Name})
		} else {
			d, err := b.dmlDefault(t, uv, i)
			if err != nil {
				return nil, err
			}
			full.Exprs = append(full.Exprs, d)
		}
		full.Cols = append(full.Cols, Column{Name: c.Name, T: c.Type})
	}
	n := &Insert{Table: t, Input: full}
	if isIdentity(full) {
		n.Input = src
	}
	if ins.Action == sqlparser.ReplaceAct {
		n.Conflict = ConflictReplace
	} else if ins.Ignore {
		n.Conflict = ConflictIgnore
	}
	if len(ins.OnDup) > 0 {
		return nil, pgerror.New(pgerror.FeatureNotSupported, "ON DUPLICATE KEY UPDATE is not supported")
	}
	if oc != nil {
		if err := b.onConflict(n, oc, alias, uv); err != nil {
			return nil, err
		}
	}
	if n.Checks, n.FKs, n.Referenced, err = b.constraints(t); err != nil {
		return nil, err
	}
	if uv != nil {
		n.Checks = append(n.Checks, uv.checks...)
	}
	if n.Generated, err = b.generated(t); err != nil {
		return nil, err
	}
	if err := b.partitionWrites(n); err != nil {
		return nil, err
	}
	if t.Foreign != nil && (n.Conflict != ConflictError || n.Arbiter != nil) {
		return nil, pgerror.Newf(pgerror.FeatureNotSupported, "ON CONFLICT is not supported on foreign table %q", t.Name)
	}
	if ret != nil {
		if uv != nil {
			n.Returning, n.Cols, err = b.returning(ret, uv.scope(alias))
		} else {
			n.Returning, n.Cols, n.ReturningOID, err = b.returningOID(ret, tableScope(t, alias), alias)
		}
		if err != nil {
			return nil, err
		}
		if uv != nil {
			if err := uv.lowerAll(n.Returning); err != nil {
				return nil, err
			}
		}
	}
	return n, nil
}

// partitionWrites plans what an INSERT into a partitioned table or a
// partition adds: the route to each row's partition, or the bound the
// rows must satisfy.
func (b *binder) partitionWrites(n *Insert) error {
	var err error
	if n.Table.Partitioned() {
		if n.Conflict != ConflictError || n.Arbiter != nil {
			return pgerror.New(pgerror.FeatureNotSupported, "ON CONFLICT on a partitioned table is not supported")
		}
		if n.Route, err = b.partitionRoute(n.Table); err != nil {
			return err
		}
	}
	n.Bounds, err = b.boundChecks(n.Table)
	return err
}

// dmlInput plans the scan that finds the rows an UPDATE or DELETE changes.
// dmlInput plans the rows an UPDATE or DELETE of t changes: t's rows
// that pass where, joined (UPDATE ... FROM, DELETE ... USING) with the
// from items, whose columns follow t's. s, t's scope, gains the from
// items' columns for the SET list.
//
// Through an updatable view (uv not nil), s becomes the view's columns
// followed by the from items': the statement's expressions bound over it
// are lowered onto t's row (viewdml.go), and only the rows the view's
// WHERE admits are changed.
func (b *binder) dmlInput(t *catalog.Table, alias string, from []sqlparser.TableExpr, where *sqlparser.Where, s *scope, uv *updatableView) (Node, error) {
	f := &fromResult{}
	r := &relation{table: t, alias: alias, cols: s.cols}
	f.add(r)
	for _, it := range from {
		if err := b.fromItem(it, s, f); err != nil {
			return nil, err
		}
	}
	s.cols, s.star, s.using = f.cols, f.star, f.using
	filters := append([]Expr{}, f.conds...)
	if uv != nil {
		vs := uv.scope(alias)
		s.cols, s.star, s.using = append(vs.cols, f.cols[len(t.Columns):]...), nil, nil
		filters = append(filters, uv.where...)
	}
	if where != nil {
		s.aggContext = "WHERE"
		w, err := b.boolExpr(where.Expr, s)
		if err != nil {
			return nil, err
		}
		if uv != nil {
			if w, err = lower(w, uv.exprs(), len(t.Columns)); err != nil {
				return nil, err
			}
		}
		filters = append(filters, splitAnd(w)...)
	}
	if b.currentOf != "" {
		cur, err := b.currentOfFilter(t)
		if err != nil {
			return nil, err
		}
		filters = append(filters, cur...)
	}
	return b.joinTree(f, filters, nil, s)
}

func (b *binder) update(up *sqlparser.Update, ret []sqlparser.SelectExpr) (Node, error) {
	if up.Limit != nil || len(up.OrderBy) > 0 {
		return nil, pgerror.New(pgerror.FeatureNotSupported, "UPDATE with ORDER BY or LIMIT is not supported")
	}
	t, alias, uv, err := b.dmlTarget(up.TableExprs[0], viewUpdate) // viewdml.go
	if err == nil {
		err = b.checkTarget(t, uv, 'w') // privilege.go
	}
	if err != nil {
		return nil, err
	}
	if uv != nil {
		// (The view's table has no partitions or children: viewdml.go.)
	} else if tw, err := b.treeWrite(t, alias, up.TableExprs[0], func(te sqlparser.TableExpr) (Node, error) {
		c := *up
		c.TableExprs = append(sqlparser.TableExprs{te}, up.TableExprs[1:]...)
		return b.update(&c, rootStars(ret, t, alias, up.TableExprs[1:])) // inherit.go
	}); tw != nil || err != nil {
		if err == nil {
			err = b.moveRows(t, tw)
		}
		return tw, err
	}
	s := tableScope(t, alias)
	input, err := b.dmlInput(t, alias, up.TableExprs[1:], up.Where, s, uv)
	if err != nil {
		return nil, err
	}
	n := &Update{Table: t, Input: input}
	if n.Set, err = b.assignments(up.Exprs, t, s, uv, nil, viewUpdate); err != nil {
		return nil, err
	}
	if n.Checks, n.FKs, n.Referenced, err = b.constraints(t); err != nil {
		return nil, err
	}
	if uv != nil {
		n.Checks = append(n.Checks, uv.checks...)
	}
	if n.Generated, err = b.generated(t); err != nil {
		return nil, err
	}
	if n.Bounds, err = b.boundChecks(t); err != nil {
		return nil, err
	}
	if ret != nil {
		// Over the new row and the FROM items' columns.
		s.aggContext = "RETURNING"
		if uv != nil {
			n.Returning, n.Cols, err = b.returning(ret, s)
		} else {
			n.Returning, n.Cols, n.ReturningOID, err = b.returningOID(ret, s, alias)
		}
		if err != nil {
			return nil, err
		}
		if uv != nil {
			if err := uv.lowerAll(n.Returning); err != nil {
				return nil, err
			}
		}
	}
	return n, nil
}

// assignments binds a SET list over scope s. A column assigned twice
// takes its rightmost value, as in SQLite and MySQL (PostgreSQL refuses
// with 42601; the corpus expects SQLite's answer: docs/conformance.md).
// Through an updatable view (uv not nil) the names are the view's
// columns and the values are lowered onto t's row through lowered (the
// view's columns when nil); errors are worded for cmd.
func (b *binder) assignments(exprs sqlparser.UpdateExprs, t *catalog.Table, s *scope, uv *updatableView, lowered []Expr, cmd viewCommand) ([]Assignment, error) {
	var set []Assignment
	var err error
	seen := map[int]int{} // column ordinal -> its entry in set
	if uv != nil && lowered == nil {
		lowered = uv.exprs()
	}
	for _, ue := range exprs {
		name := ue.Name.Name.String()
		i := t.ColumnOrdinal(name)
		if uv != nil {
			vi, err := uv.column(name, cmd)
			if err != nil {
				return nil, err
			}
			i = uv.cols[vi].base
		} else if i < 0 || t.Columns[i].Hidden {
			return nil, pgerror.Newf(pgerror.UndefinedColumn, "column %q of relation %q does not exist", name, t.Name)
		}
		var x Expr
		if _, ok := ue.Expr.(*sqlparser.Default); ok {
			x, err = b.dmlDefault(t, uv, i)
		} else if t.Columns[i].IdentityAlways {
			return nil, generatedAlways(t.Columns[i], true)
		} else {
			s.aggContext = "UPDATE"
			if x, err = b.expr(ue.Expr, s); err == nil && uv != nil {
				x, err = lower(x, lowered, len(t.Columns))
			}
		}
		if err != nil {
			return nil, err
		}
		xt := x.Type()
		if x, err = assign(x, t.Columns[i].Type); err != nil {
			return nil, assignError(err, name, t.Columns[i].Type, xt)
		}
		if k, ok := seen[i]; ok {
			set[k].Expr = x
			continue
		}
		seen[i] = len(set)
		set = append(set, Assignment{Col: i, Expr: x})
	}
	return set, nil
}

func (b *binder) delete(del *sqlparser.Delete, ret []sqlparser.SelectExpr, as string) (Node, error) {
	if del.Limit != nil || len(del.OrderBy) > 0 || len(del.Targets) > 1 {
		return nil, pgerror.New(pgerror.FeatureNotSupported, "DELETE with several targets, ORDER BY or LIMIT is not supported")
	}
	target, using := del.TableExprs[0], del.TableExprs[1:]
	if len(del.Targets) == 1 {
		// DELETE FROM t USING u, ...: vitess names t among Targets and
		// lists the USING tables.
		target = &sqlparser.AliasedTableExpr{Expr: del.Targets[0]}
		using = del.TableExprs
	}
	t, alias, uv, err := b.dmlTarget(target, viewDelete) // viewdml.go
	if err == nil {
		err = b.checkTarget(t, uv, 'd') // privilege.go
	}
	if err != nil {
		return nil, err
	}
	if as != "" {
		alias = as
	}
	if uv != nil {
		// (The view's table has no partitions or children: viewdml.go.)
	} else if tw, err := b.treeWrite(t, alias, target, func(te sqlparser.TableExpr) (Node, error) {
		c := *del
		if len(del.Targets) == 1 {
			c.Targets = sqlparser.TableNames{te.(*sqlparser.AliasedTableExpr).Expr.(sqlparser.TableName)}
		} else {
			c.TableExprs = append(sqlparser.TableExprs{te}, del.TableExprs[1:]...)
		}
		return b.delete(&c, rootStars(ret, t, alias, using), alias) // inherit.go
	}); tw != nil || err != nil {
		return tw, err
	}
	s := tableScope(t, alias)
	input, err := b.dmlInput(t, alias, using, del.Where, s, uv)
	if err != nil {
		return nil, err
	}
	n := &Delete{Table: t, Input: input}
	if _, n.Referenced, err = b.foreignKeys(t); err != nil {
		return nil, err
	}
	if ret != nil {
		// Over the deleted row and the USING items' columns.
		s.aggContext = "RETURNING"
		if uv != nil {
			n.Returning, n.Cols, err = b.returning(ret, s)
		} else {
			n.Returning, n.Cols, n.ReturningOID, err = b.returningOID(ret, s, alias)
		}
		if err != nil {
			return nil, err
		}
		if uv != nil {
			if err := uv.lowerAll(n.Returning); err != nil {
				return nil, err
			}
		}
	}
	return n, nil
}

// onConflict binds INSERT's ON CONFLICT clause into n: the arbiter key
// the target names, and DO UPDATE's SET and WHERE over the existing row
// (as the table or its alias) and the proposed one (as EXCLUDED). Through
// an updatable view (uv not nil) both rows are seen as the view's.
func (b *binder) onConflict(n *Insert, oc *parse.OnConflictClause, alias string, uv *updatableView) error {
	t := n.Table
	if n.Conflict != ConflictError {
		return pgerror.New(pgerror.SyntaxError, "ON CONFLICT with INSERT OR REPLACE / IGNORE")
	}
	switch {
	case len(oc.Columns) > 0:
		want := map[int]bool{}
		for _, name := range oc.Columns {
			i := t.ColumnOrdinal(name)
			if uv != nil {
				i = uv.inferenceColumn(name)
			}
			if i < 0 || t.Columns[i].Hidden {
				return pgerror.Newf(pgerror.UndefinedColumn, "column %q does not exist", name)
			}
			want[i] = true
		}
		same := func(cols []int) bool {
			if len(cols) != len(want) {
				return false
			}
			for _, c := range cols {
				if !want[c] {
					return false
				}
			}
			return true
		}
		if !t.HiddenRowID && same(t.PrimaryKey) {
			n.Arbiter = &Arbiter{}
		}
		for _, idx := range t.Indexes {
			if n.Arbiter == nil && idx.Unique && idx.Predicate == "" && same(idx.Columns) {
				n.Arbiter = &Arbiter{Index: idx}
			}
		}
		if n.Arbiter == nil {
			return pgerror.New(pgerror.InvalidColumnReference, "there is no unique or exclusion constraint matching the ON CONFLICT specification")
		}
	case oc.Constraint != "":
		if !t.HiddenRowID && oc.Constraint == t.PrimaryKeyName {
			n.Arbiter = &Arbiter{}
		} else if idx := t.IndexByName(oc.Constraint); idx != nil && idx.Unique {
			n.Arbiter = &Arbiter{Index: idx}
		} else {
			return pgerror.Newf(pgerror.UndefinedObject, "constraint %q for table %q does not exist", oc.Constraint, t.Name)
		}
	case oc.Update:
		return pgerror.New(pgerror.SyntaxError, "ON CONFLICT DO UPDATE requires inference specification or constraint name")
	}
	if !oc.Update {
		n.Conflict = ConflictIgnore
		return nil
	}
	n.Conflict = ConflictUpdate
	s := tableScope(t, alias)
	for i, c := range t.Columns {
		// excluded's columns are seen only qualified (Merged hides them
		// from unqualified names), as in PostgreSQL: SET f1 = f1 + 1
		// reads the target row's f1.
		s.cols = append(s.cols, Column{Name: c.Name, Table: "excluded", T: c.Type, Hidden: c.Hidden, Merged: true, TableID: uint32(t.ID), Attr: int16(i + 1)})
	}
	var lowered []Expr // through a view: its columns over the existing row, then over excluded's
	if uv != nil {
		s = uv.scope(alias)
		for _, c := range uv.cols {
			s.cols = append(s.cols, Column{Name: c.name, Table: "excluded", T: c.t, Merged: true})
		}
		lowered = uv.exprs()
		for _, x := range uv.exprs() {
			lowered = append(lowered, remap(x, uv.shifted(len(t.Columns))))
		}
	}
	var err error
	if n.Set, err = b.assignments(oc.Set, t, s, uv, lowered, viewInsert); err != nil {
		return err
	}
	if oc.Where != nil {
		s.aggContext = "WHERE"
		if n.UpdateWhere, err = b.boolExpr(oc.Where, s); err != nil {
			return err
		}
		if uv != nil {
			if n.UpdateWhere, err = lower(n.UpdateWhere, lowered, len(t.Columns)); err != nil {
				return err
			}
		}
	}
	return nil
}

// constraints binds what a row written to t must satisfy: its CHECK
// constraints, its foreign keys and the keys that reference it.
func (b *binder) constraints(t *catalog.Table) (checks []CheckExpr, fks, refs []FKRef, err error) {
	if checks, err = b.checks(t); err != nil {
		return nil, nil, nil, err
	}
	fks, refs, err = b.foreignKeys(t)
	return checks, fks, refs, err
}

// checks binds t's CHECK constraints over its full-width row, after
// the constraints of its columns' domains (which PostgreSQL checks as
// it converts the values, before the table's).
func (b *binder) checks(t *catalog.Table) ([]CheckExpr, error) {
	var out []CheckExpr
	for i := range t.Columns {
		dom, err := b.p.ColumnDomain(&t.Columns[i]) // usertype.go
		if err != nil {
			return nil, err
		}
		if dom != nil {
			out = append(out, CheckExpr{Name: dom.Name, Domain: dom, Col: i})
		}
	}
	for _, c := range t.Checks {
		x, err := checkExprOf(b, t, c.Expr)
		if err != nil {
			return nil, err
		}
		out = append(out, CheckExpr{Name: c.Name, Expr: x})
	}
	return out, nil
}

// BindCheck binds a CHECK constraint's expression over t's row, with
// PostgreSQL's errors for one that is not boolean, reads an unknown
// column, or holds an aggregate or a subquery.
func (p *Planner) BindCheck(t *catalog.Table, expr string) error {
	_, err := checkExprOf(&binder{p: p}, t, expr)
	return err
}

// BindConversion binds how ALTER COLUMN ... TYPE computes column col's
// new value of type to from a row of t: the USING expression (text; ""
// for the column itself), converted as an assignment converts. A
// conversion PostgreSQL does not do by assignment is 42804 with its hint.
func (p *Planner) BindConversion(t *catalog.Table, col int, using string, to types.T) (Expr, error) {
	b := &binder{p: p}
	name := t.Columns[col].Name
	var x Expr = &ColRef{Index: col, T: t.Columns[col].Type, Name: name}
	if using != "" {
		var err error
		if x, err = b.rowExpr(t, using, "transform expressions"); err != nil { // generated.go
			return nil, err
		}
		if hasSubquery(x) {
			return nil, pgerror.New(pgerror.FeatureNotSupported, "cannot use subquery in transform expression")
		}
	}
	out, err := assign(x, to)
	if err != nil {
		if !pgerror.HasCode(err, pgerror.DatatypeMismatch) {
			return nil, err
		}
		e := pgerror.Newf(pgerror.DatatypeMismatch, "column %q cannot be cast automatically to type %s", name, to)
		e.Hint = fmt.Sprintf("You might need to specify \"USING %s::%s\".", name, to)
		return nil, e
	}
	return out, nil
}

// checkExprOf parses and binds a CHECK expression.
func checkExprOf(b *binder, t *catalog.Table, expr string) (Expr, error) {
	x, err := b.rowExpr(t, expr, "check constraints") // generated.go
	if err != nil {
		return nil, err
	}
	if f := x.Type().Family; f != types.Bool && f != types.Unknown {
		return nil, pgerror.Newf(pgerror.DatatypeMismatch, "argument of CHECK must be type boolean, not type %s", x.Type())
	}
	if x, err = coerceBool(x); err != nil {
		return nil, err
	}
	if hasSubquery(x) {
		return nil, pgerror.New(pgerror.FeatureNotSupported, "cannot use subquery in check constraint")
	}
	return x, nil
}

// foreignKeys resolves t's foreign keys (fks) and those of every table
// of its database that reference t (refs, with the keys referencing the
// tables a cascading delete reaches).
func (b *binder) foreignKeys(t *catalog.Table) (fks, refs []FKRef, err error) {
	return b.foreignKeysDepth(t, 0)
}

func (b *binder) foreignKeysDepth(t *catalog.Table, depth int) (fks, refs []FKRef, err error) {
	tables, err := b.p.Catalog.Tables(t.DB)
	if err != nil {
		return nil, nil, err
	}
	ancestors := b.ancestors(t)
	for _, child := range tables {
		for _, fk := range child.ForeignKeys {
			if child.ID != t.ID && fk.RefTable != t.Key() && !ancestors[fk.RefTable] {
				continue
			}
			r, err := b.fkRef(child, fk)
			if err != nil {
				return nil, nil, err
			}
			if child.ID == t.ID {
				fks = append(fks, r)
			}
			if ancestors[r.Parent.Key()] && r.Parent.ID != t.ID {
				r = fkOnPartition(r, t)
			}
			if r.Parent.ID == t.ID {
				if (r.OnDelete == "cascade" || r.OnUpdate == "cascade") && depth < 16 {
					if _, r.ChildRefs, err = b.foreignKeysDepth(child, depth+1); err != nil {
						return nil, nil, err
					}
				}
				refs = append(refs, r)
			}
		}
	}
	return fks, refs, nil
}

// fkRef resolves one foreign key of child: the parent's key it names
// (its primary key when the key lists no columns) must be the primary key
// or a unique index's columns.
func (b *binder) fkRef(child *catalog.Table, fk catalog.ForeignKey) (FKRef, error) {
	r := FKRef{Name: fk.Name, Child: child, OnDelete: fk.OnDelete, OnUpdate: fk.OnUpdate,
		MatchFull: fk.Match == "full", Deferrable: fk.Deferrable, InitiallyDeferred: fk.InitiallyDeferred}
	r.Name = catalog.ForeignKeyName(child, fk)
	if err := b.fkActions(&r, child, fk); err != nil {
		return r, err
	}
	parent, err := b.p.Catalog.Table(child.DB, fk.RefTable)
	if err != nil {
		return r, err
	}
	r.Parent = parent
	for _, c := range fk.Columns {
		i := child.ColumnOrdinal(c)
		if i < 0 {
			return r, pgerror.Newf(pgerror.UndefinedColumn, "column %q referenced in foreign key constraint does not exist", c)
		}
		r.ChildCols = append(r.ChildCols, i)
	}
	refCols := fk.RefColumns
	if len(refCols) == 0 {
		for _, o := range parent.PrimaryKey {
			refCols = append(refCols, parent.Columns[o].Name)
		}
	}
	for _, c := range refCols {
		i := parent.ColumnOrdinal(c)
		if i < 0 {
			return r, pgerror.Newf(pgerror.UndefinedColumn, "column %q referenced in foreign key constraint does not exist", c)
		}
		r.ParentCols = append(r.ParentCols, i)
	}
	if len(r.ParentCols) != len(r.ChildCols) {
		return r, pgerror.New(pgerror.InvalidForeignKey, "number of referencing and referenced columns for foreign key disagree")
	}
	sameSet := func(a []int) bool {
		if len(a) != len(r.ParentCols) {
			return false
		}
		for _, x := range a {
			if !slices.Contains(r.ParentCols, x) {
				return false
			}
		}
		return true
	}
	// A deferrable key cannot be referenced (PostgreSQL's rule: its rows
	// may hold a key twice until the statement ends).
	deferrable := false
	if !parent.HiddenRowID && sameSet(parent.PrimaryKey) {
		if parent.PrimaryKeyDeferrable {
			if len(fk.RefColumns) == 0 {
				return r, pgerror.Newf(pgerror.ObjectNotInPrerequisiteState, "cannot use a deferrable primary key for referenced table %q", parent.Name)
			}
			deferrable = true
		} else {
			// Look up in primary key order.
			r.ParentCols, r.ChildCols = reorder(parent.PrimaryKey, r.ParentCols, r.ChildCols)
			return r, b.fkParts(&r)
		}
	}
	for _, idx := range parent.Indexes {
		if idx.Unique && idx.Predicate == "" && sameSet(idx.Columns) {
			if idx.Deferrable {
				deferrable = true
				continue
			}
			r.ParentIndex = idx
			r.ParentCols, r.ChildCols = reorder(idx.Columns, r.ParentCols, r.ChildCols)
			return r, b.fkParts(&r)
		}
	}
	if deferrable {
		return r, pgerror.Newf(pgerror.ObjectNotInPrerequisiteState, "cannot use a deferrable unique constraint for referenced table %q", parent.Name)
	}
	return r, pgerror.Newf(pgerror.InvalidForeignKey, "there is no unique constraint matching given keys for referenced table %q", parent.Name)
}

// fkActions fills r.SetCols and, for SET DEFAULT, r.Defaults.
func (b *binder) fkActions(r *FKRef, child *catalog.Table, fk catalog.ForeignKey) error {
	set := fk.DeleteSetColumns
	if len(set) == 0 {
		set = fk.Columns
	}
	for _, c := range set {
		if i := child.ColumnOrdinal(c); i >= 0 {
			r.SetCols = append(r.SetCols, i)
		}
	}
	if fk.OnDelete != "set default" && fk.OnUpdate != "set default" {
		return nil
	}
	r.Defaults = make([]Expr, len(child.Columns))
	for _, c := range fk.Columns {
		i := child.ColumnOrdinal(c)
		if i < 0 {
			continue // fkRef reports it
		}
		x, err := b.defaultExpr(child.Columns[i])
		if err != nil {
			return err
		}
		r.Defaults[i] = x
	}
	return nil
}

// reorder puts parent columns (and the child columns paired with them) in
// the order of key.
func reorder(key, parent, child []int) ([]int, []int) {
	var p, c []int
	for _, k := range key {
		i := slices.Index(parent, k)
		p, c = append(p, parent[i]), append(c, child[i])
	}
	return p, c
}

// fkNumberPromotes reports whether a foreign key from a column of type
// ct to one of type pt may compare numbers: PostgreSQL needs an equality
// operator of the referenced column's operator family taking ct, or an
// implicit cast of ct to pt. Integers compare among themselves, floats
// among themselves; an integer promotes to numeric or a float and a
// numeric to a float, never the other way.
func fkNumberPromotes(ct, pt types.T) bool {
	if !isNumeric(ct.Family) || !isNumeric(pt.Family) {
		return true
	}
	rank := func(f types.Family) int {
		switch {
		case isInteger(f):
			return 0
		case f == types.Numeric:
			return 1
		}
		return 2
	}
	return rank(ct.Family) <= rank(pt.Family)
}

// CheckForeignKeys resolves t's foreign keys as a write would, and
// checks that each pair of columns is comparable: PostgreSQL's errors for
// a missing table or column, a key that is not unique, and
// incompatible types (42804).
func (p *Planner) CheckForeignKeys(t *catalog.Table) error {
	b := &binder{p: p}
	for _, fk := range t.ForeignKeys {
		r, err := b.fkRef(t, fk)
		if err != nil {
			return err
		}
		for _, c := range fk.DeleteSetColumns {
			if t.ColumnOrdinal(c) < 0 {
				return pgerror.Newf(pgerror.UndefinedColumn, "column %q referenced in foreign key constraint does not exist", c)
			}
			if !slices.Contains(fk.Columns, c) {
				return pgerror.Newf(pgerror.InvalidColumnReference, "column %q referenced in ON DELETE SET action must be part of foreign key", c)
			}
		}
		for i := range r.ChildCols {
			ct, pt := t.Columns[r.ChildCols[i]].Type, r.Parent.Columns[r.ParentCols[i]].Type
			if !comparableTypes(ct, pt) || !fkNumberPromotes(ct, pt) {
				e := pgerror.Newf(pgerror.DatatypeMismatch, "foreign key constraint %q cannot be implemented", r.Name)
				e.Detail = fmt.Sprintf("Key columns %q and %q are of incompatible types: %s and %s.",
					t.Columns[r.ChildCols[i]].Name, r.Parent.Columns[r.ParentCols[i]].Name, ct, pt)
				return e
			}
		}
	}
	return nil
}
