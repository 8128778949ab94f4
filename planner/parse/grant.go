package parse

// GrantStmt is GRANT privileges ON objects TO roles and REVOKE
// privileges ON objects FROM roles. (GRANT role TO role is a RoleStmt.)
type GrantStmt struct {
	Revoke bool
	// GrantOption is WITH GRANT OPTION, or REVOKE GRANT OPTION FOR.
	GrantOption bool
	// Privileges are the privileges named in lower case ("select",
	// "insert", ..., "usage", "create", "connect", "temporary",
	// "execute"); empty for ALL [PRIVILEGES].
	Privileges []Privilege
	// Kind is the object kind: "table" (also for a bare name), "sequence",
	// "schema", "database", "function", "procedure", "routine", "type",
	// "domain", "language", "foreign data wrapper", "foreign server",
	// "large object", "tablespace", "parameter".
	Kind string
	// InSchema is ON ALL TABLES / SEQUENCES / FUNCTIONS IN SCHEMA s, ...:
	// Objects are then the schemas.
	InSchema bool
	// Objects are the objects' names: relations and types as
	// QualifiedRef writes them; schemas and databases as names.
	Objects []string
	// Routines are the ON FUNCTION / PROCEDURE / ROUTINE objects.
	Routines []RoutineRef
	// Grantees are the roles granted to or revoked from, "public" for
	// PUBLIC (a quoted "public" is a role of that name, which cannot
	// exist).
	Grantees  []string
	GrantedBy string
	Cascade   bool
}

// Privilege is one privilege of a GrantStmt, with its column list if it
// has one.
type Privilege struct {
	Name    string
	Columns []string
}

var privilegeWords = map[string]bool{
	"select": true, "insert": true, "update": true, "delete": true, "truncate": true,
	"references": true, "trigger": true, "usage": true, "create": true, "connect": true,
	"temporary": true, "temp": true, "execute": true, "set": true, "maintain": true,
}

// grantOrRevoke parses GRANT and REVOKE, of privileges (an ON clause
// at the top level) or of roles.
func (r *rewriter) grantOrRevoke(toks []token) (Statement, error) {
	on := -1
	for i, t := range toks {
		if t.is("on") {
			on = i
			break
		}
	}
	if on < 0 {
		return r.grantRole(toks)
	}
	g := &GrantStmt{Revoke: toks[0].is("revoke")}
	st := Statement{Grant: g}
	c := &cursor{r: r, toks: toks, i: 1}
	if g.Revoke && c.accept("grant") {
		if err := c.expect("option"); err != nil {
			return st, err
		}
		if err := c.expect("for"); err != nil {
			return st, err
		}
		g.GrantOption = true
	}
	if c.accept("all") {
		c.accept("privileges")
		if !c.done() && c.toks[c.i].isPunct("(") {
			cols, err := c.columnList()
			if err != nil {
				return st, err
			}
			g.Privileges = nil
			for _, p := range []string{"select", "insert", "update", "references"} {
				g.Privileges = append(g.Privileges, Privilege{Name: p, Columns: cols})
			}
		}
	} else {
		for {
			if c.done() || c.toks[c.i].kind != tkIdent || !privilegeWords[c.toks[c.i].val] {
				return st, c.errHere()
			}
			p := Privilege{Name: c.toks[c.i].val}
			if p.Name == "temp" {
				p.Name = "temporary"
			}
			c.i++
			if !c.done() && c.toks[c.i].isPunct("(") {
				cols, err := c.columnList()
				if err != nil {
					return st, err
				}
				p.Columns = cols
			}
			g.Privileges = append(g.Privileges, p)
			if c.done() || !c.toks[c.i].isPunct(",") {
				break
			}
			c.i++
		}
	}
	if err := c.expect("on"); err != nil {
		return st, err
	}
	if err := c.grantObjects(g); err != nil {
		return st, err
	}
	if g.Revoke {
		if err := c.expect("from"); err != nil {
			return st, err
		}
	} else if err := c.expect("to"); err != nil {
		return st, err
	}
	var err error
	if g.Grantees, err = c.grantees(); err != nil {
		return st, err
	}
	if !g.Revoke && c.accept("with") {
		if err := c.expect("grant"); err != nil {
			return st, err
		}
		if err := c.expect("option"); err != nil {
			return st, err
		}
		g.GrantOption = true
	}
	if g.GrantedBy, err = c.grantedBy(); err != nil {
		return st, err
	}
	if g.Revoke {
		if c.accept("cascade") {
			g.Cascade = true
		} else {
			c.accept("restrict")
		}
	}
	return st, c.end()
}

