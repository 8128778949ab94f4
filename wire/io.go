package wire

import (
	"encoding/binary"
	"errors"
	"io"
	"time"

	"github.com/jackc/pgx/v5/pgproto3"
	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/wire/backend"
)

// readChunk is how much of a large message body is allocated at a time, so
// that a client which declares a big message but does not send it cannot
// make the server allocate the declared size.
const readChunk = 1 << 20

// flushThreshold is how much output is buffered before it is written while
// rows stream.
const flushThreshold = 64 << 10

// readFrame reads one typed message from r: a type byte, a 4-byte length
// that counts itself, and the body. The length is checked before anything
// is allocated: below 4 is 08P01, above limit is 54000 (a message up to
// twice the limit is read and dropped first, so the client sees the
// error); both end the
// connection because the byte stream can no longer be trusted. The
// returned body aliases buf and is valid until the next call. hdr is
// where the 5-byte header is read (the connection's: a local array
// would escape to the heap through io.ReadFull, an allocation per
// message).
func readFrame(r io.Reader, hdr *[5]byte, buf []byte, limit int) (typ byte, body []byte, err error) {
	if _, err := io.ReadFull(r, hdr[:]); err != nil {
		return 0, buf, err
	}
	n := int64(int32(binary.BigEndian.Uint32(hdr[1:]))) - 4
	if n < 0 {
		return 0, buf, pgerror.Newf(pgerror.ProtocolViolation, "invalid message length %d", n+4)
	}
	if n > int64(limit) {
		tooLong := pgerror.Newf(pgerror.ProgramLimitExceeded, "message of %d bytes exceeds the limit of %d bytes", n, limit)
		if n <= 2*int64(limit) {
			// A message not far past the limit is read and dropped, so
			// that a client still writing it reads the error instead of
			// a reset connection; anything larger ends the connection at
			// once.
			if _, err := io.CopyN(io.Discard, r, n); err != nil {
				return 0, buf, err
			}
		}
		return 0, buf, tooLong
	}
	body = buf[:0]
	for int64(len(body)) < n {
		step := min(int(n)-len(body), readChunk)
		if cap(body)-len(body) < step {
			// Grow geometrically, only as data arrives, never past n.
			nb := make([]byte, len(body), min(int(n), max(2*len(body), len(body)+step)))
			copy(nb, body)
			body = nb
		}
		start := len(body)
		body = body[:start+step]
		if _, err := io.ReadFull(r, body[start:]); err != nil {
			if errors.Is(err, io.EOF) {
				err = io.ErrUnexpectedEOF
			}
			return 0, body[:0], err
		}
	}
	return hdr[0], body, nil
}

// decodeFrontend decodes a message read by readFrame. The message may
// alias body. Authentication responses ('p') are decoded by the auth code,
// which knows which one to expect.
func decodeFrontend(typ byte, body []byte) (pgproto3.FrontendMessage, error) {
	var m pgproto3.FrontendMessage
	switch typ {
	case 'Q':
		m = &pgproto3.Query{}
	case 'P':
		m = &pgproto3.Parse{}
	case 'B':
		m = &pgproto3.Bind{}
	case 'D':
		m = &pgproto3.Describe{}
	case 'E':
		m = &pgproto3.Execute{}
	case 'C':
		m = &pgproto3.Close{}
	case 'S':
		m = &pgproto3.Sync{}
	case 'H':
		m = &pgproto3.Flush{}
	case 'd':
		m = &pgproto3.CopyData{}
	case 'c':
		m = &pgproto3.CopyDone{}
	case 'f':
		m = &pgproto3.CopyFail{}
	case 'X':
		m = &pgproto3.Terminate{}
	case 'p':
		m = &pgproto3.PasswordMessage{}
	default:
		return nil, pgerror.Newf(pgerror.ProtocolViolation, "invalid frontend message type %d", typ)
	}
	if err := m.Decode(body); err != nil {
		return nil, pgerror.Newf(pgerror.ProtocolViolation, "invalid %T message: %v", m, err)
	}
	return m, nil
}

// receive reads and decodes the next message; it is valid until the
// next receive (inbox).
func (c *conn) receive() (pgproto3.FrontendMessage, error) {
	typ, body, err := c.receiveRaw()
	if err != nil {
		return nil, err
	}
	return c.in.decode(typ, body)
}

