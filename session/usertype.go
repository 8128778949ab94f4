package session

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/kvsql/kvsql/catalog"
	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/planner"
	"github.com/kvsql/kvsql/planner/parse"
)

// typeStmt runs CREATE / DROP / ALTER TYPE and DOMAIN (catalog.UserType).
func (s *Session) typeStmt(ctx context.Context, t *txn, ts *parse.TypeStmt) (string, error) {
	what := "TYPE"
	if ts.Domain {
		what = "DOMAIN"
	}
	tag := strings.ToUpper(ts.Op) + " " + what
	var err error
	switch ts.Op {
	case "create":
		if ts.Domain {
			err = s.createDomain(t, ts)
		} else if ts.Enum {
			err = s.createEnum(t, ts)
		} else {
			err = s.createType(t, ts)
		}
	case "drop":
		err = s.dropTypes(t, ts)
	default:
		err = s.alterUserType(ctx, t, ts)
	}
	return tag, err
}

// newTypeKey resolves the name of a type being created.
func newTypeKey(pl *planner.Planner, ref string) (key string, err error) {
	_, schema, name := planner.SplitRef(ref)
	if schema == "" && strings.Contains(name, ".") {
		schema, name, _ = strings.Cut(name, ".")
		ref = parse.QualifiedRef([]string{schema, name})
	}
	return pl.CreateRef(ref)
}

func (s *Session) createType(t *txn, ts *parse.TypeStmt) error {
	pl := s.planner(t.cat)
	key, err := newTypeKey(pl, ts.Names[0])
	if err != nil {
		return err
	}
	schema, name := catalog.SplitRelKey(key)
	u := catalog.UserType{Name: name, Schema: schemaOf(schema), Kind: "c"}
	seen := map[string]bool{}
	for _, a := range ts.Attrs {
		if seen[a.Name] {
			return pgerror.Newf(pgerror.DuplicateColumn, "column %q specified more than once", a.Name)
		}
		seen[a.Name] = true
		if _, _, err := pl.ResolveType(a.Type, nil, nil); err != nil {
			return err
		}
		if k, ok := pl.LookupTypeKey(strings.TrimSuffix(a.Type, "[]")); ok && k == key {
			return pgerror.Newf(pgerror.InvalidObjectDefinition, "composite type %s cannot be made a member of itself", name)
		}
		u.Attrs = append(u.Attrs, catalog.TypeAttr{Name: a.Name, Type: a.Type})
	}
	next, _, err := t.cat.CreateUserType(t.kv, s.database, u)
	if err != nil {
		return err
	}
	t.setCatalog(next)
	return nil
}

func schemaOf(schema string) string {
	if schema == catalog.PublicSchema {
		return ""
	}
	return schema
}

func (s *Session) createDomain(t *txn, ts *parse.TypeStmt) error {
	pl := s.planner(t.cat)
	key, err := newTypeKey(pl, ts.Names[0])
	if err != nil {
		return err
	}
	schema, name := catalog.SplitRelKey(key)
	if _, _, err := pl.ResolveType(ts.Base, nil, nil); err != nil {
		return err
	}
	u := catalog.UserType{Name: name, Schema: schemaOf(schema), Kind: "d", Base: ts.Base, NotNull: ts.NotNull, Default: ts.Default}
	for _, c := range ts.Checks {
		if c.NotValid {
			return pgerror.New(pgerror.SyntaxError, `syntax error at or near "VALID"`)
		}
		if err := addDomainCheck(pl, &u, c); err != nil {
			return err
		}
	}
	next, _, err := t.cat.CreateUserType(t.kv, s.database, u)
	if err != nil {
		return err
	}
	t.setCatalog(next)
	return nil
}