// grantObjects reads the objects after ON.
func (c *cursor) grantObjects(g *GrantStmt) error {
	g.Kind = "table"
	switch {
	case c.accept("all"):
		switch {
		case c.accept("tables"):
		case c.accept("sequences"):
			g.Kind = "sequence"
		case c.accept("functions"):
			g.Kind = "function"
		case c.accept("procedures"):
			g.Kind = "procedure"
		case c.accept("routines"):
			g.Kind = "routine"
		default:
			return c.errHere()
		}
		if err := c.expect("in"); err != nil {
			return err
		}
		if err := c.expect("schema"); err != nil {
			return err
		}
		g.InSchema = true
		names, err := c.roleList()
		g.Objects = names
		return err
	case c.accept("function"), c.accept("procedure"), c.accept("routine"):
		g.Kind = c.toks[c.i-1].val
		for {
			ref, err := c.routineRef()
			if err != nil {
				return err
			}
			g.Routines = append(g.Routines, ref)
			if c.done() || !c.toks[c.i].isPunct(",") {
				return nil
			}
			c.i++
		}
	case c.accept("schema"), c.accept("database"), c.accept("language"), c.accept("tablespace"):
		g.Kind = c.toks[c.i-1].val
		names, err := c.roleList()
		g.Objects = names
		return err
	case c.accept("foreign"):
		switch {
		case c.accept("data"):
			if err := c.expect("wrapper"); err != nil {
				return err
			}
			g.Kind = "foreign data wrapper"
		case c.accept("server"):
			g.Kind = "foreign server"
		default:
			return c.errHere()
		}
		names, err := c.roleList()
		g.Objects = names
		return err
	case c.accept("large"):
		return unsupported(c.r.sql, c.toks[c.i-1].pos, "large objects are not supported")
	case c.accept("parameter"):
		return unsupported(c.r.sql, c.toks[c.i-1].pos, "GRANT ON PARAMETER is not supported")
	case c.accept("sequence"), c.accept("type"), c.accept("domain"):
		g.Kind = c.toks[c.i-1].val
	default:
		c.accept("table")
	}
	for {
		n, err := c.refName()
		if err != nil {
			return err
		}
		g.Objects = append(g.Objects, n)
		if c.done() || !c.toks[c.i].isPunct(",") {
			return nil
		}
		c.i++
	}
}

// grantees reads role [, ...] where a role may be PUBLIC or GROUP role.
func (c *cursor) grantees() ([]string, error) {
	var out []string
	for {
		c.accept("group")
		if c.done() || c.toks[c.i].kind != tkIdent && c.toks[c.i].kind != tkQIdent {
			return nil, c.errHere()
		}
		n := c.toks[c.i].val
		if c.toks[c.i].kind == tkQIdent && n == "public" {
			n = "\"public\"" // a role named public, which cannot exist
		}
		c.i++
		out = append(out, n)
		if c.done() || !c.toks[c.i].isPunct(",") {
			return out, nil
		}
		c.i++
	}
}

// grantedBy reads [GRANTED BY role].
func (c *cursor) grantedBy() (string, error) {
	if !c.accept("granted") {
		return "", nil
	}
	if err := c.expect("by"); err != nil {
		return "", err
	}
	return c.name()
}

// columnList reads ( name [, ...] ).
func (c *cursor) columnList() ([]string, error) {
	c.i++ // (
	cols, err := c.roleList()
	if err != nil {
		return nil, err
	}
	if c.done() || !c.toks[c.i].isPunct(")") {
		return nil, c.errHere()
	}
	c.i++
	return cols, nil
}

// grantRole parses GRANT role [, ...] TO role [, ...] [WITH ADMIN
// OPTION] [GRANTED BY role] and REVOKE [ADMIN OPTION FOR] role [, ...]
// FROM role [, ...] [GRANTED BY role] [CASCADE | RESTRICT].
func (r *rewriter) grantRole(toks []token) (Statement, error) {
	rs := &RoleStmt{Op: toks[0].val, Kind: "role"}
	st := Statement{Role: rs}
	c := &cursor{r: r, toks: toks, i: 1}
	if rs.Op == "revoke" && c.accept("admin") {
		if err := c.expect("option"); err != nil {
			return st, err
		}
		if err := c.expect("for"); err != nil {
			return st, err
		}
		rs.Admin = true
	}
	var err error
	if rs.Names, err = c.roleList(); err != nil {
		return st, err
	}
	if rs.Op == "revoke" {
		err = c.expect("from")
	} else {
		err = c.expect("to")
	}
	if err != nil {
		return st, err
	}
	if rs.Members, err = c.grantees(); err != nil {
		return st, err
	}
	if rs.Op == "grant" && c.accept("with") {
		if err := c.expect("admin"); err != nil {
			return st, err
		}
		if err := c.expect("option"); err != nil {
			return st, err
		}
		rs.Admin = true
	}
	if rs.GrantedBy, err = c.grantedBy(); err != nil {
		return st, err
	}
	if rs.Op == "revoke" && !c.accept("cascade") {
		c.accept("restrict")
	}
	return st, c.end()
}
