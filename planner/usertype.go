package planner

import (
	"fmt"
	"strconv"
	"strings"

	"vitess.io/vitess/go/vt/sqlparser"

	"github.com/kvsql/kvsql/catalog"
	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/planner/parse"
	"github.com/kvsql/kvsql/types"
)

// User types: composite types and domains (catalog.UserType). A
// composite type resolves to types.RecordOf a types.Composite built from
// its fields; a domain to its base type plus a DomainConstraint that
// casts to the domain (and populate_record's fields) check.

// DomainConstraint is what a value of a domain must satisfy: NOT NULL
// (23502) and CHECK constraints (23514), each bound over the one-column
// row [VALUE].
type DomainConstraint struct {
	Name    string
	OID     uint32 // the domain's
	NotNull bool
	Checks  []CheckExpr
	// Elements marks the constraint of an array of the domain: it holds
	// for each element (NOT NULL too), not for the array.
	Elements bool
}

func init() {
	catalog.CompositeResolver = compositeOf
}

// compositeOf is catalog.CompositeResolver: the descriptor of the
// composite type oid of db, its fields' types resolved as a planner with
// the default search path resolves them; nil when there is none.
func compositeOf(c *catalog.Catalog, db string, oid uint64) *types.Composite {
	u := c.UserTypeByOID(db, oid)
	if u == nil || u.Kind != "c" {
		return nil
	}
	t, _, err := (&binder{p: &Planner{Catalog: c, DB: db}}).userType(u, 0)
	if err != nil {
		return nil
	}
	return t.Comp
}

// maxTypeDepth bounds the nesting of types in types (a composite whose
// field is a domain over a composite ...); deeper is refused.
const maxTypeDepth = 32

// LookupTypeKey resolves a user type's name ("name", "schema.name" or a
// parse.QualifiedRef) to its key in the catalog: a qualified name in its
// schema, an unqualified one in the first schema of the search path
// that has it. ok is false when no type has the name.
func (p *Planner) LookupTypeKey(ref string) (key string, ok bool) {
	db, schema, name := SplitRef(ref)
	if schema == "" && db == "" && strings.Contains(name, ".") {
		schema, name, _ = strings.Cut(name, ".")
	}
	if schema = p.schemaAlias(schema); schema != "" {
		key = catalog.RelKey(schema, name)
		return key, p.Catalog.UserType(p.DB, key) != nil
	}
	for _, s := range p.pathSchemas() {
		if key := catalog.RelKey(s, name); p.Catalog.UserType(p.DB, key) != nil {
			return key, true
		}
	}
	return "", false
}

// ResolveType maps a type name to a type: a built-in one
// (TypeFromName), "record", or a user type of the catalog (an array of
// one with a [] suffix). dom is the domain's constraint when the name is
// a domain (nil for other types and for arrays of domains, which
// PostgreSQL does not check either).
func (p *Planner) ResolveType(name string, length, scale *int) (t types.T, dom *DomainConstraint, err error) {
	return (&binder{p: p}).resolveType(name, length, scale, 0)
}

func (b *binder) resolveType(name string, length, scale *int, depth int) (types.T, *DomainConstraint, error) {
	if length == nil {
		name, length, scale = typeModifiers(name)
	}
	t, err := typeFromName(name, length, scale)
	if err == nil || !pgerror.HasCode(err, pgerror.UndefinedObject) {
		return t, nil, err
	}
	n := strings.TrimSpace(name)
	if strings.EqualFold(n, "record") {
		return types.T{Family: types.Record}, nil, nil
	}
	if depth > maxTypeDepth {
		return types.T{}, nil, pgerror.Newf(pgerror.InvalidObjectDefinition, "type %q nests types too deeply", name)
	}
	elem, isArray := strings.CutSuffix(n, "[]")
	if !isArray && strings.HasPrefix(n, "_") {
		if _, ok := b.p.LookupTypeKey(n[1:]); ok {
			elem, isArray = n[1:], true
		}
	}
	key, ok := b.p.LookupTypeKey(elem)
	if !ok {
		return types.T{}, nil, err
	}
	u := b.p.Catalog.UserType(b.p.DB, key)
	et, dom, err := b.userType(u, depth+1)
	if err != nil {
		return types.T{}, nil, err
	}
	if isArray {
		if dom != nil {
			if et.IsArray() {
				return types.T{}, nil, pgerror.Newf(pgerror.FeatureNotSupported, "arrays of domain %s over an array type are not supported", dom.Name)
			}
			elems := *dom
			elems.Elements = true
			return types.ArrayOf(et), &elems, nil
		}
		return types.ArrayOf(et), nil, nil
	}
	return et, dom, nil
}

