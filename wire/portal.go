package wire

import (
	"encoding/binary"
	"slices"

	"github.com/jackc/pgx/v5/pgproto3"
	"github.com/kvsql/kvsql/exec/eval"
	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/types"
	"github.com/kvsql/kvsql/wire/backend"
)

// prepared is a prepared statement: the per-connection plan cache entry
// that Parse creates. stmt is nil for an empty query string.
type prepared struct {
	sql       string
	stmt      backend.Statement
	paramOIDs []uint32
	// desc is the last RowDescription sent for a portal of this
	// statement, encoded: a client that describes every portal it binds
	// (libpq's PQexecPrepared, pgx) gets the same bytes each time.
	desc describedRows
	// formats are the result formats of the last portal bound, made
	// from formatCodes (prepared.resultFormats).
	formats, formatCodes []int16
}

// describedRows is an encoded RowDescription with what it was made from:
// the columns (the very slice the statement returned; a replanned
// statement returns a new one) and the result formats.
type describedRows struct {
	cols    []backend.Column
	formats []int16
	msg     []byte
}

// encode returns the RowDescription of cols in formats, encoded, reusing
// the last one when neither changed.
func (d *describedRows) encode(cols []backend.Column, formats []int16) ([]byte, error) {
	if d.msg != nil && len(cols) == len(d.cols) && (len(cols) == 0 || &cols[0] == &d.cols[0]) && slices.Equal(formats, d.formats) && (formats == nil) == (d.formats == nil) {
		return d.msg, nil
	}
	msg, err := rowDescription(cols, formats).Encode(nil)
	if err != nil {
		return nil, err
	}
	d.cols, d.formats, d.msg = cols, slices.Clone(formats), msg
	return msg, nil
}

// portal is a bound statement and, once executed, its open Result. A
// portal executed with a row limit keeps its Result and context between
// Executes.
type portal struct {
	stmt    backend.Statement // nil for an empty query
	ps      *prepared         // the statement it was bound from; nil for a simple query's
	params  []types.Datum
	formats []int16 // per result column; nil = all text

	ctx  *stmtCtx // non-nil while res is open
	res  backend.Result
	done bool   // ran to completion (or failed)
	tag  string // the CommandComplete tag once done
}

// rowDescription describes cols with the given per-column formats.
func rowDescription(cols []backend.Column, formats []int16) *pgproto3.RowDescription {
	rd := &pgproto3.RowDescription{Fields: make([]pgproto3.FieldDescription, len(cols))}
	for i, col := range cols {
		oid := col.Type.OID()
		if col.Type.Family == types.Unknown {
			oid = types.Text.OID() // PostgreSQL resolves unknown outputs to text
		}
		f := pgproto3.FieldDescription{
			Name:                 []byte(col.Name),
			TableOID:             col.TableOID,
			TableAttributeNumber: uint16(col.Attr),
			DataTypeOID:          oid,
			DataTypeSize:         typeSize(col.Type.Family),
			TypeModifier:         typeModifier(col.Type),
		}
		if formats != nil {
			f.Format = formats[i]
		}
		rd.Fields[i] = f
	}
	return rd
}

// resolveFormats applies Bind's format-code rules to n items: no codes
// means all text, one code applies to all, otherwise one per item.
func resolveFormats(codes []int16, n int, what string) ([]int16, error) {
	if err := checkFormats(codes, n, what); err != nil {
		return nil, err
	}
	out := make([]int16, n)
	for i := range out {
		out[i] = formatOf(codes, i)
	}
	return out, nil
}

// checkFormats reports what resolveFormats would refuse in codes for n
// items, without making the per-item slice.
func checkFormats(codes []int16, n int, what string) error {
	if len(codes) > 1 && len(codes) != n {
		return pgerror.Newf(pgerror.ProtocolViolation, "bind message has %d %s formats but %d %ss", len(codes), what, n, what)
	}
	if n == 0 {
		return nil // one code for no items: never applied, never checked
	}
	for _, f := range codes {
		if f != formatText && f != formatBinary {
			return pgerror.Newf(pgerror.ProtocolViolation, "unsupported format code: %d", f)
		}
	}
	return nil
}

// formatOf is item i's format under codes that checkFormats accepted.
func formatOf(codes []int16, i int) int16 {
	switch len(codes) {
	case 0:
		return formatText
	case 1:
		return codes[0]
	}
	return codes[i]
}