// addDomainCheck binds c over the domain's base type and adds it to u,
// named as PostgreSQL names it when unnamed (d_check, d_check1, ...).
func addDomainCheck(pl *planner.Planner, u *catalog.UserType, c parse.DomainCheck) error {
	t, _, err := pl.ResolveType(u.Base, nil, nil)
	if err != nil {
		return err
	}
	if err := pl.BindDomainCheck(t, c.Expr); err != nil {
		return err
	}
	name := c.Name
	taken := func(n string) bool {
		return slices.ContainsFunc(u.Checks, func(x catalog.Check) bool { return x.Name == n })
	}
	if name == "" {
		name = catalog.ChooseName(u.Name, "", "check", taken)
	} else if taken(name) {
		return pgerror.Newf(pgerror.DuplicateObject, "constraint %q for domain %s already exists", name, u.Name)
	}
	u.Checks = append(u.Checks, catalog.Check{Name: name, Expr: c.Expr, NotValid: c.NotValid})
	return nil
}

// lookupType finds the type a DROP or ALTER names; u is nil when there
// is none.
func (s *Session) lookupType(t *txn, ref string) (*catalog.UserType, error) {
	pl := s.planner(t.cat)
	_, schema, _ := planner.SplitRef(ref)
	if schema != "" {
		if _, err := t.cat.Schema(s.database, schema); err != nil {
			return nil, err
		}
	}
	key, ok := pl.LookupTypeKey(ref)
	if !ok {
		return nil, nil
	}
	return t.cat.UserType(s.database, key), nil
}

// typeDependents lists the types whose fields or base name the type key
// (directly), by key.
func typeDependents(pl *planner.Planner, cat *catalog.Catalog, db, key string) []*catalog.UserType {
	var out []*catalog.UserType
	refers := func(spelled string) bool {
		n := strings.TrimSuffix(spelled, "[]")
		if k, ok := pl.LookupTypeKey(n); ok && k == key {
			return true
		}
		if strings.HasPrefix(n, "_") {
			if k, ok := pl.LookupTypeKey(n[1:]); ok && k == key {
				return true
			}
		}
		return false
	}
	for _, u := range cat.UserTypes(db) {
		if u.Key() == key {
			continue
		}
		dep := u.Kind == "d" && refers(u.Base)
		for _, a := range u.Attrs {
			dep = dep || refers(a.Type)
		}
		if dep {
			out = append(out, u)
		}
	}
	return out
}

func (s *Session) dropTypes(t *txn, ts *parse.TypeStmt) error {
	for _, ref := range ts.Names {
		u, err := s.lookupType(t, ref)
		if err != nil {
			return err
		}
		_, _, name := planner.SplitRef(ref)
		if u == nil {
			if ts.IfExists {
				s.notice(pgerror.Newf(pgerror.SuccessfulCompletion, "type %q does not exist, skipping", name))
				continue
			}
			return pgerror.Newf(pgerror.UndefinedObject, "type %q does not exist", name)
		}
		if ts.Domain && u.Kind != "d" {
			return pgerror.Newf(pgerror.WrongObjectType, "%q is not a domain", name)
		}
		if err := s.dropType(t, u, ts.Cascade); err != nil {
			return err
		}
	}
	return nil
}

// dropType drops u; the types that depend on it are dropped with it
// under CASCADE, and refuse the drop (2BP01) otherwise.
func (s *Session) dropType(t *txn, u *catalog.UserType, cascade bool) error {
	pl := s.planner(t.cat)
	deps := typeDependents(pl, t.cat, s.database, u.Key())
	if !cascade {
		lines, err := s.typeDependentLines(t, pl, u, 0)
		if err != nil {
			return err
		}
		if len(lines) > 0 {
			e := pgerror.Newf(pgerror.DependentObjectsStillExist, "cannot drop type %s because other objects depend on it", u.Name)
			e.Detail = strings.Join(lines, "\n")
			e.Hint = "Use DROP ... CASCADE to drop the dependent objects too."
			return e
		}
	}
	cols, err := s.columnDependents(t, u) // enum.go
	if err != nil {
		return err
	}
	if len(cols) > 0 {
		return pgerror.Newf(pgerror.FeatureNotSupported, "DROP TYPE ... CASCADE of a type that table columns use is not supported (%s)", cols[0])
	}
	// CASCADE drops the functions that take or return it, as
	// PostgreSQL does.
	fns := s.typeFunctions(t, pl, u)
	if len(fns) > 0 {
		var deps []string
		for _, fn := range fns {
			deps = append(deps, functionDependent(fn, u))
		}
		s.notice(cascadeNotice(deps)) // schema.go
	}
	for _, fn := range fns {
		next, err := t.cat.DropFunction(t.kv, s.database, fn.ID)
		if err != nil {
			return err
		}
		t.setCatalog(next)
	}
	for _, d := range deps {
		if d.Kind == "d" {
			if t.cat.UserType(s.database, d.Key()) != nil {
				if err := s.dropType(t, d, true); err != nil {
					return err
				}
			}
		} else {
			return pgerror.Newf(pgerror.FeatureNotSupported, "DROP TYPE ... CASCADE of a type that composite type %s has a field of is not supported", d.Name)
		}
	}
	next, err := t.cat.DropUserType(t.kv, s.database, u.Key())
	if err != nil {
		return err
	}
	t.setCatalog(next)
	return nil
}

