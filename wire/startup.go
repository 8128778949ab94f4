package wire

import (
	"bufio"
	"crypto/tls"
	"encoding/binary"
	"io"
	"net"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgproto3"
	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/wire/backend"
)

// Startup packet codes (the first 4 bytes after the length).
const (
	protocol30  = 3 << 16
	codeSSL     = 80877103
	codeGSSENC  = 80877104
	codeCancel  = 80877102
	maxStartup  = 10_000 // PostgreSQL's MAX_STARTUP_PACKET_LENGTH
	minStartup  = 8      // length + code
	secretBytes = 4
)

// readStartup reads one startup-phase packet (untyped: length, code,
// payload) directly from r, without read-ahead: after an SSLRequest the
// next bytes belong to the TLS handshake and must not have been buffered
// as plaintext.
func readStartup(r io.Reader) (pgproto3.FrontendMessage, error) {
	var hdr [4]byte
	if _, err := io.ReadFull(r, hdr[:]); err != nil {
		return nil, err
	}
	n := int(int32(binary.BigEndian.Uint32(hdr[:])))
	if n < minStartup || n > maxStartup {
		return nil, pgerror.Newf(pgerror.ProtocolViolation, "invalid length of startup packet: %d", n)
	}
	body := make([]byte, n-4)
	if _, err := io.ReadFull(r, body); err != nil {
		return nil, io.ErrUnexpectedEOF
	}
	return decodeStartup(body)
}

// decodeStartup decodes a startup packet's body (code and payload).
func decodeStartup(body []byte) (pgproto3.FrontendMessage, error) {
	if len(body) < 4 {
		return nil, pgerror.New(pgerror.ProtocolViolation, "startup packet too short")
	}
	code := binary.BigEndian.Uint32(body)
	var m pgproto3.FrontendMessage
	switch {
	case code == codeSSL:
		m = &pgproto3.SSLRequest{}
	case code == codeGSSENC:
		m = &pgproto3.GSSEncRequest{}
	case code == codeCancel:
		m = &pgproto3.CancelRequest{}
	case code>>16 == 3:
		// Any 3.x: we speak 3.0 and tell newer clients so.
		sm := &pgproto3.StartupMessage{}
		if err := decodeStartupMessage(sm, body); err != nil {
			return nil, err
		}
		return sm, nil
	default:
		return nil, pgerror.Newf(pgerror.FeatureNotSupported, "unsupported frontend protocol %d.%d: server supports 3.0", code>>16, code&0xffff)
	}
	if err := m.Decode(body); err != nil {
		return nil, pgerror.Newf(pgerror.ProtocolViolation, "invalid startup packet: %v", err)
	}
	return m, nil
}

// decodeStartupMessage reads the version and the name/value pairs of a
// StartupMessage of any 3.x minor version.
func decodeStartupMessage(sm *pgproto3.StartupMessage, body []byte) error {
	sm.ProtocolVersion = binary.BigEndian.Uint32(body)
	sm.Parameters = make(map[string]string)
	rest := body[4:]
	for {
		k, after, ok := cutNul(rest)
		if !ok {
			return pgerror.New(pgerror.ProtocolViolation, "invalid startup packet layout: expected terminator as last byte")
		}
		if k == "" {
			if len(after) != 0 {
				return pgerror.New(pgerror.ProtocolViolation, "invalid startup packet layout: data after terminator")
			}
			return nil
		}
		v, after2, ok := cutNul(after)
		if !ok {
			return pgerror.New(pgerror.ProtocolViolation, "invalid startup packet layout: missing value")
		}
		sm.Parameters[k] = v
		rest = after2
	}
}

func cutNul(b []byte) (string, []byte, bool) {
	for i, x := range b {
		if x == 0 {
			return string(b[:i]), b[i+1:], true
		}
	}
	return "", nil, false
}

