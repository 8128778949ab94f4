package planner

import (
	"strings"

	"github.com/kvsql/kvsql/catalog"
	"github.com/kvsql/kvsql/types"
)

// infoSchemaRelations are the virtual information_schema relations by
// name, as ORMs and generic SQL tools read them. Their columns are a
// subset of the standard's, in its order.
var infoSchemaRelations map[string]*vrel

func init() {
	infoSchemaRelations = map[string]*vrel{
		"sequences": {vcols("sequence_catalog", "t", "sequence_schema", "t", "sequence_name", "t", "data_type", "t",
			"numeric_precision", "i4", "numeric_precision_radix", "i4", "numeric_scale", "i4", "start_value", "t",
			"minimum_value", "t", "maximum_value", "t", "increment", "t", "cycle_option", "t"), isSequences},
		"schemata": {vcols("catalog_name", "t", "schema_name", "t", "schema_owner", "t"), isSchemata},
		"tables": {vcols("table_catalog", "t", "table_schema", "t", "table_name", "t", "table_type", "t",
			"is_insertable_into", "t", "is_typed", "t"), isTables},
		"routines": {vcols("specific_catalog", "t", "specific_schema", "t", "specific_name", "t",
			"routine_catalog", "t", "routine_schema", "t", "routine_name", "t", "routine_type", "t",
			"data_type", "t", "type_udt_catalog", "t", "type_udt_schema", "t", "type_udt_name", "t",
			"routine_body", "t", "routine_definition", "t", "external_language", "t", "parameter_style", "t",
			"is_deterministic", "t", "sql_data_access", "t", "is_null_call", "t", "security_type", "t"), isRoutines}, // pgcatalog_proc.go
		"views": {vcols("table_catalog", "t", "table_schema", "t", "table_name", "t", "view_definition", "t",
			"check_option", "t", "is_updatable", "t", "is_insertable_into", "t"), isViews},
		"columns": {vcols("table_catalog", "t", "table_schema", "t", "table_name", "t", "column_name", "t",
			"ordinal_position", "i4", "column_default", "t", "is_nullable", "t", "data_type", "t",
			"character_maximum_length", "i4", "character_octet_length", "i4", "numeric_precision", "i4",
			"numeric_precision_radix", "i4", "numeric_scale", "i4", "datetime_precision", "i4",
			"domain_catalog", "t", "domain_schema", "t", "domain_name", "t",
			"udt_catalog", "t", "udt_schema", "t", "udt_name", "t", "is_identity", "t",
			"identity_generation", "t", "identity_start", "t", "identity_increment", "t", "identity_maximum", "t",
			"identity_minimum", "t", "identity_cycle", "t", "is_generated", "t",
			"is_updatable", "t"), isColumns},
		"table_constraints": {vcols("constraint_catalog", "t", "constraint_schema", "t", "constraint_name", "t",
			"table_catalog", "t", "table_schema", "t", "table_name", "t", "constraint_type", "t",
			"is_deferrable", "t", "initially_deferred", "t", "enforced", "t"), isTableConstraints},
		"key_column_usage": {vcols("constraint_catalog", "t", "constraint_schema", "t", "constraint_name", "t",
			"table_catalog", "t", "table_schema", "t", "table_name", "t", "column_name", "t",
			"ordinal_position", "i4", "position_in_unique_constraint", "i4"), isKeyColumnUsage},
		"constraint_column_usage": {vcols("table_catalog", "t", "table_schema", "t", "table_name", "t",
			"column_name", "t", "constraint_catalog", "t", "constraint_schema", "t", "constraint_name", "t"),
			isConstraintColumnUsage}, // pgcatalog_clients.go
	}
}

func isSchemata(g *vgen) [][]Expr {
	var out [][]Expr
	for _, s := range []string{"information_schema", "pg_catalog", "pg_toast", "public"} {
		out = append(out, vrow(g.db, s, currentUser()))
	}
	for _, s := range g.cat.Schemas(g.db) {
		if s.Name != catalog.PublicSchema {
			out = append(out, vrow(g.db, s.Name, currentUser()))
		}
	}
	return out
}

func isTables(g *vgen) [][]Expr {
	var out [][]Expr
	for _, t := range g.tables() {
		if t.MatView != "" {
			continue // information_schema knows no materialized views
		}
		out = append(out, vrow(g.db, catalog.SchemaName(t.Schema), t.Name, "BASE TABLE", "YES", "NO"))
	}
	for _, v := range g.views() {
		writable, _ := g.b.viewWritable(v) // viewdml.go
		out = append(out, vrow(g.db, catalog.SchemaName(v.Schema), v.Name, "VIEW", yesNo(writable), "NO"))
	}
	return out
}

func isViews(g *vgen) [][]Expr {
	var out [][]Expr
	for _, v := range g.views() {
		check := "NONE"
		if v.CheckOption != "" {
			check = strings.ToUpper(v.CheckOption)
		}
		writable, _ := g.b.viewWritable(v) // viewdml.go
		out = append(out, vrow(g.db, catalog.SchemaName(v.Schema), v.Name, v.SQL, check, yesNo(writable), yesNo(writable)))
	}
	return out
}

