package wire

import (
	"crypto/md5"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"fmt"

	"github.com/jackc/pgx/v5/pgproto3"
	"github.com/kvsql/kvsql/pgerror"
)

// authenticator checks a user's credentials during startup. The methods
// are PostgreSQL's pg_hba.conf methods of the same names.
type authenticator interface {
	// authenticate runs the method's message exchange on c; a nil error
	// means the user is in. It does not send AuthenticationOk.
	authenticate(c *conn, user string) error
}

var (
	_ authenticator = trustAuth{}
	_ authenticator = passwordAuth{}
	_ authenticator = md5Auth{}
	_ authenticator = (*scramAuth)(nil)
)

// newAuthenticator returns the authenticator for method.
func newAuthenticator(method string, users map[string]string) (authenticator, error) {
	if method != "trust" && len(users) == 0 {
		return nil, fmt.Errorf("wire: auth method %q needs Config.Users", method)
	}
	for u, p := range users {
		if p == "" {
			return nil, fmt.Errorf("wire: user %q has an empty password", u)
		}
	}
	switch method {
	case "trust":
		return trustAuth{}, nil
	case "password":
		return passwordAuth{users}, nil
	case "md5":
		return md5Auth{users}, nil
	case "scram-sha-256":
		return newScramAuth(users)
	}
	return nil, fmt.Errorf("wire: unknown auth method %q (want trust, password, md5 or scram-sha-256)", method)
}

// authenticate runs the configured method and sends AuthenticationOk. A
// failure is logged in one line (user, address, method), as PostgreSQL
// logs "password authentication failed for user".
func (c *conn) authenticate(user string) error {
	if err := c.srv.auth.authenticate(c, user); err != nil {
		c.srv.log.Warn("wire: authentication failed", "user", user, "remote", c.nc().RemoteAddr().String(), "method", c.srv.cfg.AuthMethod, "err", err.Error())
		return err
	}
	c.send(&pgproto3.AuthenticationOk{})
	return nil
}

// authFailed is the error for any failed password check; like PostgreSQL
// it does not say whether the user exists.
func authFailed(user string) error {
	return pgerror.Newf(pgerror.InvalidPassword, "password authentication failed for user %q", user)
}

// readAuthResponse flushes the pending challenge and reads the client's
// 'p' message body.
func (c *conn) readAuthResponse() ([]byte, error) {
	if err := c.flush(); err != nil {
		return nil, err
	}
	typ, body, err := c.receiveRaw()
	if err != nil {
		return nil, err
	}
	if typ != 'p' {
		return nil, pgerror.Newf(pgerror.ProtocolViolation, "expected password response, got message type %q", typ)
	}
	return body, nil
}

type trustAuth struct{}

func (trustAuth) authenticate(*conn, string) error { return nil }

// passwordAuth is cleartext password authentication (use it only over TLS).
type passwordAuth struct{ users map[string]string }

func (a passwordAuth) authenticate(c *conn, user string) error {
	c.send(&pgproto3.AuthenticationCleartextPassword{})
	body, err := c.readAuthResponse()
	if err != nil {
		return err
	}
	var pm pgproto3.PasswordMessage
	if err := pm.Decode(body); err != nil {
		return pgerror.Newf(pgerror.ProtocolViolation, "invalid password message: %v", err)
	}
	if pm.Password == "" {
		// PostgreSQL refuses an empty password before looking at the user.
		return authFailed(user)
	}
	want, ok := a.users[user]
	if subtle.ConstantTimeCompare([]byte(pm.Password), []byte(want)) != 1 || !ok || want == "" {
		return authFailed(user)
	}
	return nil
}

// md5Auth is PostgreSQL's MD5 challenge: the client sends
// "md5" + hex(md5(hex(md5(password + user)) + salt)).
type md5Auth struct{ users map[string]string }

func (a md5Auth) authenticate(c *conn, user string) error {
	var salt [4]byte
	rand.Read(salt[:])
	c.send(&pgproto3.AuthenticationMD5Password{Salt: salt})
	body, err := c.readAuthResponse()
	if err != nil {
		return err
	}
	var pm pgproto3.PasswordMessage
	if err := pm.Decode(body); err != nil {
		return pgerror.Newf(pgerror.ProtocolViolation, "invalid password message: %v", err)
	}
	want, ok := a.users[user]
	if subtle.ConstantTimeCompare([]byte(pm.Password), []byte(md5Response(user, want, salt))) != 1 || !ok {
		return authFailed(user)
	}
	return nil
}

func md5Response(user, password string, salt [4]byte) string {
	inner := md5.Sum([]byte(password + user))
	outer := md5.Sum(append([]byte(hex.EncodeToString(inner[:])), salt[:]...))
	return "md5" + hex.EncodeToString(outer[:])
}