// userType resolves the catalog's type u.
func (b *binder) userType(u *catalog.UserType, depth int) (types.T, *DomainConstraint, error) {
	if u.Kind == "e" {
		return types.EnumOf(u.Enum()), nil, nil
	}
	if u.Kind == "d" {
		base, baseDom, err := b.resolveType(u.Base, nil, nil, depth)
		if err != nil {
			return types.T{}, nil, err
		}
		dom, err := b.domainConstraint(u, base, baseDom)
		return base, dom, err
	}
	if b.p.comps == nil {
		b.p.comps = map[string]*types.Composite{}
	}
	if c, ok := b.p.comps[u.Key()]; ok {
		return types.RecordOf(c), nil, nil
	}
	c := &types.Composite{Name: catalog.DisplayName(u.Key()), OID: uint32(u.OID()), ArrayOID: uint32(u.ArrayOID())}
	for _, a := range u.Attrs {
		ft, _, err := b.resolveType(a.Type, nil, nil, depth)
		if err != nil {
			return types.T{}, nil, err
		}
		c.Fields = append(c.Fields, types.Field{Name: a.Name, T: ft})
	}
	b.p.comps[u.Key()] = c
	return types.RecordOf(c), nil, nil
}

// domainConstraint binds u's constraints over a value of type base;
// a domain over a domain checks the inner domain's constraints too.
func (b *binder) domainConstraint(u *catalog.UserType, base types.T, inner *DomainConstraint) (*DomainConstraint, error) {
	dom := &DomainConstraint{Name: u.Name, OID: uint32(u.OID()), NotNull: u.NotNull}
	if inner != nil {
		dom.NotNull = dom.NotNull || inner.NotNull
		dom.Checks = append(dom.Checks, inner.Checks...)
	}
	for _, c := range u.Checks {
		x, err := b.DomainCheckExpr(base, c.Expr)
		if err != nil {
			return nil, err
		}
		dom.Checks = append(dom.Checks, CheckExpr{Name: c.Name, Expr: x})
	}
	return dom, nil
}

// DomainCheckExpr binds a domain's CHECK expression, which reads the
// value as VALUE, over the one-column row [VALUE] of type base.
func (b *binder) DomainCheckExpr(base types.T, expr string) (Expr, error) {
	t := &catalog.Table{Columns: []catalog.Column{{Name: "value", Type: base}}}
	return checkExprOf(b, t, expr)
}

// BindDomainCheck checks that a CHECK constraint of a domain over base
// binds (CREATE DOMAIN, ALTER DOMAIN ADD CONSTRAINT).
func (p *Planner) BindDomainCheck(base types.T, expr string) error {
	_, err := (&binder{p: p}).DomainCheckExpr(base, expr)
	return err
}

// DomainCheckFor returns the constraint of the domain key names, bound.
func (p *Planner) DomainCheckFor(key string) (*DomainConstraint, error) {
	u := p.Catalog.UserType(p.DB, key)
	if u == nil || u.Kind != "d" {
		return nil, pgerror.Newf(pgerror.UndefinedObject, "type %q does not exist", catalog.DisplayName(key))
	}
	_, dom, err := (&binder{p: p}).userType(u, 0)
	return dom, err
}

// ColumnDomain returns the constraint a value written to column c must
// satisfy, bound: its domain's (for each element, when c is an array of
// the domain); nil for a column without a domain.
func (p *Planner) ColumnDomain(c *catalog.Column) (*DomainConstraint, error) {
	if c.Domain == 0 {
		return nil, nil
	}
	u := p.Catalog.UserTypeByOID(p.DB, uint64(c.Domain))
	if u == nil || u.Kind != "d" {
		return nil, pgerror.Newf(pgerror.DataCorrupted, "column %q: its domain (OID %d) does not exist", c.Name, c.Domain)
	}
	base, dom, err := (&binder{p: p}).userType(u, 0)
	if err != nil {
		return nil, err
	}
	if c.Type.IsArray() && !base.IsArray() {
		elems := *dom
		elems.Elements = true
		return &elems, nil
	}
	return dom, nil
}

