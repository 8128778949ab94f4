package wire

import (
	"github.com/jackc/pgx/v5/pgproto3"
	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/types"
	"github.com/kvsql/kvsql/wire/backend"
)

// SQLSTATEs of the extended protocol's name errors.
const (
	codeDuplicatePreparedStatement = pgerror.Code("42P05")
	codeInvalidSQLStatementName    = pgerror.Code("26000")
	codeDuplicateCursor            = pgerror.Code("42P03")
	codeInvalidCursorName          = pgerror.Code("34000")
)

// parse handles Parse: prepare one statement (or none) under a name. The
// unnamed statement is silently replaced; a named one must not exist.
func (c *conn) parse(m *pgproto3.Parse) error {
	if _, ok := c.stmts[m.Name]; ok && m.Name != "" {
		return pgerror.Newf(codeDuplicatePreparedStatement, "prepared statement %q already exists", m.Name)
	}
	if err := pgerror.CheckUTF8(m.Query); err != nil {
		return err
	}
	oids := m.ParameterOIDs
	if oids == nil {
		oids = []uint32{} // non-nil: a Parse message (backend.Session.Prepare)
	}
	var stmts []backend.Statement
	err := c.guard("Session.Prepare", func() error {
		var err error
		stmts, err = c.sess.Prepare(c.ctx, m.Query, oids)
		return err
	})
	c.sendNotices()
	if err != nil {
		return err
	}
	if len(stmts) > 1 {
		return pgerror.New(pgerror.SyntaxError, "cannot insert multiple commands into a prepared statement")
	}
	ps := &prepared{sql: m.Query}
	if len(stmts) == 1 && stmts[0] != nil {
		ps.stmt = stmts[0]
		if err := c.guard("Statement.ParamOIDs", func() error {
			ps.paramOIDs = ps.stmt.ParamOIDs()
			return nil
		}); err != nil {
			return err
		}
	}
	c.stmts[m.Name] = ps
	c.send(&pgproto3.ParseComplete{})
	return nil
}

// bind handles Bind: decode the parameters to Datums, fix the result
// formats and create the portal.
func (c *conn) bind(m *pgproto3.Bind) error {
	ps, ok := c.stmts[m.PreparedStatement]
	if !ok {
		return pgerror.Newf(codeInvalidSQLStatementName, "prepared statement %q does not exist", m.PreparedStatement)
	}
	// p is the portal's: the closed unnamed portal it replaces, if any,
	// or the one the last Sync closed (nothing else refers to a portal
	// once it left c.portals), so that a client binding the unnamed
	// portal per statement, as pgx and pgbench -M prepared do, makes no
	// new one.
	var p *portal
	if old, ok := c.portals[m.DestinationPortal]; ok {
		if m.DestinationPortal != "" {
			return pgerror.Newf(codeDuplicateCursor, "portal %q already exists", m.DestinationPortal)
		}
		c.closePortal(old)
		delete(c.portals, "")
		p = old
	}
	if len(m.Parameters) != len(ps.paramOIDs) {
		return pgerror.Newf(pgerror.ProtocolViolation, "bind message supplies %d parameters, but prepared statement %q requires %d", len(m.Parameters), m.PreparedStatement, len(ps.paramOIDs))
	}
	if err := checkFormats(m.ParameterFormatCodes, len(m.Parameters), "parameter"); err != nil {
		return err
	}
	// A new slice each time: the session may keep it past the portal
	// (a cursor DECLAREd with parameters reads them at each FETCH).
	params := make([]types.Datum, len(m.Parameters))
	for i, raw := range m.Parameters {
		d, err := decodeParam(ps.paramOIDs[i], formatOf(m.ParameterFormatCodes, i), raw, c.location())
		if err != nil {
			return pgerror.Wrap(err, pgerror.InvalidTextRepresentation)
		}
		params[i] = d
	}
	if p == nil {
		if p = c.sparePortal; p == nil {
			p = new(portal)
		}
		c.sparePortal = nil
	}
	*p = portal{stmt: ps.stmt, ps: ps, params: params}
	if ps.stmt != nil {
		var cols []backend.Column
		if err := c.guard("Statement.Columns", func() error { cols = ps.stmt.Columns(); return nil }); err != nil {
			return err
		}
		var err error
		if p.formats, err = ps.resultFormats(m.ResultFormatCodes, len(cols)); err != nil {
			return err
		}
	}
	c.portals[m.DestinationPortal] = p
	c.send(&pgproto3.BindComplete{})
	return nil
}

