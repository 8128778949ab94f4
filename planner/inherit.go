package planner

import (
	"strings"

	"github.com/kvsql/kvsql/catalog"
	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/planner/parse"
	"github.com/kvsql/kvsql/types"
	"vitess.io/vitess/go/vt/sqlparser"
)

// Reading a table with partitions or inheritance children: the FROM item
// is an Append of one scan per member table (the table itself, unless it
// is partitioned and so holds no rows, and every table below it), each
// projected onto the named table's columns by name, plus the hidden
// tableoid column, the member's OID. Each member's scan gets the item's
// filters (so it chooses its own access path), and a partition whose
// bound no row passing the filters can satisfy is left out (pruning,
// which EXPLAIN shows as a shorter Append).

// inheritRead is the member tables of a FROM item that reads a tree.
type inheritRead struct {
	root    *catalog.Table
	members []*catalog.Table
}

// inheritMembers returns the tables a read of t covers, or nil when t
// has no children and is not partitioned (an ordinary scan).
func (b *binder) inheritMembers(t *catalog.Table) []*catalog.Table {
	below := b.p.Catalog.Descendants(b.p.DB, t.Key())
	if len(below) == 0 && !t.Partitioned() {
		return nil
	}
	out := []*catalog.Table{}
	for _, m := range append([]*catalog.Table{t}, below...) {
		if !m.Partitioned() {
			out = append(out, m)
		}
	}
	return out
}

// tableoidColumn is the hidden system column naming a row's table.
func tableoidColumn(alias string) Column {
	return Column{Name: "tableoid", Table: alias, T: tInt8, Hidden: true}
}

// appendScans plans the read of an inheritance tree with the filters
// that apply to it (over its columns, tableoid last) and the columns the
// query needs (nil: all).
func (b *binder) appendScans(r *relation, filters []Expr, needed map[int]bool) *Append {
	oidCol := len(r.cols) - 1
	ap := &Append{Cols: r.cols}
	for _, m := range r.tree.members {
		if b.prunable(r.tree.root, m, filters) {
			continue
		}
		pos := make(map[int]int, oidCol)
		for i, c := range r.cols[:oidCol] {
			pos[i] = m.ColumnOrdinal(c.Name)
		}
		oid := oidConst(int64(m.ID))
		var mf []Expr
		for _, f := range filters {
			g, _ := mapExpr(f, func(x Expr) (Expr, error) {
				if c, ok := x.(*ColRef); ok && c.Outer == 0 {
					if c.Index == oidCol {
						return oid, nil
					}
					if pos[c.Index] < 0 {
						return &Const{Value: types.Null, T: c.T}, nil // a hidden column m lacks
					}
					return &ColRef{Index: pos[c.Index], T: c.T, Name: c.Name}, nil
				}
				return x, nil
			})
			mf = append(mf, g)
		}
		var mneeded map[int]bool
		if needed != nil {
			mneeded = map[int]bool{}
			for c := range needed {
				if c != oidCol && pos[c] >= 0 {
					mneeded[pos[c]] = true
				}
			}
		}
		var cols []Column
		for i, c := range m.Columns {
			cols = append(cols, Column{Name: c.Name, Table: r.alias, T: c.Type, Hidden: c.Hidden, TableID: uint32(m.ID), Attr: int16(i + 1)})
		}
		sc := b.chooseScan(m, r.alias, cols, mf, mneeded)
		p := &Project{Input: sc, Cols: r.cols}
		for i, c := range r.cols[:oidCol] {
			if pos[i] < 0 {
				p.Exprs = append(p.Exprs, &Const{Value: types.Null, T: c.T})
				continue
			}
			p.Exprs = append(p.Exprs, &ColRef{Index: pos[i], T: c.T, Name: c.Name})
		}
		p.Exprs = append(p.Exprs, oid)
		ap.Inputs = append(ap.Inputs, p)
		ap.Rows += sc.Rows
	}
	return ap
}