// DomainDefault is the DEFAULT a column of domain oid takes when it has
// none of its own: the domain's, or that of the domain it is over; ""
// for none.
func (p *Planner) DomainDefault(oid uint32) string {
	for depth := 0; oid != 0 && depth < maxTypeDepth; depth++ {
		u := p.Catalog.UserTypeByOID(p.DB, uint64(oid))
		if u == nil || u.Kind != "d" {
			return ""
		}
		if u.Default != "" {
			return u.Default
		}
		key, ok := p.LookupTypeKey(u.Base)
		if !ok {
			return ""
		}
		oid = uint32(p.Catalog.UserType(p.DB, key).OID())
	}
	return ""
}

// jsonPopulateFunc plans jsonb_populate_record[set] and
// json_populate_record[set] in FROM: args are the base record, the
// document and, for a base of type record, the column definition list
// (as jsonRecordFunc reads it). The columns are the base type's fields;
// the node's arguments are the document, then the base, whose fields
// fill in the members the document lacks.
func (b *binder) jsonPopulateFunc(name string, args []Expr, ordinality, asRecord bool) (Node, error) {
	if len(args) < 2 {
		return nil, pgerror.Newf(pgerror.UndefinedFunction, "function %s does not exist", name)
	}
	base := args[0]
	bt := base.Type()
	if bt.Family == types.Unknown {
		e := pgerror.Newf(pgerror.UndefinedFunction, "function %s(unknown, %s) does not exist", name, args[1].Type())
		e.Hint = "No function matches the given name and argument types. You might need to add explicit type casts."
		return nil, e
	}
	if bt.Family != types.Record {
		return nil, pgerror.Newf(pgerror.DatatypeMismatch, "first argument of %s must be a row type", name)
	}
	defs := args[2:]
	if anonymous(bt) && (bt.Comp == nil || len(defs) > 0) {
		if len(defs) > 0 && bt.Comp != nil {
			if err := matchRowDefs(bt, defs); err != nil {
				return nil, err
			}
		}
		if asRecord {
			return nil, pgerror.Newf(pgerror.FeatureNotSupported, "%s of an anonymous record in a select list is not supported: call it in FROM with a column definition list", name)
		}
		n, err := b.jsonRecordFunc(strings.Replace(name, "populate_", "to_", 1), append([]Expr{args[1]}, defs...), ordinality)
		if err != nil {
			return nil, err
		}
		tf := n.(*TableFunc)
		tf.Name = name
		tf.Args = append(tf.Args, base)
		return tf, nil
	}
	if len(defs) > 0 {
		return nil, pgerror.New(pgerror.SyntaxError, `a column definition list is only allowed for functions returning "record"`)
	}
	want := tJSONB
	if strings.HasPrefix(name, "json_") {
		want = tJSON
	}
	doc := args[1]
	var err error
	if doc.Type().Family == types.Unknown {
		if doc, err = coerce(doc, want); err != nil {
			return nil, err
		}
	}
	if doc.Type().Family != want.Family {
		return nil, pgerror.Newf(pgerror.UndefinedFunction, "function %s(%s, %s) does not exist", name, bt, doc.Type())
	}
	n := &TableFunc{Name: name, Args: []Expr{doc, base}, Ordinality: ordinality}
	u := b.p.Catalog.UserTypeByOID(b.p.DB, uint64(bt.Comp.OID))
	for i, f := range bt.Comp.Fields {
		n.Cols = append(n.Cols, Column{Name: f.Name, T: f.T})
		var dom *DomainConstraint
		if u != nil && i < len(u.Attrs) {
			if _, dom, err = b.resolveType(u.Attrs[i].Type, nil, nil, 1); err != nil {
				return nil, err
			}
		}
		n.Domains = append(n.Domains, dom)
	}
	if c, ok := base.(*Cast); ok && c.Domain != nil {
		n.RecordDomain = c.Domain
	}
	if asRecord {
		n.AsRecord, n.Cols = true, []Column{{Name: srfColumn, T: bt}}
	}
	if ordinality {
		n.Cols = append(n.Cols, Column{Name: "ordinality", T: tInt8})
	}
	return n, nil
}