// describe handles Describe of a statement (ParameterDescription, then
// RowDescription or NoData) or of a portal (RowDescription in the portal's
// result formats, or NoData). Nothing is executed.
func (c *conn) describe(m *pgproto3.Describe) error {
	var stmt backend.Statement
	var formats []int16
	var cache *describedRows // a portal's: its statement's last RowDescription
	switch m.ObjectType {
	case 'S':
		ps, ok := c.stmts[m.Name]
		if !ok {
			return pgerror.Newf(codeInvalidSQLStatementName, "prepared statement %q does not exist", m.Name)
		}
		oids := ps.paramOIDs
		if oids == nil {
			oids = []uint32{}
		}
		c.send(&pgproto3.ParameterDescription{ParameterOIDs: oids})
		stmt = ps.stmt
	case 'P':
		p, ok := c.portals[m.Name]
		if !ok {
			return pgerror.Newf(codeInvalidCursorName, "portal %q does not exist", m.Name)
		}
		stmt, formats = p.stmt, p.formats
		if p.ps != nil {
			cache = &p.ps.desc
		}
	default:
		return pgerror.Newf(pgerror.ProtocolViolation, "invalid DESCRIBE message subtype %d", m.ObjectType)
	}
	var cols []backend.Column
	if stmt != nil {
		if err := c.guard("Statement.Columns", func() error {
			if stmt.Copy() == nil {
				cols = stmt.Columns()
			}
			return nil
		}); err != nil {
			return err
		}
	}
	if cols == nil {
		c.send(&pgproto3.NoData{})
		return nil
	}
	if cache == nil {
		c.send(rowDescription(cols, formats))
		return nil
	}
	msg, err := cache.encode(cols, formats)
	if err != nil {
		c.send(rowDescription(cols, formats)) // send logs why it cannot
		return nil
	}
	c.wbuf = append(c.wbuf, msg...)
	return nil
}

// execute handles Execute: run the portal, or resume a suspended one, with
// the message's row limit.
func (c *conn) execute(m *pgproto3.Execute) error {
	p, ok := c.portals[m.Portal]
	if !ok {
		return pgerror.Newf(codeInvalidCursorName, "portal %q does not exist", m.Portal)
	}
	maxRows := int(m.MaxRows)
	if maxRows < 0 { // a uint32 above MaxInt32 on 32-bit platforms
		maxRows = 0
	}
	return c.runPortal(p, maxRows)
}

// closeObject handles Close of a statement or portal; closing one that
// does not exist is not an error.
func (c *conn) closeObject(m *pgproto3.Close) error {
	switch m.ObjectType {
	case 'S':
		delete(c.stmts, m.Name)
	case 'P':
		if p, ok := c.portals[m.Name]; ok {
			c.closePortal(p)
			delete(c.portals, m.Name)
		}
	default:
		return pgerror.Newf(pgerror.ProtocolViolation, "invalid CLOSE message subtype %d", m.ObjectType)
	}
	c.send(&pgproto3.CloseComplete{})
	return nil
}

// sync ends an extended-protocol batch. Outside a transaction block the
// portals end with the implicit transaction, as in PostgreSQL.
func (c *conn) sync() {
	status := byte('I')
	c.guard("Session.TxnStatus", func() error { status = c.sess.TxnStatus(); return nil })
	if status != 'I' {
		return
	}
	for name, p := range c.portals {
		c.closePortal(p)
		delete(c.portals, name)
		if name == "" {
			c.sparePortal = p
		}
	}
}
