package planner

import (
	"strconv"
	"strings"

	"github.com/kvsql/kvsql/catalog"
	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/planner/parse"
	"github.com/kvsql/kvsql/types"
	"vitess.io/vitess/go/vt/sqlparser"
)

// pg_proc and the catalog functions about routines: the user-defined SQL
// functions and procedures of the database (kvsql lists no built-in
// functions there). A routine's OID is its catalog ID.

// oidLanguageSQL is pg_language's OID of LANGUAGE sql.
const oidLanguageSQL = 14

// pseudoTypeOIDs are the OIDs of the pseudo-types a routine may name.
var pseudoTypeOIDs = map[string]int64{"anyelement": 2283, "anyarray": 2277, "anynonarray": 2776,
	"anycompatible": 5077, "anycompatiblearray": 5078, "anycompatiblenonarray": 5079, "record": 2249, "void": 2278, "trigger": 2279}

// functions returns the current database's routines by name, then OID.
func (g *vgen) functions() []*catalog.Function {
	fns, _ := g.cat.Functions(g.db)
	return fns
}

// routineTypeOID is the pg_type OID of a routine's type name.
func routineTypeOID(name string) int64 {
	if oid, ok := pseudoTypeOIDs[name]; ok {
		return oid
	}
	t, _, err := RoutineType(name)
	if err != nil {
		return 0
	}
	return columnTypeOID(t)
}

// routineTypeOID is the package's routineTypeOID that also knows the
// database's user types.
func (g *vgen) routineTypeOID(name string) int64 {
	if oid := routineTypeOID(name); oid != 0 {
		return oid
	}
	if t, _, err := g.b.p.RoutineType(name); err == nil {
		return columnTypeOID(t)
	}
	return 0
}

// routineTypeName is a routine's type name as format_type prints it; a
// user type's as it is spelled.
func routineTypeName(name string) string {
	if _, ok := pseudoTypeOIDs[name]; ok {
		return name
	}
	oid := routineTypeOID(name)
	if oid == 0 {
		return name
	}
	return FormatType(oid, -1)
}

// pgProc has one row per routine.
func pgProc(g *vgen) [][]Expr {
	var out [][]Expr
	for _, f := range g.functions() {
		in := f.InputArgs()
		var argTypes, allTypes, modes, names []string
		defaults, variadic := 0, int64(0)
		named, plainIn := false, true
		for _, a := range in {
			argTypes = append(argTypes, strconv.FormatInt(g.routineTypeOID(a.Type), 10))
			if a.Default != "" {
				defaults++
			}
			if a.Mode == "v" {
				t, _, _ := RoutineType(variadicElem(a.Type))
				variadic = routineTypeOID(variadicElem(a.Type))
				if variadic == 0 {
					variadic = columnTypeOID(t)
				}
			}
		}
		for _, a := range f.Args {
			allTypes = append(allTypes, strconv.FormatInt(g.routineTypeOID(a.Type), 10))
			modes = append(modes, a.Mode)
			names = append(names, quoteArrayElem(a.Name))
			named = named || a.Name != ""
			plainIn = plainIn && a.Mode == "i"
		}
		var all, modeArr, nameArr any
		if !plainIn {
			all, modeArr = "{"+strings.Join(allTypes, ",")+"}", "{"+strings.Join(modes, ",")+"}"
		}
		if named {
			nameArr = "{" + strings.Join(names, ",") + "}"
		}
		var src, body, config any = f.Body, nil, nil
		if f.Form != "as" {
			src, body = "", f.Body
		}
		if len(f.Config) > 0 {
			items := make([]string, len(f.Config))
			for i, c := range f.Config {
				items[i] = quoteArrayElem(c)
			}
			config = "{" + strings.Join(items, ",") + "}"
		}
		out = append(out, vrow(int64(f.ID), f.Name, int64(oidPublic), int64(oidBootstrapRole), int64(oidLanguageSQL),
			f.Cost, f.Rows, variadic, int64(0), f.Kind, f.Definer, f.Leakproof, f.Strict, f.RetSet, f.Volatility,
			f.Parallel, int64(len(in)), int64(defaults), g.routineTypeOID(f.Returns), "{"+strings.Join(argTypes, ",")+"}",
			all, modeArr, nameArr, nil, nil, src, nil, body, config, nil))
	}
	return out
}