// anonymous reports whether t is the anonymous record type (a row
// constructor's, or record itself).
func anonymous(t types.T) bool {
	return t.Family == types.Record && (t.Comp == nil || t.Comp.OID == types.Record.OID())
}

// matchRowDefs checks a column definition list against the row
// constructor's fields that give a populate function its row type
// (42804 as PostgreSQL's "function return row and query-specified
// return row do not match").
func matchRowDefs(bt types.T, defs []Expr) error {
	mismatch := func(detail string, args ...any) error {
		e := pgerror.New(pgerror.DatatypeMismatch, "function return row and query-specified return row do not match")
		e.Detail = fmt.Sprintf(detail, args...)
		return e
	}
	n := len(defs) / 2
	if len(bt.Comp.Fields) != n {
		word := "attributes"
		if len(bt.Comp.Fields) == 1 {
			word = "attribute"
		}
		return mismatch("Returned row contains %d %s, but query expects %d.", len(bt.Comp.Fields), word, n)
	}
	for i, f := range bt.Comp.Fields {
		if want := defs[2*i+1].Type(); f.T != want {
			return mismatch("Returned type %s at ordinal position %d, but query expects %s.", f.T, i+1, want)
		}
	}
	return nil
}

// populateScalar binds jsonb_populate_record(base, doc) (or json_) as
// an expression: the record of base's type the document fills in.
func (b *binder) populateScalar(name string, exprs []sqlparser.Expr, s *scope) (Expr, error) {
	args := make([]Expr, len(exprs))
	for i, x := range exprs {
		a, err := b.expr(x, s)
		if err != nil {
			return nil, err
		}
		args[i] = a
	}
	if t := args[0].Type(); t.Family == types.Record && t.Comp == nil {
		return nil, pgerror.Newf(pgerror.FeatureNotSupported, "could not determine row type for result of %s", name)
	}
	n, err := b.jsonPopulateFunc(name, args, false, false)
	if err != nil {
		return nil, err
	}
	tf := n.(*TableFunc)
	bt := args[0].Type()
	if bt.Comp == nil {
		return nil, pgerror.Newf(pgerror.FeatureNotSupported, "could not determine row type for result of %s", name)
	}
	for _, d := range tf.Domains {
		if d != nil {
			return nil, pgerror.Newf(pgerror.FeatureNotSupported, "%s over a type with domain fields is supported only in FROM", name)
		}
	}
	var x Expr = &Func{Name: name, Args: tf.Args, T: bt}
	if tf.RecordDomain != nil {
		x = &Cast{X: x, T: bt, Domain: tf.RecordDomain}
	}
	return x, nil
}

// typeModifiers takes the modifiers out of a type as the dialect layer
// spells one in a definition ("char(10)[]", "numeric(10,2)"): the name
// without them ("char[]") and their values. A name without modifiers
// comes back unchanged.
func typeModifiers(name string) (string, *int, *int) {
	open := strings.IndexByte(name, '(')
	end := strings.IndexByte(name, ')')
	if open < 0 || end < open {
		return name, nil, nil
	}
	var mods []*int
	for _, m := range strings.Split(name[open+1:end], ",") {
		v, err := strconv.Atoi(strings.TrimSpace(m))
		if err != nil {
			return name, nil, nil
		}
		mods = append(mods, &v)
	}
	rest := name[:open] + name[end+1:]
	switch len(mods) {
	case 1:
		return rest, mods[0], nil
	case 2:
		return rest, mods[0], mods[1]
	}
	return name, nil, nil
}

// RowFunc is the function a row constructor, ROW(a, b) or (a, b), binds
// to: its value is the record of its arguments. FieldFunc(x, i) is field
// i (from 0) of the record x. Both names carry the reserved marker
// prefix, so no user text calls them.
const (
	RowFunc   = "kvsql_row"
	FieldFunc = "kvsql_field"
)