// typeDependentLines lists what depends on u, as PostgreSQL's DETAIL
// lines do: each type over it (or with a field of it) followed by what
// depends on that type, then the table columns of u.
func (s *Session) typeDependentLines(t *txn, pl *planner.Planner, u *catalog.UserType, depth int) ([]string, error) {
	var lines []string
	for _, d := range typeDependents(pl, t.cat, s.database, u.Key()) {
		if d.Kind == "d" {
			lines = append(lines, fmt.Sprintf("type %s depends on type %s", d.Name, u.Name))
		} else if len(d.Attrs) > 0 {
			lines = append(lines, fmt.Sprintf("column %s of composite type %s depends on type %s", d.Attrs[0].Name, d.Name, u.Name))
		}
		if depth < 8 {
			more, err := s.typeDependentLines(t, pl, d, depth+1)
			if err != nil {
				return nil, err
			}
			lines = append(lines, more...)
		}
	}
	cols, err := s.columnDependents(t, u) // enum.go
	for _, fn := range s.typeFunctions(t, pl, u) {
		cols = append(cols, functionDependent(fn, u))
	}
	return append(lines, cols...), err
}

// typeFunctions lists the routines (and aggregates) whose arguments or
// result are of type u or an array of it.
func (s *Session) typeFunctions(t *txn, pl *planner.Planner, u *catalog.UserType) []*catalog.Function {
	fns, err := t.cat.Functions(s.database)
	if err != nil {
		return nil
	}
	names := func(spelled string) bool {
		n := strings.TrimSuffix(strings.TrimPrefix(spelled, "SETOF "), "[]")
		k, ok := pl.LookupTypeKey(n)
		return ok && k == u.Key()
	}
	var out []*catalog.Function
	for _, fn := range fns {
		uses := names(fn.Returns) || fn.Agg != nil && names(fn.Agg.SType)
		for _, a := range fn.Args {
			uses = uses || names(a.Type)
		}
		if uses {
			out = append(out, fn)
		}
	}
	return out
}

// functionDependent is a DETAIL line for fn, which depends on type u.
func functionDependent(fn *catalog.Function, u *catalog.UserType) string {
	kind := "function"
	switch fn.Kind {
	case "p":
		kind = "procedure"
	case "a":
		kind = "function" // PostgreSQL names an aggregate a function here
	}
	return fmt.Sprintf("%s %s(%s) depends on type %s", kind, fn.Name, strings.Join(routineSig(fn.Args), ","), u.Name)
}