// resultFormats is resolveFormats for a portal's result columns, reusing
// the slice the statement's previous Bind made when the codes and the
// column count are the same (a portal never changes its formats, so
// portals may share them).
func (ps *prepared) resultFormats(codes []int16, n int) ([]int16, error) {
	if ps.formats != nil && len(ps.formats) == n && slices.Equal(codes, ps.formatCodes) {
		return ps.formats, nil
	}
	out, err := resolveFormats(codes, n, "result")
	if err != nil {
		return nil, err
	}
	ps.formats, ps.formatCodes = out, slices.Clone(codes)
	return out, nil
}

// appendDataRow appends a DataRow message for row straight into the
// output buffer, with no per-value allocation.
func appendDataRow(b []byte, cols []backend.Column, formats []int16, row []types.Datum, st eval.Style) ([]byte, error) {
	start := len(b)
	b = append(b, 'D', 0, 0, 0, 0)
	b = binary.BigEndian.AppendUint16(b, uint16(len(row)))
	for i, d := range row {
		if d.IsNull() {
			b = binary.BigEndian.AppendUint32(b, 0xffffffff)
			continue
		}
		var t types.T
		if i < len(cols) {
			t = cols[i].Type
		}
		lenPos := len(b)
		b = append(b, 0, 0, 0, 0)
		if formats != nil && i < len(formats) && formats[i] == formatBinary {
			var err error
			if b, err = appendBinary(b, t, d); err != nil {
				return b[:start], err
			}
		} else {
			b = appendText(b, t, d, st)
		}
		binary.BigEndian.PutUint32(b[lenPos:], uint32(len(b)-lenPos-4))
	}
	binary.BigEndian.PutUint32(b[start+1:], uint32(len(b)-start-1))
	return b, nil
}

// runPortal executes p (or resumes it) and streams up to maxRows rows (0 =
// all), then sends PortalSuspended or CommandComplete. The returned error
// is for the client; p is closed when it is not suspended.
func (c *conn) runPortal(p *portal, maxRows int) error {
	if p.done {
		c.sendCommandComplete(p.tag)
		return nil
	}
	if p.stmt == nil {
		c.send(&pgproto3.EmptyQueryResponse{})
		p.done = true
		return nil
	}
	if p.res == nil {
		if spec := p.stmt.Copy(); spec != nil {
			ctx := c.startStatement()
			defer ctx.done()
			tag, err := c.runCopy(ctx, spec)
			p.done, p.tag = true, tag
			if err != nil {
				return ctx.explain(err)
			}
			c.sendCommandComplete(tag)
			return nil
		}
	}
	w := c.watchClient()
	defer w.stop()
	if p.res == nil {
		p.ctx = c.startStatement()
		err := c.guard("Statement.Execute", func() error {
			res, err := p.stmt.Execute(p.ctx, p.params)
			p.res = res
			return err
		})
		if err == nil && p.res == nil {
			err = pgerror.New(pgerror.Internal, "backend returned no result")
		}
		if l, ok := p.res.(backend.RowLender); ok && err == nil {
			// Each row is encoded before the next is asked for.
			err = c.guard("Result.LendRows", func() error { l.LendRows(); return nil })
		}
		if err != nil {
			err = p.ctx.explain(err)
			c.closePortal(p)
			return err
		}
	}
	suspended := false
	err := c.guard("Result", func() error {
		cols := p.stmt.Columns()
		st := c.style()
		for n := 0; ; n++ {
			if maxRows > 0 && n == maxRows {
				suspended = true
				return nil
			}
			if n&63 == 63 && p.ctx.Err() != nil {
				return p.ctx.Err()
			}
			if !p.res.Next() {
				return p.res.Err()
			}
			var err error
			if c.wbuf, err = appendDataRow(c.wbuf, cols, p.formats, p.res.Row(), st); err != nil {
				return err
			}
			if err := c.maybeFlush(); err != nil {
				return err
			}
		}
	})
	if err == nil && c.terminating.Load() {
		// pg_terminate_backend of this very session (or one that came
		// as the statement ended): PostgreSQL dies before completing it.
		err = errAdminShutdown
	}
	c.sendNotices()
	if err == nil && suspended {
		c.send(&pgproto3.PortalSuspended{})
		return nil
	}
	if err == nil {
		c.guard("Result.Tag", func() error { p.tag = p.res.Tag(); return nil })
		c.sendCommandComplete(p.tag)
	} else {
		err = p.ctx.explain(err)
	}
	c.closePortal(p)
	return err
}

// closePortal releases p's Result and context; p stays usable only to
// report its tag again.
func (c *conn) closePortal(p *portal) {
	p.done = true
	if p.res != nil {
		res := p.res
		p.res = nil
		if err := c.guard("Result.Close", res.Close); err != nil {
			c.log.Warn("wire: closing result", "err", err)
		}
	}
	if p.ctx != nil {
		p.ctx.done()
		p.ctx = nil
	}
}