func (c *conn) receiveRaw() (byte, []byte, error) {
	typ, body, err := readFrame(c.rd, &c.hdr, c.body, c.srv.cfg.MaxMessageSize)
	if cap(body) <= 1<<20 {
		c.body = body[:0] // keep small buffers; let big ones go
	} else {
		c.body = nil
	}
	return typ, body, err
}

// send buffers msg; encoding errors (a value too large for the protocol)
// become an error the client sees.
func (c *conn) send(msg pgproto3.BackendMessage) {
	out, err := msg.Encode(c.wbuf)
	if err != nil {
		c.log.Error("wire: encode failed", "msg", msg, "err", err)
		return
	}
	c.wbuf = out
}

// sendCommandComplete appends CommandComplete with tag, encoded as
// pgproto3 encodes it, without the message value and the []byte copy of
// the tag that send would make (two allocations per statement).
func (c *conn) sendCommandComplete(tag string) {
	c.wbuf = append(c.wbuf, 'C')
	c.wbuf = binary.BigEndian.AppendUint32(c.wbuf, uint32(4+len(tag)+1))
	c.wbuf = append(c.wbuf, tag...)
	c.wbuf = append(c.wbuf, 0)
}

// appendReadyForQuery appends ReadyForQuery with the transaction status
// (pgproto3's encoding, without a message value per round trip).
func appendReadyForQuery(b []byte, status byte) []byte {
	return append(b, 'Z', 0, 0, 0, 5, status)
}

// flush writes the buffered output. A write that fails or exceeds
// WriteTimeout marks the connection dead: nothing more can be said to the
// client.
func (c *conn) flush() error {
	if len(c.wbuf) == 0 || c.closed() {
		return c.ctx.Err()
	}
	nc := c.nc()
	nc.SetWriteDeadline(time.Now().Add(c.srv.cfg.WriteTimeout))
	_, err := nc.Write(c.wbuf)
	if cap(c.wbuf) > 4*flushThreshold {
		c.wbuf = nil
	} else {
		c.wbuf = c.wbuf[:0]
	}
	if err != nil {
		c.log.Debug("wire: write failed; closing", "err", err)
		c.cancelRunning(errConnectionLost)
		c.stop()
		nc.Close()
	}
	return err
}

// maybeFlush flushes when enough output is buffered.
func (c *conn) maybeFlush() error {
	if len(c.wbuf) >= flushThreshold {
		return c.flush()
	}
	return c.ctx.Err()
}

// sendError sends err as an ERROR ErrorResponse.
func (c *conn) sendError(err error) { c.send(errorResponse(err, "ERROR")) }

// sendNotices sends the session's pending notices (backend.Noticer) as
// NoticeResponse messages.
func (c *conn) sendNotices() {
	n, ok := c.sess.(backend.Noticer)
	if !ok {
		return
	}
	var notices []backend.Notice
	c.guard("Session.Notices", func() error { notices = n.Notices(); return nil })
	for _, nt := range notices {
		c.send((*pgproto3.NoticeResponse)(errorResponse(nt.Err, nt.Severity)))
	}
}

// fatal sends err as a FATAL ErrorResponse and flushes; the caller then
// closes the connection.
func (c *conn) fatal(err error) {
	c.send(errorResponse(err, "FATAL"))
	c.flush()
}

// errorResponse converts err to the message that carries its SQLSTATE,
// message, detail, hint and position.
func errorResponse(err error, severity string) *pgproto3.ErrorResponse {
	e := &pgproto3.ErrorResponse{
		Severity:            severity,
		SeverityUnlocalized: severity,
		Code:                string(pgerror.CodeOf(err)),
		Message:             err.Error(),
	}
	var pe *pgerror.Error
	if errors.As(err, &pe) {
		e.Detail = pe.Detail
		e.Hint = pe.Hint
		e.Position = int32(pe.Position)
		e.SchemaName, e.TableName, e.ColumnName = pe.Schema, pe.Table, pe.Column
		e.ConstraintName, e.DataTypeName = pe.Constraint, pe.DataType
		e.Where = pe.Where
	}
	return e
}