func (s *Session) alterUserType(ctx context.Context, t *txn, ts *parse.TypeStmt) error {
	u, err := s.lookupType(t, ts.Names[0])
	if err != nil {
		return err
	}
	_, _, name := planner.SplitRef(ts.Names[0])
	if u == nil {
		return pgerror.Newf(pgerror.UndefinedObject, "type %q does not exist", name)
	}
	if ok, err := s.alterEnum(t, u, ts); ok {
		return err
	}
	if ts.Domain != (u.Kind == "d") {
		if ts.Domain {
			return pgerror.Newf(pgerror.WrongObjectType, "%q is not a domain", name)
		}
		return pgerror.Newf(pgerror.WrongObjectType, "%s is not a composite type", name)
	}
	nu := *u
	nu.Checks = slices.Clone(u.Checks)
	nu.Attrs = slices.Clone(u.Attrs)
	pl := s.planner(t.cat)
	if ts.Alter == "add attribute" || ts.Alter == "drop attribute" {
		// The values stored in them keep the old fields.
		cols, err := s.columnDependents(t, u) // enum.go
		if err != nil {
			return err
		}
		if len(cols) > 0 {
			return pgerror.Newf(pgerror.FeatureNotSupported, "ALTER TYPE %s: changing the attributes of a composite type that table columns use is not supported (%s)", u.Name, cols[0])
		}
	}
	switch ts.Alter {
	case "add constraint":
		if err := addDomainCheck(pl, &nu, ts.Checks[0]); err != nil {
			return err
		}
	case "drop constraint":
		i := slices.IndexFunc(nu.Checks, func(c catalog.Check) bool { return c.Name == ts.Constraint })
		if i < 0 {
			if ts.IfExistsIn {
				s.notice(pgerror.Newf(pgerror.SuccessfulCompletion, "constraint %q of domain %q does not exist, skipping", ts.Constraint, u.Name))
				return nil
			}
			return pgerror.Newf(pgerror.UndefinedObject, "constraint %q of domain %q does not exist", ts.Constraint, u.Name)
		}
		nu.Checks = slices.Delete(nu.Checks, i, i+1)
	case "validate constraint":
		i := slices.IndexFunc(nu.Checks, func(c catalog.Check) bool { return c.Name == ts.Constraint })
		if i < 0 {
			return pgerror.Newf(pgerror.UndefinedObject, "constraint %q of domain %q does not exist", ts.Constraint, u.Name)
		}
		nu.Checks[i].NotValid = false
	case "set not null":
		nu.NotNull = true
	case "drop not null":
		nu.NotNull = false
	case "set default":
		nu.Default = ts.Default
	case "drop default":
		nu.Default = ""
	case "add attribute":
		if slices.ContainsFunc(nu.Attrs, func(a catalog.TypeAttr) bool { return a.Name == ts.Attr.Name }) {
			return pgerror.Newf(pgerror.DuplicateColumn, "column %q of relation %q already exists", ts.Attr.Name, u.Name)
		}
		if _, _, err := pl.ResolveType(ts.Attr.Type, nil, nil); err != nil {
			return err
		}
		nu.Attrs = append(nu.Attrs, catalog.TypeAttr{Name: ts.Attr.Name, Type: ts.Attr.Type})
	case "drop attribute":
		i := slices.IndexFunc(nu.Attrs, func(a catalog.TypeAttr) bool { return a.Name == ts.Constraint })
		if i < 0 {
			if ts.IfExistsIn {
				s.notice(pgerror.Newf(pgerror.SuccessfulCompletion, "column %q of relation %q does not exist, skipping", ts.Constraint, u.Name))
				return nil
			}
			return pgerror.Newf(pgerror.UndefinedColumn, "column %q of relation %q does not exist", ts.Constraint, u.Name)
		}
		nu.Attrs = slices.Delete(nu.Attrs, i, i+1)
	}
	next, err := t.cat.ReplaceUserType(t.kv, s.database, nu)
	if err != nil {
		return err
	}
	t.setCatalog(next)
	switch {
	case ts.Alter == "add constraint" && !ts.Checks[0].NotValid, ts.Alter == "validate constraint":
		return s.checkDomainColumns(ctx, t, &nu, false)
	case ts.Alter == "set not null" && !u.NotNull:
		return s.checkDomainColumns(ctx, t, &nu, true)
	}
	return nil
}

