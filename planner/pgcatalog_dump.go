package planner

import (
	"regexp"
	"strings"

	"github.com/kvsql/kvsql/catalog"
	"github.com/kvsql/kvsql/planner/parse"
)

// The pg_catalog relations pg_dump reads beyond those psql does. Most are
// empty in kvsql (it has no functions, operators, extensions, foreign
// data, rules, policies, publications...), but pg_dump selects them, with
// their columns typed as PostgreSQL types them (arrays as arrays), so they
// exist. pg_depend has the rows that tie a serial column's sequence, or a
// sequence OWNED BY a column, to the column.

// viewDef is pg_get_viewdef of v as PostgreSQL formats it: a leading
// space, the query, and a closing semicolon (pg_dump cuts it off); its
// relations are schema-qualified when the search path lacks public (as
// pg_dump sets it, restoring with an empty path).
func (g *vgen) viewDef(v *catalog.View) Expr { return g.queryDef(v.SQL) }

// queryDef is viewDef of a view's or materialized view's query text.
func (g *vgen) queryDef(query string) Expr {
	names := map[string]bool{}
	for _, t := range g.tables() {
		names[t.Name] = true
	}
	for _, w := range g.views() {
		names[w.Name] = true
	}
	for _, s := range g.sequences() {
		names[s.Name] = true
	}
	sql := strings.TrimRight(strings.TrimSpace(query), "; \t\n")
	return ifPublicVisible(" "+sql+";", " "+parse.QualifyRelations(sql, names)+";")
}

// ifPublicVisible is visible when the search path has schema public,
// else qualified (decided when the statement runs).
func ifPublicVisible(visible, qualified string) Expr {
	if visible == qualified {
		return textConst(visible)
	}
	return &Func{Name: "kvsql_if_public_visible", Args: []Expr{textConst(visible), textConst(qualified)}, T: tText}
}