// prunable reports whether no row passing filters (over root's columns)
// can be in member m: at some level between m and root, a partition
// bound excludes every key the filters allow.
func (b *binder) prunable(root, m *catalog.Table, filters []Expr) bool {
	for t := m; t != nil && t.Key() != root.Key() && t.PartitionOf != ""; {
		parent, err := b.p.Catalog.Table(b.p.DB, t.PartitionOf)
		if err != nil {
			return false
		}
		if excludes(root, parent, t.Bound, filters) {
			return true
		}
		if t.Bound != nil && t.Bound.Default && b.defaultExcluded(root, parent, t, filters) {
			return true
		}
		t = parent
	}
	return false
}

// defaultExcluded reports whether the default partition def of parent
// holds no row the filters allow: they fix every key column to a value
// (or a one-column key to an IN list of them) that other partitions
// take.
func (b *binder) defaultExcluded(root, parent, def *catalog.Table, filters []Expr) bool {
	spec := parent.PartitionBy
	if spec == nil {
		return false
	}
	var others []*catalog.PartitionBound
	for _, sib := range b.p.Catalog.Children(b.p.DB, parent.Key()) {
		if sib.Name != def.Name && sib.Bound != nil {
			others = append(others, sib.Bound)
		}
	}
	taken := func(key []types.Datum) bool {
		for _, o := range others {
			if o.Modulus == 0 && o.Contains(key, 0) {
				return true
			}
		}
		return false
	}
	// An exclusion by any one conjunct is enough.
	for _, f := range filters {
		keys := fixedKeys(root, spec, f)
		all := len(keys) > 0
		for _, key := range keys {
			all = all && taken(key)
		}
		if all {
			return true
		}
	}
	return false
}

// fixedKeys returns, for a one-column key fixed by f (k = v or k IN
// (...)), the keys f allows; nil when f does not fix the key.
func fixedKeys(root *catalog.Table, spec *catalog.PartitionSpec, f Expr) [][]types.Datum {
	if len(spec.Keys) != 1 || !spec.KeyColumns[0] {
		return nil
	}
	isKey := func(x Expr) bool {
		c, ok := x.(*ColRef)
		return ok && c.Outer == 0 && c.Index < len(root.Columns) && root.Columns[c.Index].Name == spec.Keys[0]
	}
	kind := spec.KeyTypes[0].Kind()
	var keys [][]types.Datum
	switch x := f.(type) {
	case *BinOp:
		c, v, op, ok := colConst(x)
		if !ok || op != "=" || !isKey(c) || v.Value.Kind != kind {
			return nil
		}
		keys = append(keys, []types.Datum{v.Value})
	case *In:
		if x.Not || !isKey(x.X) {
			return nil
		}
		for _, e := range x.List {
			v, ok := e.(*Const)
			if !ok || v.Value.Kind != kind {
				return nil
			}
			keys = append(keys, []types.Datum{v.Value})
		}
	default:
		return nil
	}
	return keys
}

// excludes reports whether bound (of a partition of parent) takes no key
// the filters allow. Only plain column keys compared with constants
// (=, IN, and <, <=, >, >= for a list or one-column range) are understood; the
// default partition is never excluded.
func excludes(root, parent *catalog.Table, bound *catalog.PartitionBound, filters []Expr) bool {
	spec := parent.PartitionBy
	if spec == nil || bound == nil || bound.Default || bound.Modulus > 0 {
		return false
	}
	keyAt := func(c *ColRef) int { // which key column of parent c reads
		if c.Outer != 0 || c.Index >= len(root.Columns) {
			return -1
		}
		for k, name := range spec.Keys {
			if spec.KeyColumns[k] && name == root.Columns[c.Index].Name {
				return k
			}
		}
		return -1
	}
	fixed := make([]types.Datum, len(spec.Keys))
	found := make([]bool, len(spec.Keys))
	for _, f := range filters {
		switch x := f.(type) {
		case *BinOp:
			c, v, op, ok := colConst(x)
			if !ok {
				continue
			}
			k := keyAt(c)
			if k < 0 || v.Value.Kind != spec.KeyTypes[k].Kind() {
				continue
			}
			if op == "=" {
				fixed[k], found[k] = v.Value, true
				continue
			}
			if len(spec.Keys) == 1 && len(bound.From) == 1 && outsideRange(bound, op, v.Value) {
				return true
			}
			if len(bound.In) > 0 && noneSatisfies(bound.In, op, v.Value) {
				return true
			}
		case *In:
			c, ok := x.X.(*ColRef)
			if !ok || x.Not || len(spec.Keys) != 1 || keyAt(c) != 0 {
				continue
			}
			any := false
			for _, e := range x.List {
				v, ok := e.(*Const)
				if !ok || v.Value.Kind != spec.KeyTypes[0].Kind() || bound.Contains([]types.Datum{v.Value}, 0) {
					any = true
					break
				}
			}
			if !any {
				return true
			}
		}
	}
	for _, ok := range found {
		if !ok {
			return false
		}
	}
	return !bound.Contains(fixed, 0)
}