// rowConstructor binds ROW(a, b, ...): a record of the anonymous record
// type whose fields have the arguments' types (an untyped literal is
// text, as PostgreSQL resolves it).
func (b *binder) rowConstructor(e sqlparser.ValTuple, s *scope) (Expr, error) {
	args := make([]Expr, 0, len(e))
	c := &types.Composite{Name: "record", OID: types.Record.OID()}
	for _, x := range e {
		if f, ok := x.(*sqlparser.FuncExpr); ok && f.Name.Lowered() == parse.MarkerWholeRow && len(f.Exprs) == 1 {
			// ROW(t.*) is ROW of t's columns.
			name, err := wholeRowName(f.Exprs[0])
			if err != nil {
				return nil, err
			}
			fields, comp, _, ok, err := s.wholeRowParts(name)
			if err != nil {
				return nil, err
			}
			if !ok {
				return nil, pgerror.Newf(pgerror.UndefinedTable, "missing FROM-clause entry for table %q", name)
			}
			for i, f := range fields {
				args = append(args, f)
				c.Fields = append(c.Fields, types.Field{Name: "f" + strconv.Itoa(len(c.Fields)+1), T: comp.Fields[i].T})
			}
			continue
		}
		a, err := b.expr(x, s)
		if err != nil {
			return nil, err
		}
		if a.Type().Family == types.Unknown {
			if a, err = coerce(a, tText); err != nil {
				return nil, err
			}
		}
		args = append(args, a)
		c.Fields = append(c.Fields, types.Field{Name: "f" + strconv.Itoa(len(c.Fields)+1), T: a.Type()})
	}
	return &Func{Name: RowFunc, Args: args, T: types.RecordOf(c)}, nil
}

// wholeRow binds a FROM item's name used as a value (SELECT t FROM t,
// row_to_json(t), count(t.*)): the record of its columns, named as they
// are. A row an outer join made up is the NULL record, as in PostgreSQL:
// a base table's is told by its primary key being NULL, which a stored
// row's never is; a derived table's on an outer join's nullable side by
// all its columns being NULL. ok is false when no FROM item at any level
// has the name.
func (s *scope) wholeRow(name string) (x Expr, ok bool, err error) {
	fields, comp, keys, ok, err := s.wholeRowParts(name)
	if !ok || err != nil {
		return nil, ok, err
	}
	t := types.RecordOf(comp)
	row := &Func{Name: RowFunc, Args: fields, T: t}
	if len(keys) == 0 {
		return row, true, nil
	}
	return &Case{Whens: []When{{Cond: &And{Args: keys}, Val: &Const{Value: types.Null, T: t}}}, Else: row, T: t}, true, nil
}

// wholeRowParts finds the nearest FROM item named name: references to its
// visible columns, their record type, and the IS NULL tests that tell a
// row an outer join made up: of its primary key's columns, or, for a
// derived table on the nullable side, of all its columns.
func (s *scope) wholeRowParts(name string) (fields []Expr, comp *types.Composite, keys []Expr, ok bool, err error) {
	depth := 0
	for sc := s; sc != nil; sc, depth = sc.parent, depth+1 {
		comp = &types.Composite{Name: "record", OID: types.Record.OID()}
		for i, c := range sc.cols {
			if c.Table != name {
				continue
			}
			if !ok && depth > 0 {
				s.markCorrelated(sc)
			}
			ok = true
			// By position: a derived table's columns may share a name.
			ref := &ColRef{Index: i, Outer: depth, T: c.T, Name: qualifiedName(c)}
			if c.Key {
				keys = append(keys, &IsNull{X: ref})
			}
			if !c.Hidden {
				fields = append(fields, ref)
				comp.Fields = append(comp.Fields, types.Field{Name: c.Name, T: c.T})
			}
		}
		if ok {
			if len(keys) == 0 && len(fields) > 0 && outerSide(sc.cols, name) {
				for _, f := range fields {
					keys = append(keys, &IsNull{X: f})
				}
			}
			return fields, comp, keys, true, nil
		}
	}
	return nil, nil, nil, false, nil
}