// dumpRelations are added to pgCatalogRelations (replacing the narrower
// definitions some of them had).
func dumpRelations() map[string]*vrel {
	return map[string]*vrel{
		"pg_settings": {vcols("name", "t", "setting", "t", "unit", "t", "category", "t", "short_desc", "t",
			"extra_desc", "t", "context", "t", "vartype", "t", "source", "t", "min_val", "t", "max_val", "t",
			"enumvals", "t[]", "boot_val", "t", "reset_val", "t", "sourcefile", "t", "sourceline", "i4",
			"pending_restart", "b"), pgSettings},
		"pg_depend": {vcols("classid", "o", "objid", "o", "objsubid", "i4", "refclassid", "o", "refobjid", "o",
			"refobjsubid", "i4", "deptype", "t"), pgDepend},
		"pg_extension": {vcols("oid", "o", "extname", "t", "extowner", "o", "extnamespace", "o",
			"extrelocatable", "b", "extversion", "t", "extconfig", "o[]", "extcondition", "t[]"), vempty},
		"pg_proc": {vcols("oid", "o", "proname", "t", "pronamespace", "o", "proowner", "o", "prolang", "o",
			"procost", "f4", "prorows", "f4", "provariadic", "o", "prosupport", "o", "prokind", "t",
			"prosecdef", "b", "proleakproof", "b", "proisstrict", "b", "proretset", "b", "provolatile", "t",
			"proparallel", "t", "pronargs", "i2", "pronargdefaults", "i2", "prorettype", "o", "proargtypes", "o[]",
			"proallargtypes", "o[]", "proargmodes", "t[]", "proargnames", "t[]", "proargdefaults", "t",
			"protrftypes", "o[]", "prosrc", "t", "probin", "t", "prosqlbody", "t", "proconfig", "t[]", "proacl", "t[]"), pgProc}, // pgcatalog_proc.go
		"pg_init_privs": {vcols("objoid", "o", "classoid", "o", "objsubid", "i4", "privtype", "t", "initprivs", "t[]"), pgInitPrivs},
		"pg_cast": {vcols("oid", "o", "castsource", "o", "casttarget", "o", "castfunc", "o", "castcontext", "t",
			"castmethod", "t"), vempty},
		"pg_transform": {vcols("oid", "o", "trftype", "o", "trflang", "o", "trffromsql", "o", "trftosql", "o"), vempty},
		"pg_language": {vcols("oid", "o", "lanname", "t", "lanowner", "o", "lanispl", "b", "lanpltrusted", "b",
			"lanplcallfoid", "o", "laninline", "o", "lanvalidator", "o", "lanacl", "t[]"), vempty},
		"pg_operator": {vcols("oid", "o", "oprname", "t", "oprnamespace", "o", "oprowner", "o", "oprkind", "t",
			"oprcanmerge", "b", "oprcanhash", "b", "oprleft", "o", "oprright", "o", "oprresult", "o", "oprcom", "o",
			"oprnegate", "o", "oprcode", "o", "oprrest", "o", "oprjoin", "o"), vempty},
		"pg_opclass": {vcols("oid", "o", "opcmethod", "o", "opcname", "t", "opcnamespace", "o", "opcowner", "o",
			"opcfamily", "o", "opcintype", "o", "opcdefault", "b", "opckeytype", "o"), vempty},
		"pg_opfamily": {vcols("oid", "o", "opfmethod", "o", "opfname", "t", "opfnamespace", "o", "opfowner", "o"), vempty},
		"pg_amop": {vcols("oid", "o", "amopfamily", "o", "amoplefttype", "o", "amoprighttype", "o", "amopstrategy", "i2",
			"amoppurpose", "t", "amopopr", "o", "amopmethod", "o", "amopsortfamily", "o"), vempty},
		"pg_amproc": {vcols("oid", "o", "amprocfamily", "o", "amproclefttype", "o", "amprocrighttype", "o",
			"amprocnum", "i2", "amproc", "o"), vempty},
		"pg_ts_parser": {vcols("oid", "o", "prsname", "t", "prsnamespace", "o", "prsstart", "o", "prstoken", "o",
			"prsend", "o", "prsheadline", "o", "prslextype", "o"), vempty},
		"pg_ts_template": {vcols("oid", "o", "tmplname", "t", "tmplnamespace", "o", "tmplinit", "o", "tmpllexize", "o"), vempty},
		"pg_ts_dict": {vcols("oid", "o", "dictname", "t", "dictnamespace", "o", "dictowner", "o", "dicttemplate", "o",
			"dictinitoption", "t"), vempty},
		"pg_ts_config": {vcols("oid", "o", "cfgname", "t", "cfgnamespace", "o", "cfgowner", "o", "cfgparser", "o"), vempty},
		"pg_foreign_data_wrapper": {vcols("oid", "o", "fdwname", "t", "fdwowner", "o", "fdwhandler", "o",
			"fdwvalidator", "o", "fdwacl", "t[]", "fdwoptions", "t[]"), vempty},
		"pg_foreign_server": {vcols("oid", "o", "srvname", "t", "srvowner", "o", "srvfdw", "o", "srvtype", "t",
			"srvversion", "t", "srvacl", "t[]", "srvoptions", "t[]"), vempty},
		"pg_foreign_table": {vcols("ftrelid", "o", "ftserver", "o", "ftoptions", "t[]"), vempty},
		"pg_user_mapping":  {vcols("oid", "o", "umuser", "o", "umserver", "o", "umoptions", "t[]"), vempty},
		"pg_default_acl": {vcols("oid", "o", "defaclrole", "o", "defaclnamespace", "o", "defaclobjtype", "t",
			"defaclacl", "t[]"), vempty},
		"pg_conversion": {vcols("oid", "o", "conname", "t", "connamespace", "o", "conowner", "o",
			"conforencoding", "i4", "contoencoding", "i4", "conproc", "o", "condefault", "b"), vempty},
		"pg_event_trigger": {vcols("oid", "o", "evtname", "t", "evtevent", "t", "evtowner", "o", "evtfoid", "o",
			"evtenabled", "t", "evttags", "t[]"), vempty},
		"pg_partitioned_table": {vcols("partrelid", "o", "partstrat", "t", "partnatts", "i2", "partdefid", "o",
			"partattrs", "i2[]", "partclass", "o[]", "partcollation", "o[]", "partexprs", "t"), pgPartitionedTable},
		"pg_subscription": {vcols("oid", "o", "subdbid", "o", "subskiplsn", "t", "subname", "t", "subowner", "o",
			"subenabled", "b", "subbinary", "b", "substream", "b", "subtwophasestate", "t", "subdisableonerr", "b",
			"subconninfo", "t", "subslotname", "t", "subsynccommit", "t", "subpublications", "t[]"), vempty},
		"pg_largeobject_metadata": {vcols("oid", "o", "lomowner", "o", "lomacl", "t[]"), vempty},
		"pg_shseclabel":           {vcols("objoid", "o", "classoid", "o", "provider", "t", "label", "t"), vempty},
		"pg_parameter_acl":        {vcols("oid", "o", "parname", "t", "paracl", "t[]"), vempty},
		"pg_db_role_setting":      {vcols("setdatabase", "o", "setrole", "o", "setconfig", "t[]"), vempty},
		"pg_seclabel":             {vcols("objoid", "o", "classoid", "o", "objsubid", "i4", "provider", "t", "label", "t"), vempty},
		"pg_seclabels": {vcols("objoid", "o", "classoid", "o", "objsubid", "i4", "objtype", "t", "objnamespace", "o",
			"objname", "t", "provider", "t", "label", "t"), vempty},
		"pg_trigger": {vcols("oid", "o", "tgrelid", "o", "tgparentid", "o", "tgname", "t", "tgfoid", "o", "tgtype", "i2",
			"tgenabled", "t", "tgisinternal", "b", "tgconstrrelid", "o", "tgconstrindid", "o", "tgconstraint", "o",
			"tgdeferrable", "b", "tginitdeferred", "b", "tgnargs", "i2", "tgattr", "i2[]", "tgargs", "t", "tgqual", "t",
			"tgoldtable", "t", "tgnewtable", "t"), pgTrigger},
		"pg_rewrite": {vcols("oid", "o", "rulename", "t", "ev_class", "o", "ev_type", "t", "ev_enabled", "t",
			"is_instead", "b", "ev_qual", "t", "ev_action", "t"), vempty},
		"pg_policy": {vcols("oid", "o", "polname", "t", "polrelid", "o", "polcmd", "t", "polpermissive", "b",
			"polroles", "o[]", "polqual", "t", "polwithcheck", "t"), vempty},
		"pg_statistic_ext": {vcols("oid", "o", "stxrelid", "o", "stxname", "t", "stxnamespace", "o",
			"stxowner", "o", "stxstattarget", "i4", "stxkeys", "i2[]", "stxkind", "t[]", "stxexprs", "t"), vempty},
		"pg_publication_rel": {vcols("oid", "o", "prpubid", "o", "prrelid", "o", "prqual", "t", "prattrs", "i2[]"), vempty},
	}
}