// colConst matches `column op constant` either way round, turning the
// operator so the column is on the left.
func colConst(x *BinOp) (*ColRef, *Const, string, bool) {
	flip := map[string]string{"=": "=", "<": ">", "<=": ">=", ">": "<", ">=": "<="}
	if _, ok := flip[x.Op]; !ok {
		return nil, nil, "", false
	}
	if c, ok := x.L.(*ColRef); ok {
		if v, ok := x.R.(*Const); ok && !v.Value.IsNull() {
			return c, v, x.Op, true
		}
	}
	if c, ok := x.R.(*ColRef); ok {
		if v, ok := x.L.(*Const); ok && !v.Value.IsNull() {
			return c, v, flip[x.Op], true
		}
	}
	return nil, nil, "", false
}

// outsideRange reports whether `key op v` excludes every key of a
// one-column range bound [From, To).
func outsideRange(b *catalog.PartitionBound, op string, v types.Datum) bool {
	lo, hi := b.From[0], b.To[0]
	switch op {
	case "<", "<=":
		// keys <= v: none when v is below the lower end.
		if lo.Inf != 0 {
			return lo.Inf > 0
		}
		c := catalog.CompareKey(v, lo.Value)
		return c < 0 || c == 0 && op == "<"
	case ">", ">=":
		// keys >= v: none when v is at or past the (exclusive) upper end.
		if hi.Inf != 0 {
			return hi.Inf < 0
		}
		return catalog.CompareKey(v, hi.Value) >= 0
	}
	return false
}

// tableoidName binds tableoid::regclass: the name of the row's table,
// as a regclass prints (kvsql's regclass is the OID's integer, so the
// cast of the system column is spelled as a CASE over the tables).
func (b *binder) tableoidName(c Expr) Expr {
	k := &Case{Operand: c, T: tText}
	tables, _ := b.p.Catalog.Tables(b.p.DB)
	for _, t := range tables {
		k.Whens = append(k.Whens, When{Cond: oidConst(int64(t.ID)), Val: textConst(b.visibleName(t.Key(), t.Name))})
	}
	return finishCase(k)
}

// isTableoid reports whether e, bound from x, is the system column
// tableoid: a tree's hidden column, or a plain table's OID (scope.tableoid).
func isTableoid(x sqlparser.Expr, e Expr) bool {
	if c, ok := e.(*ColRef); ok {
		return c.Name == "tableoid" || strings.HasSuffix(c.Name, ".tableoid")
	}
	cn, ok := x.(*sqlparser.ColName)
	_, isConst := e.(*Const)
	return ok && isConst && cn.Name.EqualString("tableoid")
}

// treeWrite plans an UPDATE or DELETE whose target t (named by te, as
// alias) has partitions or inheritance children and is not marked ONLY:
// the statement is bound once per member table, each as its ONLY target
// under the same alias. It returns nil for any other target.
func (b *binder) treeWrite(t *catalog.Table, alias string, te sqlparser.TableExpr, bind func(sqlparser.TableExpr) (Node, error)) (*TreeWrite, error) {
	at := te.(*sqlparser.AliasedTableExpr)
	if _, only := parse.OnlyTable(at.Expr.(sqlparser.TableName).Name.String()); only {
		return nil, nil
	}
	members := b.inheritMembers(t)
	if members == nil {
		return nil, nil
	}
	tw := &TreeWrite{}
	for _, m := range members {
		mt := *at
		mt.Expr = sqlparser.TableName{Name: sqlparser.NewIdentifierCS(parse.MarkOnly(m.Key()))}
		mt.As = sqlparser.NewIdentifierCS(alias)
		n, err := bind(&mt)
		if err != nil {
			return nil, err
		}
		if tw.Writes != nil && len(n.Columns()) != len(tw.Cols) {
			// RETURNING * with FROM or USING items spells each member's
			// own columns (rootStars cannot name the items' columns).
			return nil, pgerror.New(pgerror.FeatureNotSupported, "RETURNING * of an UPDATE or DELETE with FROM or USING over an inheritance tree is not supported: list the columns")
		}
		tw.Writes = append(tw.Writes, n)
		tw.Cols = n.Columns()
	}
	return tw, nil
}

