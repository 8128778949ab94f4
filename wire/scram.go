package wire

import (
	"crypto/hmac"
	"crypto/pbkdf2"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5/pgproto3"
	"github.com/kvsql/kvsql/pgerror"
)

// SCRAM-SHA-256 (RFC 5802, RFC 7677) as PostgreSQL runs it, without
// channel binding:
//
//	server → AuthenticationSASL            ["SCRAM-SHA-256"]
//	client → SASLInitialResponse           "n,,n=,r=<cnonce>"
//	server → AuthenticationSASLContinue    "r=<cnonce+snonce>,s=<salt>,i=<iter>"
//	client → SASLResponse                  "c=biws,r=<nonce>,p=<proof>"
//	server → AuthenticationSASLFinal       "v=<server signature>"
//
// The server keeps only StoredKey and ServerKey per user, derived once at
// NewServer time from the configured password.
const (
	scramMechanism  = "SCRAM-SHA-256"
	scramIterations = 4096
)

// scramSecret is PostgreSQL's stored SCRAM verifier.
type scramSecret struct {
	salt      []byte
	storedKey []byte
	serverKey []byte
}

type scramAuth struct {
	users map[string]scramSecret
	// mock answers for unknown users, so that the exchange looks the
	// same whether or not the user exists.
	mock scramSecret
}

func newScramAuth(users map[string]string) (*scramAuth, error) {
	a := &scramAuth{users: make(map[string]scramSecret, len(users))}
	for u, p := range users {
		s, err := deriveScram(p)
		if err != nil {
			return nil, err
		}
		a.users[u] = s
	}
	var junk [16]byte
	rand.Read(junk[:])
	mock, err := deriveScram(base64.StdEncoding.EncodeToString(junk[:]))
	if err != nil {
		return nil, err
	}
	a.mock = mock
	return a, nil
}

func deriveScram(password string) (scramSecret, error) {
	salt := make([]byte, 16)
	rand.Read(salt)
	salted, err := pbkdf2.Key(sha256.New, password, salt, scramIterations, sha256.Size)
	if err != nil {
		return scramSecret{}, err
	}
	clientKey := hmacSHA256(salted, "Client Key")
	stored := sha256.Sum256(clientKey)
	return scramSecret{salt: salt, storedKey: stored[:], serverKey: hmacSHA256(salted, "Server Key")}, nil
}

func hmacSHA256(key []byte, msg string) []byte {
	h := hmac.New(sha256.New, key)
	h.Write([]byte(msg))
	return h.Sum(nil)
}

func scramMalformed(why string) error {
	return pgerror.Newf(pgerror.ProtocolViolation, "malformed SCRAM message: %s", why)
}

func (a *scramAuth) authenticate(c *conn, user string) error {
	secret, known := a.users[user]
	if !known {
		secret = a.mock
	}
	c.send(&pgproto3.AuthenticationSASL{AuthMechanisms: []string{scramMechanism}})
	body, err := c.readAuthResponse()
	if err != nil {
		return err
	}
	var first pgproto3.SASLInitialResponse
	if err := first.Decode(body); err != nil {
		return scramMalformed(err.Error())
	}
	if first.AuthMechanism != scramMechanism {
		return pgerror.Newf(pgerror.ProtocolViolation, "client selected an invalid SASL authentication mechanism %q", first.AuthMechanism)
	}
	clientFirst := string(first.Data)
	// gs2 header: "n,," (no channel binding) or "y,," (client could but
	// thinks we cannot); "p=" asks for binding we do not offer.
	var bare string
	switch {
	case strings.HasPrefix(clientFirst, "n,,"), strings.HasPrefix(clientFirst, "y,,"):
		bare = clientFirst[3:]
	case strings.HasPrefix(clientFirst, "p="):
		return pgerror.New(pgerror.ProtocolViolation, "channel binding is not supported")
	default:
		return scramMalformed("unexpected GS2 header")
	}
	gs2 := clientFirst[:3]
	attrs := scramAttrs(bare)
	cnonce := attrs["r"]
	if cnonce == "" {
		return scramMalformed("missing client nonce")
	}
	var sn [18]byte
	rand.Read(sn[:])
	nonce := cnonce + base64.StdEncoding.EncodeToString(sn[:])
	serverFirst := "r=" + nonce + ",s=" + base64.StdEncoding.EncodeToString(secret.salt) + ",i=" + strconv.Itoa(scramIterations)
	c.send(&pgproto3.AuthenticationSASLContinue{Data: []byte(serverFirst)})

	body, err = c.readAuthResponse()
	if err != nil {
		return err
	}
	var final pgproto3.SASLResponse
	if err := final.Decode(body); err != nil {
		return scramMalformed(err.Error())
	}
	clientFinal := string(final.Data)
	withoutProof, proofB64, ok := strings.Cut(clientFinal, ",p=")
	if !ok {
		return scramMalformed("missing proof")
	}
	fattrs := scramAttrs(withoutProof)
	if fattrs["c"] != base64.StdEncoding.EncodeToString([]byte(gs2)) {
		return scramMalformed("unexpected channel binding")
	}
	if fattrs["r"] != nonce {
		return scramMalformed("nonce mismatch")
	}
	proof, err := base64.StdEncoding.DecodeString(proofB64)
	if err != nil || len(proof) != sha256.Size {
		return scramMalformed("bad proof")
	}
	authMessage := bare + "," + serverFirst + "," + withoutProof
	sig := hmacSHA256(secret.storedKey, authMessage)
	clientKey := make([]byte, sha256.Size)
	for i := range clientKey {
		clientKey[i] = proof[i] ^ sig[i]
	}
	got := sha256.Sum256(clientKey)
	if subtle.ConstantTimeCompare(got[:], secret.storedKey) != 1 || !known {
		return authFailed(user)
	}
	serverSig := hmacSHA256(secret.serverKey, authMessage)
	c.send(&pgproto3.AuthenticationSASLFinal{Data: []byte("v=" + base64.StdEncoding.EncodeToString(serverSig))})
	return nil
}

// scramAttrs splits "a=1,b=2" into a map; later keys win.
func scramAttrs(s string) map[string]string {
	m := make(map[string]string)
	for _, part := range strings.Split(s, ",") {
		if k, v, ok := strings.Cut(part, "="); ok {
			m[k] = v
		}
	}
	return m
}