// quoteArrayElem spells a text array element as array output does.
func quoteArrayElem(s string) string {
	if s == "" || strings.ContainsAny(s, `{},"\ `) || strings.EqualFold(s, "null") {
		return `"` + strings.ReplaceAll(strings.ReplaceAll(s, `\`, `\\`), `"`, `\"`) + `"`
	}
	return s
}

// functionArguments is pg_get_function_arguments (identity: the
// identity form, input arguments without defaults).
func functionArguments(f *catalog.Function, identity bool) string {
	var parts []string
	for _, a := range f.Args {
		if a.Mode == "t" || identity && a.Mode == "o" {
			continue
		}
		var b strings.Builder
		switch a.Mode {
		case "i":
			if f.Kind == "p" {
				b.WriteString("IN ") // procedures spell every mode
			}
		case "o":
			b.WriteString("OUT ")
		case "b":
			b.WriteString("INOUT ")
		case "v":
			b.WriteString("VARIADIC ")
		}
		if a.Name != "" {
			b.WriteString(quoteIdent(a.Name) + " ")
		}
		b.WriteString(routineTypeName(a.Type))
		if a.Default != "" && !identity {
			b.WriteString(" DEFAULT " + a.Default)
		}
		parts = append(parts, b.String())
	}
	return strings.Join(parts, ", ")
}

// functionResult is pg_get_function_result.
func functionResult(f *catalog.Function) string {
	if f.Kind == "p" {
		return ""
	}
	var cols []string
	for _, a := range f.Args {
		if a.Mode == "t" {
			cols = append(cols, quoteIdent(a.Name)+" "+routineTypeName(a.Type))
		}
	}
	if len(cols) > 0 {
		return "TABLE(" + strings.Join(cols, ", ") + ")"
	}
	if f.RetSet {
		return "SETOF " + routineTypeName(f.Returns)
	}
	return routineTypeName(f.Returns)
}

// functionDef is pg_get_functiondef: a CREATE OR REPLACE statement that
// makes the routine again.
func functionDef(f *catalog.Function) string {
	var b strings.Builder
	kind := "FUNCTION"
	if f.Kind == "p" {
		kind = "PROCEDURE"
	}
	b.WriteString("CREATE OR REPLACE " + kind + " public." + quoteIdent(f.Name) + "(" + functionArguments(f, false) + ")\n")
	if f.Kind != "p" {
		b.WriteString(" RETURNS " + functionResult(f) + "\n")
	}
	b.WriteString(" LANGUAGE " + f.Language + "\n")
	switch f.Volatility {
	case "i":
		b.WriteString(" IMMUTABLE")
	case "s":
		b.WriteString(" STABLE")
	}
	switch f.Parallel {
	case "s":
		b.WriteString(" PARALLEL SAFE")
	case "r":
		b.WriteString(" PARALLEL RESTRICTED")
	}
	if f.Leakproof {
		b.WriteString(" LEAKPROOF")
	}
	if f.Strict {
		b.WriteString(" STRICT")
	}
	if f.Definer {
		b.WriteString(" SECURITY DEFINER")
	}
	if f.Cost != 100 {
		b.WriteString(" COST " + strconv.FormatFloat(f.Cost, 'g', -1, 64))
	}
	if f.RetSet && f.Rows != 1000 {
		b.WriteString(" ROWS " + strconv.FormatFloat(f.Rows, 'g', -1, 64))
	}
	if f.Volatility != "v" || f.Parallel != "u" || f.Leakproof || f.Strict || f.Definer || f.Cost != 100 || f.RetSet && f.Rows != 1000 {
		b.WriteString("\n")
	}
	for _, c := range f.Config {
		name, value, _ := strings.Cut(c, "=")
		b.WriteString(" SET " + name + " TO '" + strings.ReplaceAll(value, "'", "''") + "'\n")
	}
	switch f.Form {
	case "return":
		b.WriteString("RETURN " + f.Body + "\n")
	case "atomic":
		b.WriteString("BEGIN ATOMIC\n " + strings.TrimSpace(f.Body) + "\nEND\n")
	default:
		tag := "$function$"
		for strings.Contains(f.Body, tag) {
			tag = "$" + tag[1:len(tag)-1] + "x$"
		}
		b.WriteString("AS " + tag + f.Body + tag + "\n")
	}
	return b.String()
}

// routineCatalogCall binds the catalog functions about routines as a
// CASE over the routines' OIDs. ok is false for other names.
func (g *vgen) routineCatalogCall(name string, args []Expr) (Expr, bool, error) {
	var text func(f *catalog.Function) string
	switch name {
	case "pg_get_function_arguments":
		text = func(f *catalog.Function) string { return functionArguments(f, false) }
	case "pg_get_function_identity_arguments":
		text = func(f *catalog.Function) string { return functionArguments(f, true) }
	case "pg_get_function_result":
		text = functionResult
	case "pg_get_functiondef":
		text = functionDef
	case "pg_function_is_visible":
		if len(args) != 1 {
			return nil, false, nil
		}
		c, err := newOIDCase(args[0], tBool) // pgcatalog_funcs.go
		if err != nil {
			return nil, true, err
		}
		for _, f := range g.functions() {
			c.add(int64(f.ID), &Const{Value: types.NewBool(true), T: tBool})
		}
		return c.expr(), true, nil
	default:
		return nil, false, nil
	}
	if len(args) != 1 {
		return nil, false, nil
	}
	c, err := newOIDCase(args[0], tText)
	if err != nil {
		return nil, true, err
	}
	for _, f := range g.functions() {
		c.add(int64(f.ID), textConst(text(f)))
	}
	return c.expr(), true, nil
}

// routineRegCast binds 'name'::regproc and 'name(argtypes)'::regprocedure
// of a user-defined routine to its OID. ok is false for a name that is
// not one (regproc then keeps other names as text, as before).
func (b *binder) routineRegCast(x Expr, typeName string) (Expr, bool, error) {
	if typeName != "regproc" && typeName != "regprocedure" {
		return nil, false, nil
	}
	c, isConst := x.(*Const)
	if !isConst || c.Value.Kind != types.KindText {
		return nil, false, nil
	}
	text := strings.TrimSpace(c.Value.S)
	name, sig, hasSig := strings.Cut(text, "(")
	name = strings.TrimPrefix(strings.TrimSpace(name), "public.")
	fns := b.p.Catalog.FunctionsNamed(b.p.DB, name)
	if !hasSig {
		switch {
		case len(fns) == 1:
			return oidConst(int64(fns[0].ID)), true, nil
		case len(fns) > 1:
			return nil, true, pgerror.Newf(pgerror.AmbiguousFunction, "more than one function named %q", text)
		case typeName == "regprocedure":
			return nil, true, pgerror.Newf(pgerror.SyntaxError, "expected a left parenthesis")
		}
		return nil, false, nil
	}
	want := routineSigOf(strings.TrimSuffix(strings.TrimSpace(sig), ")"))
	for _, f := range fns {
		var have []string
		for _, a := range f.InputArgs() {
			have = append(have, routineTypeName(a.Type))
		}
		if strings.Join(have, ",") == strings.Join(want, ",") {
			return oidConst(int64(f.ID)), true, nil
		}
	}
	return nil, true, pgerror.Newf(pgerror.UndefinedFunction, "function %q does not exist", text)
}

// routineSigOf reads a comma-separated list of type names into
// format_type's spelling of each.
func routineSigOf(list string) []string {
	var out []string
	for _, part := range strings.Split(list, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		st, err := parse.ParseOne("SELECT CAST(NULL AS " + part + ")")
		name := part
		if err == nil {
			if sel, ok := st.AST.(*sqlparser.Select); ok && len(sel.SelectExprs.Exprs) == 1 {
				if ae, ok := sel.SelectExprs.Exprs[0].(*sqlparser.AliasedExpr); ok {
					if ce, ok := ae.Expr.(*sqlparser.CastExpr); ok {
						name = ce.Type.Type
					}
				}
			}
		}
		out = append(out, routineTypeName(name))
	}
	return out
}

// isRoutines is information_schema.routines (its commonly read columns):
// one row per routine, its specific name the name and OID as
// PostgreSQL forms it.
func isRoutines(g *vgen) [][]Expr {
	var out [][]Expr
	yesNo := func(b bool) string {
		if b {
			return "YES"
		}
		return "NO"
	}
	for _, f := range g.functions() {
		kind, dataType, udtSchema, udtName := "FUNCTION", any(nil), any(nil), any(nil)
		if f.Kind == "p" {
			kind = "PROCEDURE"
		} else {
			oid := routineTypeOID(f.Returns)
			if ty, ok := pgTypeByOID(oid); ok {
				dataType, udtSchema, udtName = ty.format, "pg_catalog", ty.name
				if ty.category == "A" {
					dataType = "ARRAY"
				}
			} else {
				dataType, udtSchema, udtName = f.Returns, "pg_catalog", f.Returns
			}
		}
		var udtCatalog, nullCall any
		if udtName != nil {
			udtCatalog = g.db
		}
		if f.Kind != "p" {
			nullCall = yesNo(f.Strict)
		}
		specific := f.Name + "_" + strconv.FormatUint(f.ID, 10)
		out = append(out, vrow(g.db, "public", specific, g.db, "public", f.Name, kind, dataType, udtCatalog, udtSchema, udtName,
			"SQL", f.Body, "SQL", "GENERAL", yesNo(f.Volatility == "i"), "MODIFIES", nullCall,
			map[bool]string{true: "DEFINER", false: "INVOKER"}[f.Definer]))
	}
	return out
}