// startup runs the startup phase: SSL/GSS negotiation, CancelRequest,
// StartupMessage, the connection limit, authentication and session
// creation. It reports whether the connection goes on to the message loop.
func (c *conn) startup() bool {
	raw := c.nc()
	raw.SetDeadline(time.Now().Add(c.srv.cfg.StartupTimeout))
	var sm *pgproto3.StartupMessage
	tlsDone := false
	for sm == nil {
		msg, err := readStartup(c.nc())
		if err != nil {
			if pe, ok := err.(*pgerror.Error); ok {
				c.fatal(pe)
			}
			return false
		}
		switch m := msg.(type) {
		case *pgproto3.SSLRequest:
			if tlsDone {
				c.fatal(pgerror.New(pgerror.ProtocolViolation, "SSLRequest after TLS was established"))
				return false
			}
			if c.srv.cfg.TLSConfig == nil {
				if _, err := raw.Write([]byte{'N'}); err != nil {
					return false
				}
				continue
			}
			if _, err := raw.Write([]byte{'S'}); err != nil {
				return false
			}
			// Nothing was read past the SSLRequest, so the TLS layer
			// sees the client's first handshake byte.
			tc := tls.Server(raw, c.srv.cfg.TLSConfig)
			if err := tc.Handshake(); err != nil {
				c.log.Debug("wire: TLS handshake failed", "err", err)
				return false
			}
			c.mu.Lock()
			c.mu.netConn = tc
			c.mu.Unlock()
			tlsDone = true
		case *pgproto3.GSSEncRequest:
			if _, err := raw.Write([]byte{'N'}); err != nil {
				return false
			}
		case *pgproto3.CancelRequest:
			c.srv.cancel(m.ProcessID, m.SecretKey)
			return false
		case *pgproto3.StartupMessage:
			sm = m
		}
	}
	c.rd = bufio.NewReaderSize(c.nc(), 16<<10)
	if c.srv.cfg.RequireTLS && !tlsDone {
		// PostgreSQL's answer when only hostssl lines match.
		c.srv.log.Warn("wire: login refused", "user", sm.Parameters["user"], "remote", raw.RemoteAddr().String(), "method", c.srv.cfg.AuthMethod, "reason", "no TLS")
		e := pgerror.Newf(pgerror.InvalidAuthorizationSpec, "no pg_hba.conf entry for host %q, user %q, database %q, no encryption", remoteHost(raw.RemoteAddr()), sm.Parameters["user"], sm.Parameters["database"])
		e.Hint = "The server requires TLS: connect with sslmode=require."
		c.fatal(e)
		return false
	}
	if minor := sm.ProtocolVersion & 0xffff; minor > 0 {
		var unknown []string
		for k := range sm.Parameters {
			if strings.HasPrefix(k, "_pq_.") {
				unknown = append(unknown, k)
			}
		}
		c.send(&pgproto3.NegotiateProtocolVersion{NewestMinorProtocol: 0, UnrecognizedOptions: unknown})
	}
	params := sm.Parameters
	if params["user"] == "" {
		c.fatal(pgerror.New(pgerror.InvalidAuthorizationSpec, "no PostgreSQL user name specified in startup packet"))
		return false
	}
	if params["database"] == "" {
		params["database"] = params["user"]
	}
	if err := c.authenticate(params["user"]); err != nil {
		c.fatal(err)
		return false
	}
	// Only an authenticated client takes one of the MaxConnections slots:
	// clients that never answer the challenge cannot lock real users out.
	if !c.srv.admit(c) {
		c.fatal(pgerror.New(pgerror.TooManyConnections, "sorry, too many clients already"))
		return false
	}
	err := c.guard("Backend.NewSession", func() error {
		ci := &backend.ConnInfo{PID: c.pid, RemoteAddr: c.nc().RemoteAddr(), LocalAddr: c.nc().LocalAddr(), Start: c.start,
			Cancel: c.cancelQuery, Terminate: c.terminate}
		s, err := c.srv.backend.NewSession(backend.WithConnInfo(c.ctx, ci), params)
		c.sess = s
		return err
	})
	if err == nil && c.sess == nil {
		err = pgerror.New(pgerror.Internal, "backend returned no session")
	}
	if err != nil {
		c.fatal(err)
		return false
	}
	c.startListening() // notify.go
	// The deadline covered startup only; statements have their own.
	c.nc().SetDeadline(time.Time{})
	if c.srv.shutting.Load() {
		c.fatal(errAdminShutdown)
		return false
	}
	c.sendStartupStatus(params)
	c.readyForQuery()
	return !c.closed()
}

// remoteHost is the host part of a client's address.
func remoteHost(a net.Addr) string {
	if host, _, err := net.SplitHostPort(a.String()); err == nil {
		return host
	}
	return a.String()
}

// sendStartupStatus sends AuthenticationOk's followers: the parameters
// clients read at connect time and BackendKeyData.
func (c *conn) sendStartupStatus(params map[string]string) {
	status := [][2]string{
		{"server_version", c.srv.cfg.ServerVersion},
		{"server_encoding", "UTF8"},
		{"client_encoding", "UTF8"},
		{"DateStyle", "ISO, MDY"},
		{"TimeZone", "UTC"},
		{"IntervalStyle", "postgres"},
		{"integer_datetimes", "on"},
		{"standard_conforming_strings", "on"},
		{"is_superuser", "on"},
		{"session_authorization", params["user"]},
		{"application_name", params["application_name"]},
	}
	for _, kv := range status {
		c.send(&pgproto3.ParameterStatus{Name: kv[0], Value: kv[1]})
	}
	c.send(&pgproto3.BackendKeyData{ProcessID: c.pid, SecretKey: c.secret[:]})
}