// rootStars spells the * (and alias.*) of a RETURNING list over an
// inheritance tree as the root table's columns, so that each member's
// write returns the root's columns, as PostgreSQL does; a child's own
// columns are not returned. With FROM or USING items an unqualified *
// also stands for their columns: it becomes the root's columns and then
// item.* for each item (left as it is when an item has no name to
// qualify with).
func rootStars(ret []sqlparser.SelectExpr, t *catalog.Table, alias string, from sqlparser.TableExprs) []sqlparser.SelectExpr {
	if ret == nil {
		return nil
	}
	items, named := fromItemNames(from)
	var out []sqlparser.SelectExpr
	for _, se := range ret {
		star, ok := se.(*sqlparser.StarExpr)
		q := ""
		if ok {
			q = star.TableName.Name.String()
		}
		if !ok || q == "" && !named || q != "" && q != alias {
			out = append(out, se)
			continue
		}
		for _, c := range t.Columns {
			if !c.Hidden {
				out = append(out, &sqlparser.AliasedExpr{Expr: sqlparser.NewColNameWithQualifier(c.Name, sqlparser.NewTableName(alias))})
			}
		}
		if q == "" {
			for _, name := range items {
				out = append(out, &sqlparser.StarExpr{TableName: sqlparser.NewTableName(name)})
			}
		}
	}
	return out
}

// fromItemNames lists the names that qualify the columns of FROM items,
// in order (an alias, else the table's name), through joins; named is
// false when an item has none.
func fromItemNames(from sqlparser.TableExprs) (names []string, named bool) {
	named = true
	var walk func(te sqlparser.TableExpr)
	walk = func(te sqlparser.TableExpr) {
		switch e := te.(type) {
		case *sqlparser.AliasedTableExpr:
			switch {
			case !e.As.IsEmpty():
				names = append(names, e.As.String())
			default:
				if tn, ok := e.Expr.(sqlparser.TableName); ok {
					_, bare := catalog.SplitRelKey(tn.Name.String())
					bare, _ = parse.OnlyTable(bare)
					names = append(names, bare)
				} else {
					named = false
				}
			}
		case *sqlparser.JoinTableExpr:
			walk(e.LeftExpr)
			walk(e.RightExpr)
		case *sqlparser.ParenTableExpr:
			for _, x := range e.Exprs {
				walk(x)
			}
		default:
			named = false
		}
	}
	for _, te := range from {
		walk(te)
	}
	return names, named
}

// moveRows lets each partition's UPDATE in tw move a row whose new key
// belongs in another partition of t.
func (b *binder) moveRows(t *catalog.Table, tw *TreeWrite) error {
	if !t.Partitioned() {
		return nil
	}
	route, err := b.partitionRoute(t)
	if err != nil {
		return err
	}
	for _, w := range tw.Writes {
		if u, ok := w.(*Update); ok {
			u.Move = &Insert{Table: t, Route: route}
		}
	}
	return nil
}

// noneSatisfies reports whether no value of a list bound satisfies
// `value op v` (NULL satisfies no comparison).
func noneSatisfies(list []types.Datum, op string, v types.Datum) bool {
	for _, d := range list {
		if d.IsNull() {
			continue
		}
		c := catalog.CompareKey(d, v)
		if op == "<" && c < 0 || op == "<=" && c <= 0 || op == ">" && c > 0 || op == ">=" && c >= 0 {
			return false
		}
	}
	return true
}