// SettingNames are the run-time parameters pg_settings lists (a
// session's settings; the session package keeps their values).
var SettingNames = []string{"application_name", "bytea_output", "client_encoding", "datestyle",
	"deadlock_timeout", "default_transaction_isolation", "default_transaction_read_only", "extra_float_digits",
	"idle_in_transaction_session_timeout", "integer_datetimes", "intervalstyle", "is_superuser", "lc_collate",
	"lc_ctype", "lc_messages", "lock_timeout", "max_identifier_length", "search_path", "server_encoding",
	"server_version", "server_version_num", "standard_conforming_strings", "statement_timeout", "timezone",
	"transaction_isolation", "transaction_read_only", "work_mem"}

// pgSettings has one row per parameter, its setting read when the query
// runs (current_setting).
func pgSettings(*vgen) [][]Expr {
	var out [][]Expr
	for _, name := range SettingNames {
		cur := &Func{Name: "current_setting", Args: []Expr{textConst(name)}, T: tText}
		out = append(out, vrow(name, cur, nil, "", "", nil, "user", "string", "default", nil, nil, nil, nil, cur, nil, nil, false))
	}
	return out
}

// pgDepend ties sequences to the columns that own them: deptype 'a'
// (auto) for a serial column's sequence and a sequence OWNED BY a column,
// 'i' (internal) for an identity column's; and views and defaults to the
// relations they read ('n', normal).
func pgDepend(g *vgen) [][]Expr {
	var out [][]Expr
	dep := func(seq int64, table, column string, kind string) {
		t, err := g.cat.Table(g.db, table)
		if err != nil {
			return
		}
		ord := t.ColumnOrdinal(column)
		if ord < 0 {
			return
		}
		out = append(out, vrow(int64(1259), seq, 0, int64(1259), int64(t.ID), attnum(t, ord), kind))
	}
	for _, s := range g.sequences() {
		if s.OwnedTable != "" {
			dep(int64(s.ID), s.OwnedTable, s.OwnedColumn, "a")
		}
	}
	for _, s := range g.serialSequences() {
		kind := "a"
		if s.Identity {
			kind = "i"
		}
		dep(int64(s.ID), s.OwnedTable, s.OwnedColumn, kind)
	}
	// A view or materialized view depends on the relations its query
	// reads ('n'): pg_dump creates those first.
	relOIDs := map[string]int64{}
	for _, t := range g.tables() {
		relOIDs[t.Name] = int64(t.ID)
	}
	for _, v := range g.views() {
		relOIDs[v.Name] = oidView(v.Key())
	}
	names := map[string]bool{}
	for name := range relOIDs {
		names[name] = true
	}
	readsOf := func(oid int64, query string) {
		for _, ref := range parse.ReferencedRelations(query, names) {
			if ref := relOIDs[ref]; ref != oid {
				out = append(out, vrow(int64(1259), oid, 0, int64(1259), ref, 0, "n"))
			}
		}
	}
	for _, v := range g.views() {
		readsOf(oidView(v.Key()), v.SQL)
	}
	for _, t := range g.tables() {
		if t.MatView != "" {
			readsOf(int64(t.ID), t.MatView)
		}
	}
	// A column default calling nextval depends on its sequence ('n',
	// normal): pg_dump then creates the sequence before setting the
	// default.
	seqOIDs := map[string]int64{}
	for _, s := range g.serialSequences() {
		seqOIDs[s.Key()] = int64(s.ID)
	}
	for _, s := range g.sequences() {
		seqOIDs[s.Key()] = int64(s.ID)
	}
	for _, t := range g.tables() {
		cols, nums := visibleColumns(t)
		for i, c := range cols {
			def := c.Default
			if def == "" && c.Serial && !c.IdentityAlways && !c.IdentityByDefault {
				def = serialDefault(t, c.Name)
			}
			m := nextvalCall.FindStringSubmatch(def)
			if m == nil {
				continue
			}
			ref, err := SequenceRefName(m[1])
			if err != nil {
				continue
			}
			_, schema, name := SplitRef(ref)
			if oid, ok := seqOIDs[catalog.RelKey(schema, name)]; ok {
				out = append(out, vrow(int64(2604), oidAttrDefBase+int64(t.ID)*1024+int64(nums[i]), 0, int64(1259), oid, 0, "n"))
			}
		}
	}
	return out
}

// nextvalCall finds the sequence a default's nextval('name') names.
var nextvalCall = regexp.MustCompile(`(?i)nextval\(\s*(?:cast\(\s*)?'((?:[^']|'')*)'`)

// pgInitPrivs has the privileges initdb gives: schema public's (pg_dump
// dumps an ACL only where it differs from these).
func pgInitPrivs(*vgen) [][]Expr {
	return [][]Expr{vrow(oidPublic, int64(2615), 0, "i", publicACL)}
}