// yesNo is information_schema's yes_or_no.
func yesNo(b bool) string {
	if b {
		return "YES"
	}
	return "NO"
}

func isColumns(g *vgen) [][]Expr {
	var out [][]Expr
	add := func(schema, table string, name string, pos int, t types.T, domain uint32, def any, nullable bool, updatable string, identity []any) {
		ty, _ := pgTypeByOID(columnTypeOID(t))
		var charMax, octetMax, prec, radix, scale, dtPrec any
		switch t.Family {
		case types.Varchar, types.Char:
			if t.Width > 0 {
				charMax, octetMax = int(t.Width), int(t.Width)*4
			}
		case types.Text:
			octetMax = 1073741824
		case types.Int2:
			prec, radix, scale = 16, 2, 0
		case types.Int4:
			prec, radix, scale = 32, 2, 0
		case types.Int8:
			prec, radix, scale = 64, 2, 0
		case types.Float4:
			prec, radix = 24, 2
		case types.Float8:
			prec, radix = 53, 2
		case types.Numeric:
			radix = 10
			if t.Width > 0 {
				prec, scale = int(t.Width), int(t.Scale)
			}
		case types.Date:
			dtPrec = 0
		case types.Timestamp, types.TimestampTZ, types.Time, types.Interval:
			dtPrec = 6
		}
		isNull := "YES"
		if !nullable {
			isNull = "NO"
		}
		dataType := FormatTypeName(ty.oid) // format_type(oid, NULL): bpchar is "character"
		udtSchema, udtName := "pg_catalog", ty.name
		if u := g.cat.UserTypeByOID(g.db, uint64(columnTypeOID(t))); u != nil {
			dataType, udtSchema, udtName = "USER-DEFINED", catalog.SchemaName(u.Schema), u.Name
			if t.IsArray() {
				udtName = "_" + u.Name
			}
		}
		if t.IsArray() {
			dataType = "ARRAY" // the SQL standard's name; udt_name says which (_int4)
		}
		// A column of a domain names it; its udt is the domain's base.
		var domCatalog, domSchema, domName any
		if u := g.cat.UserTypeByOID(g.db, uint64(domain)); domain != 0 && u != nil {
			domCatalog, domSchema, domName = g.db, catalog.SchemaName(u.Schema), u.Name
		}
		row := vrow(g.db, catalog.SchemaName(schema), table, name, pos, def, isNull, dataType, charMax, octetMax,
			prec, radix, scale, dtPrec, domCatalog, domSchema, domName, g.db, udtSchema, udtName)
		row = append(row, vrow(identity...)...)
		out = append(out, append(row, vrow("NEVER", updatable)...))
	}
	for _, t := range g.tables() {
		if t.MatView != "" {
			continue
		}
		cols, nums := visibleColumns(t)
		for i, c := range cols {
			var def any
			if c.Default != "" {
				def = g.typedLiteralDefault(c, c.Default)
			}
			identity := columnIdentity(&c) // pgcatalog_clients.go
			if c.Serial && !c.IdentityAlways && !c.IdentityByDefault {
				def = serialDefault(t, c.Name)
			}
			nullable := !c.NotNull
			if dom, err := g.b.p.ColumnDomain(&c); err == nil && dom != nil && !dom.Elements && dom.NotNull {
				nullable = false // a NOT NULL domain's column, as PostgreSQL answers
			}
			add(t.Schema, t.Name, c.Name, nums[i], c.Type, c.Domain, def, nullable, "YES", identity)
		}
	}
	for _, v := range g.views() {
		_, writable := g.b.viewWritable(v) // viewdml.go
		for i, c := range g.viewColumns(v) {
			add(v.Schema, v.Name, c.Name, i+1, c.T, 0, nil, true, yesNo(i < len(writable) && writable[i]), columnIdentity(nil))
		}
	}
	return out
}

func isTableConstraints(g *vgen) [][]Expr {
	var out [][]Expr
	kinds := map[string]string{"p": "PRIMARY KEY", "u": "UNIQUE", "f": "FOREIGN KEY"}
	for _, c := range g.constraints() {
		nsp := catalog.SchemaName(c.t.Schema)
		out = append(out, vrow(g.db, nsp, c.name, g.db, nsp, c.t.Name, kinds[c.kind], "NO", "NO", "YES"))
	}
	return out
}

func isKeyColumnUsage(g *vgen) [][]Expr {
	var out [][]Expr
	for _, ix := range g.indexes() {
		if !ix.primary && !ix.constraint {
			continue
		}
		for i, c := range ix.cols {
			nsp := catalog.SchemaName(ix.t.Schema)
			out = append(out, vrow(g.db, nsp, ix.name, g.db, nsp, ix.t.Name, ix.t.Columns[c].Name, i+1, nil))
		}
	}
	for _, t := range g.tables() {
		for _, fk := range t.ForeignKeys {
			name := fkName(t, fk)
			for i, col := range fk.Columns {
				nsp := catalog.SchemaName(t.Schema)
				out = append(out, vrow(g.db, nsp, name, g.db, nsp, t.Name, col, i+1, i+1))
			}
		}
	}
	return out
}