// outerSide reports whether the columns of the FROM item name are on an
// outer join's nullable side.
func outerSide(cols []Column, name string) bool {
	for _, c := range cols {
		if c.Table == name && c.NullExtended {
			return true
		}
	}
	return false
}

// wholeRowStar binds MarkerWholeRow(t), t.* inside an expression.
func (b *binder) wholeRowStar(arg sqlparser.Expr, s *scope) (Expr, error) {
	name, err := wholeRowName(arg)
	if err != nil {
		return nil, err
	}
	row, ok, err := s.wholeRow(name)
	if !ok {
		return nil, pgerror.Newf(pgerror.UndefinedTable, "missing FROM-clause entry for table %q", name)
	}
	return row, err
}

// wholeRowName is the table name MarkerWholeRow's argument carries.
func wholeRowName(arg sqlparser.Expr) (string, error) {
	c, ok := arg.(*sqlparser.ColName)
	if !ok || !c.Qualifier.IsEmpty() {
		return "", pgerror.New(pgerror.SyntaxError, "syntax error at or near \"*\"")
	}
	return c.Name.String(), nil
}

// castRow binds a cast of a row constructor to a composite type as
// PostgreSQL does: field by field, each argument cast to its field's
// type; other expressions come back unchanged.
func castRow(e Expr, t types.T) (Expr, error) {
	f, ok := e.(*Func)
	if !ok || f.Name != RowFunc || t.Family != types.Record || t.Comp == nil {
		return e, nil
	}
	if len(f.Args) != len(t.Comp.Fields) {
		err := pgerror.Newf("42846", "cannot cast type record to %s", t)
		if len(f.Args) > len(t.Comp.Fields) {
			err.Detail = "Input has too many columns."
		} else {
			err.Detail = "Input has too few columns."
		}
		return nil, err
	}
	args := make([]Expr, len(f.Args))
	for i, a := range f.Args {
		ft := t.Comp.Fields[i].T
		switch c, isConst := a.(*Const); {
		case isConst:
			x, err := castConst(c, ft)
			if err != nil {
				return nil, err
			}
			args[i] = x
		case a.Type() == ft:
			args[i] = a
		default:
			args[i] = &Cast{X: a, T: ft}
		}
	}
	return &Func{Name: RowFunc, Args: args, T: t}, nil
}

// columnDomainName is the name regtype prints for the domain of x when
// x is a base-table column declared with one (pg_typeof names the
// domain, not its base type); "" otherwise.
func (b *binder) columnDomainName(x Expr, s *scope) string {
	ref, ok := x.(*ColRef)
	if !ok || ref.Outer != 0 || s == nil || ref.Index >= len(s.cols) {
		return ""
	}
	c := s.cols[ref.Index]
	if c.TableID == 0 || c.Attr < 1 {
		return ""
	}
	t := b.p.Catalog.TableByID(uint64(c.TableID))
	if t == nil || int(c.Attr) > len(t.Columns) {
		return ""
	}
	col := &t.Columns[c.Attr-1]
	if col.Domain == 0 {
		return ""
	}
	oid := int64(col.Domain)
	if dom, err := b.p.ColumnDomain(col); err == nil && dom != nil && dom.Elements {
		oid++ // the domain's array type
	}
	return b.userTypeNames()[oid] // enum.go
}

// fieldStar binds a select-list item (x).*: one item per field of the
// record x, named by the field; ok is false for any other item.
func (b *binder) fieldStar(e sqlparser.Expr, s *scope) (items []selectItem, ok bool, err error) {
	f, isCall := e.(*sqlparser.FuncExpr)
	if !isCall || f.Name.Lowered() != parse.MarkerFieldStar || len(f.Exprs) != 1 {
		return nil, false, nil
	}
	rec, err := b.expr(f.Exprs[0], s)
	if err != nil {
		return nil, true, err
	}
	t := rec.Type()
	if t.Family != types.Record || t.Comp == nil {
		return nil, true, pgerror.Newf(pgerror.WrongObjectType, "type %s is not composite", t)
	}
	for i, fld := range t.Comp.Fields {
		x := &Func{Name: FieldFunc, Args: []Expr{rec, &Const{Value: types.NewInt(int64(i)), T: tInt4}}, T: fld.T}
		items = append(items, selectItem{expr: x, name: fld.Name, col: Column{Name: fld.Name, T: fld.T}})
	}
	return items, true, nil
}