// domainColumn is a table column declared with a domain: tbl's column
// col, of domain (or of an array of it when array) typ.
type domainColumn struct {
	tbl   *catalog.Table
	col   string
	typ   *catalog.UserType
	array bool
}

// domainColumns lists the table columns whose values u constrains:
// those of u and of the domains over it.
func (s *Session) domainColumns(t *txn, u *catalog.UserType) ([]domainColumn, error) {
	pl := s.planner(t.cat)
	doms := map[uint32]*catalog.UserType{uint32(u.OID()): u}
	for queue := []*catalog.UserType{u}; len(queue) > 0; queue = queue[1:] {
		for _, d := range typeDependents(pl, t.cat, s.database, queue[0].Key()) {
			if _, seen := doms[uint32(d.OID())]; d.Kind == "d" && !seen {
				doms[uint32(d.OID())] = d
				queue = append(queue, d)
			}
		}
	}
	tables, err := t.cat.Tables(s.database)
	if err != nil {
		return nil, err
	}
	var out []domainColumn
	for _, tbl := range tables {
		for i := range tbl.Columns {
			c := &tbl.Columns[i]
			if d := doms[c.Domain]; c.Domain != 0 && d != nil {
				dom, err := pl.ColumnDomain(c)
				if err != nil {
					return nil, err
				}
				out = append(out, domainColumn{tbl: tbl, col: c.Name, typ: d, array: dom.Elements})
			}
		}
	}
	return out, nil
}

// checkDomainColumns checks the values stored in the columns of u (and
// of the domains over it) against its constraints as the catalog now
// has them: ALTER DOMAIN ... ADD CONSTRAINT, VALIDATE CONSTRAINT and SET
// NOT NULL refuse a column that holds a value they reject, with
// PostgreSQL's errors (23514; 23502 for nulls).
func (s *Session) checkDomainColumns(ctx context.Context, t *txn, u *catalog.UserType, nulls bool) error {
	cols, err := s.domainColumns(t, u)
	if err != nil {
		return err
	}
	for _, dc := range cols {
		q := fmt.Sprintf("SELECT count(CAST(%s AS %s)) FROM ONLY %s", catalog.QuoteIdent(dc.col), userTypeName(dc.typ, dc.array), quotedKey(dc.tbl))
		_, err := s.evalQuery(ctx, t, q) // pgdump.go
		switch {
		case err == nil:
		case nulls && pgerror.HasCode(err, pgerror.NotNullViolation):
			return pgerror.Newf(pgerror.NotNullViolation, "column %q of table %q contains null values", dc.col, dc.tbl.Name).OnTable(dc.tbl.Name)
		case pgerror.HasCode(err, pgerror.CheckViolation), pgerror.HasCode(err, pgerror.NotNullViolation):
			return pgerror.Newf(pgerror.CheckViolation, "column %q of table %q contains values that violate the new constraint", dc.col, dc.tbl.Name).OnTable(dc.tbl.Name)
		default:
			return err
		}
	}
	return nil
}

// userTypeName spells the user type u, or an array of it, qualified,
// for SQL text (a cast to a domain checks its constraints).
func userTypeName(u *catalog.UserType, array bool) string {
	name := catalog.QuoteIdent(catalog.SchemaName(u.Schema)) + "." + catalog.QuoteIdent(u.Name)
	if array {
		name += "[]"
	}
	return name
}

// columnTypeText spells column c's declared type for SQL text that
// makes a column like it (PARTITION OF, INHERITS, LIKE): its domain or
// composite type (or an array of one) by name, so that the new column
// is of that type too.
func columnTypeText(pl *planner.Planner, c catalog.Column) string {
	if u := pl.Catalog.UserTypeByOID(pl.DB, uint64(c.Composite)); c.Composite != 0 && u != nil {
		return userTypeName(u, c.Type.IsArray())
	}
	if u := pl.Catalog.UserTypeByOID(pl.DB, uint64(c.Domain)); c.Domain != 0 && u != nil {
		dom, err := pl.ColumnDomain(&c)
		return userTypeName(u, err == nil && dom.Elements)
	}
	return c.Type.String()
}
