package parse

import "strconv"

// RoleStmt is CREATE ROLE / USER / GROUP, ALTER ROLE / USER / GROUP,
// DROP ROLE / USER / GROUP, and GRANT / REVOKE of role membership.
type RoleStmt struct {
	// Op is "create", "alter", "rename", "drop", "grant" or "revoke".
	Op string
	// Kind is the word written: "role", "user" or "group" (CREATE USER
	// defaults to LOGIN).
	Kind     string
	Names    []string // the role (DROP: each role); GRANT/REVOKE: the granted roles
	IfExists bool
	Options  []RoleOption
	NewName  string // RENAME TO
	// Members are GRANT's TO and REVOKE's FROM roles, and ALTER GROUP's
	// ADD USER / DROP USER roles (Op "grant" / "revoke" then too).
	Members []string
	Admin   bool // WITH ADMIN OPTION; REVOKE ADMIN OPTION FOR
	// GrantedBy is GRANTED BY role, or "".
	GrantedBy string
}

// RoleOption is one option of CREATE / ALTER ROLE: Name is the keyword
// in lower case ("superuser", "nologin", "connection limit", "password",
// "valid until", "in role", "role", "admin", "sysid"); Value is a
// password or timestamp (Null for PASSWORD NULL), Limit CONNECTION
// LIMIT's number, Roles the names of IN ROLE / ROLE / ADMIN.
type RoleOption struct {
	Name  string
	Value string
	Null  bool
	Limit int64
	Roles []string
}

// roleFlags are the options that are one keyword.
var roleFlags = map[string]bool{
	"superuser": true, "nosuperuser": true, "createdb": true, "nocreatedb": true,
	"createrole": true, "nocreaterole": true, "inherit": true, "noinherit": true,
	"login": true, "nologin": true, "replication": true, "noreplication": true,
	"bypassrls": true, "nobypassrls": true,
}

// role parses the role statements RoleStmt describes.
func (r *rewriter) role(toks []token) (Statement, error) {
	c := &cursor{r: r, toks: toks, i: 2}
	rs := &RoleStmt{Op: toks[0].val, Kind: toks[1].val}
	st := Statement{Role: rs}
	switch rs.Op {
	case "create":
		n, err := c.name()
		if err != nil {
			return st, err
		}
		rs.Names = []string{n}
		if rs.Options, err = c.roleOptions(true); err != nil {
			return st, err
		}
	case "alter":
		n, err := c.name()
		if err != nil {
			return st, err
		}
		rs.Names = []string{n}
		switch {
		case c.accept("rename"):
			if err := c.expect("to"); err != nil {
				return st, err
			}
			rs.Op = "rename"
			if rs.NewName, err = c.name(); err != nil {
				return st, err
			}
		case rs.Kind == "group" && (c.peek("add") || c.peek("drop")):
			// ALTER GROUP g ADD USER u [, ...] is GRANT g TO u.
			rs.Op = "grant"
			if c.accept("drop") {
				rs.Op = "revoke"
			} else {
				c.i++
			}
			if err := c.expect("user"); err != nil {
				return st, err
			}
			if rs.Members, err = c.roleList(); err != nil {
				return st, err
			}
		case c.peek("in") && (c.i+1 >= len(toks) || !toks[c.i+1].is("database")):
			c.i++
			return st, c.errHere()
		case c.peek("set") || c.peek("reset") || c.peek("in"):
			return st, unsupported(r.sql, toks[c.i].pos, "ALTER ROLE ... SET / RESET (per-role settings) is not supported")
		default:
			if rs.Options, err = c.roleOptions(false); err != nil {
				return st, err
			}
		}
	case "drop":
		if c.accept("if") {
			if err := c.expect("exists"); err != nil {
				return st, err
			}
			rs.IfExists = true
		}
		var err error
		if rs.Names, err = c.roleList(); err != nil {
			return st, err
		}
	}
	return st, c.end()
}

// roleList reads name [, ...].
func (c *cursor) roleList() ([]string, error) {
	var out []string
	for {
		n, err := c.name()
		if err != nil {
			return nil, err
		}
		out = append(out, n)
		if c.done() || !c.toks[c.i].isPunct(",") {
			return out, nil
		}
		c.i++
	}
}

// roleOptions reads [WITH] option ...; create allows the options only
// CREATE ROLE has (IN ROLE, ROLE, ADMIN, USER, SYSID).
func (c *cursor) roleOptions(create bool) ([]RoleOption, error) {
	c.accept("with")
	var out []RoleOption
	for !c.done() {
		t := c.toks[c.i]
		o := RoleOption{Name: t.val}
		switch {
		case t.kind == tkIdent && roleFlags[t.val]:
			c.i++
		case c.accept("connection"):
			if err := c.expect("limit"); err != nil {
				return nil, err
			}
			n, err := c.signedInt()
			if err != nil {
				return nil, err
			}
			o.Name, o.Limit = "connection limit", n
		case c.accept("encrypted"), c.accept("unencrypted"), c.accept("password"):
			if t.val != "password" {
				if t.val == "unencrypted" {
					return nil, unsupported(c.r.sql, t.pos, "UNENCRYPTED PASSWORD is no longer supported")
				}
				if err := c.expect("password"); err != nil {
					return nil, err
				}
			}
			o.Name = "password"
			switch {
			case c.accept("null"):
				o.Null = true
			case !c.done() && c.toks[c.i].kind == tkString:
				o.Value = c.toks[c.i].val
				c.i++
			default:
				return nil, c.errHere()
			}
		case c.accept("valid"):
			if err := c.expect("until"); err != nil {
				return nil, err
			}
			if c.done() || c.toks[c.i].kind != tkString {
				return nil, c.errHere()
			}
			o.Name, o.Value = "valid until", c.toks[c.i].val
			c.i++
		case create && c.accept("sysid"):
			if c.done() || c.toks[c.i].kind != tkNumber {
				return nil, c.errHere()
			}
			if _, err := strconv.ParseInt(c.toks[c.i].val, 10, 64); err != nil {
				return nil, c.errHere()
			}
			c.i++
		case create && c.accept("in"):
			if !c.accept("role") && !c.accept("group") {
				return nil, c.errHere()
			}
			roles, err := c.roleList()
			if err != nil {
				return nil, err
			}
			o.Name, o.Roles = "in role", roles
		case create && (c.accept("role") || c.accept("user") || c.accept("admin")):
			roles, err := c.roleList()
			if err != nil {
				return nil, err
			}
			if o.Name == "user" {
				o.Name = "role"
			}
			o.Roles = roles
		default:
			return nil, c.errHere()
		}
		out = append(out, o)
	}
	return out, nil
}