// fieldSelect binds (x).name: the field of that name of the record x;
// 42703 when its type has no such field, 42809 when x is no record.
func (b *binder) fieldSelect(x, name sqlparser.Expr, s *scope) (Expr, error) {
	rec, err := b.expr(x, s)
	if err != nil {
		return nil, err
	}
	lit, ok := name.(*sqlparser.Literal)
	if !ok {
		return nil, pgerror.New(pgerror.SyntaxError, "malformed field selection")
	}
	field := lit.Val
	t := rec.Type()
	if t.Family != types.Record {
		return nil, pgerror.Newf(pgerror.WrongObjectType, "column notation .%s applied to type %s, which is not a composite type", field, t)
	}
	if t.Comp == nil {
		return nil, pgerror.Newf(pgerror.FeatureNotSupported, "could not identify column %q in record data type", field)
	}
	for i, f := range t.Comp.Fields {
		if f.Name == field {
			return &Func{Name: FieldFunc, Args: []Expr{rec, &Const{Value: types.NewInt(int64(i)), T: tInt4}}, T: f.T}, nil
		}
	}
	return nil, pgerror.Newf(pgerror.UndefinedColumn, "column %q not found in data type %s", field, t)
}

// userTypeRows are pg_type's rows of the database's user types: a
// composite type (typtype c, with its array type _name) or a domain
// (typtype d over typbasetype, with typnotnull and typdefault).
func (g *vgen) userTypeRows() [][]Expr {
	var out [][]Expr
	for _, u := range g.cat.UserTypes(g.db) {
		t, _, err := g.b.userType(u, 0)
		if err != nil {
			continue // a type naming a dropped one: no row, as no value can have it
		}
		nsp := g.nsp(u.Schema)
		row := func(oid int64, name, typtype, category string, relid, elem, array int64) []Expr {
			return vrow(oid, name, nsp, oidBootstrapRole, -1, false, typtype, category,
				false, true, ",", relid, 0, elem, array, "record_in", "record_out", "record_recv", "record_send",
				"d", "x", false, 0, -1, 0, 0, nil, nil, nil)
		}
		arrayRow := vrow(int64(u.ArrayOID()), "_"+u.Name, nsp, oidBootstrapRole, -1, false, "b", "A",
			false, true, ",", 0, 0, int64(u.OID()), 0, "array_in", "array_out", "array_recv", "array_send",
			"i", "x", false, 0, -1, 0, 0, nil, nil, nil)
		if u.Kind == "e" {
			out = append(out, vrow(int64(u.OID()), u.Name, nsp, oidBootstrapRole, 4, true, "e", "E",
				false, true, ",", 0, 0, 0, int64(u.ArrayOID()), "enum_in", "enum_out", "enum_recv", "enum_send",
				"i", "p", false, 0, -1, 0, 0, nil, nil, nil), arrayRow)
			continue
		}
		if u.Kind == "d" {
			// typdefaultbin holds the expression pg_get_expr prints;
			// here both it and typdefault are the DEFAULT's text.
			var deflt any
			if u.Default != "" {
				deflt = u.Default
			}
			// Stored as its base type: the base's length, alignment,
			// storage and category.
			bt := g.userPgType(int64(u.OID())) // enum.go
			coll := 0
			if bt.category == "S" {
				coll = 100
			}
			out = append(out, vrow(int64(u.OID()), u.Name, nsp, oidBootstrapRole, bt.len, bt.byval, "d", bt.category,
				false, true, ",", 0, 0, 0, int64(u.ArrayOID()), "domain_in", "domain_out", "domain_recv", "domain_send",
				bt.align, bt.storage(), u.NotNull, columnTypeOID(t), typmod(t), 0, coll, deflt, deflt, nil), arrayRow)
			continue
		}
		out = append(out, row(int64(u.OID()), u.Name, "c", "C", int64(u.ID), 0, int64(u.ArrayOID())),
			row(int64(u.ArrayOID()), "_"+u.Name, "b", "A", 0, int64(u.OID()), 0))
	}
	return out
}
