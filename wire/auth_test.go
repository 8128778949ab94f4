package wire

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"database/sql"
	"log/slog"
	"math/big"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgproto3"
)

func TestAuthMethods(t *testing.T) {
	users := map[string]string{"alice": "secret"}
	for _, method := range []string{"password", "md5", "scram-sha-256"} {
		t.Run(method, func(t *testing.T) {
			_, _, addr := startServer(t, Config{Users: users, AuthMethod: method})
			ctx := context.Background()
			c, err := pgx.Connect(ctx, connString(addr, "alice", ""))
			if err != nil {
				t.Fatal(err)
			}
			var n int64
			if err := c.QueryRow(ctx, "gen 1").Scan(&n); err != nil {
				t.Fatal(err)
			}
			c.Close(ctx)
			for _, bad := range []string{strings.Replace(connString(addr, "alice", ""), "secret", "wrong", 1), connString(addr, "mallory", "")} {
				if _, err := pgx.Connect(ctx, bad); codeOf(err) != "28P01" {
					t.Errorf("bad credentials: got %v, want 28P01", err)
				}
			}
			// lib/pq speaks all three too.
			db, _ := sql.Open("postgres", connString(addr, "alice", ""))
			if err := db.QueryRow("gen 1").Scan(&n); err != nil {
				t.Errorf("lib/pq: %v", err)
			}
			db.Close()
		})
	}
}

func TestNewServerRefusesTrustOnNetwork(t *testing.T) {
	for _, addr := range []string{":5433", "0.0.0.0:5433", "10.1.2.3:5433"} {
		if _, err := NewServer(Config{Addr: addr}, &fakeBackend{}); err == nil || !strings.Contains(err.Error(), "trust") {
			t.Errorf("%s: got %v, want a refusal naming trust", addr, err)
		}
	}
	if _, err := NewServer(Config{Addr: ":5433", Users: map[string]string{"a": "b"}}, &fakeBackend{}); err != nil {
		t.Errorf("scram on all interfaces: %v", err)
	}
	if _, err := NewServer(Config{AuthMethod: "md5"}, &fakeBackend{}); err == nil {
		t.Error("md5 without users accepted")
	}
}

func selfSignedTLS(t *testing.T) *tls.Config {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1),
		Subject:      pkix.Name{CommonName: "127.0.0.1"},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(time.Hour),
		DNSNames:     []string{"localhost"},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	return &tls.Config{Certificates: []tls.Certificate{{Certificate: [][]byte{der}, PrivateKey: key}}}
}

func TestTLS(t *testing.T) {
	_, _, addr := startServer(t, Config{TLSConfig: selfSignedTLS(t), RequireTLS: true, Users: map[string]string{"alice": "secret"}, AuthMethod: "scram-sha-256"})
	ctx := context.Background()
	cfg, err := pgx.ParseConfig(strings.Replace(connString(addr, "alice", ""), "sslmode=disable", "sslmode=require", 1))
	if err != nil {
		t.Fatal(err)
	}
	c, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	if _, ok := c.PgConn().Conn().(*tls.Conn); !ok {
		t.Errorf("connection is %T, not TLS", c.PgConn().Conn())
	}
	var n int64
	if err := c.QueryRow(ctx, "gen 2").Scan(&n); err != nil {
		t.Fatal(err)
	}
	// Plaintext is refused when TLS is required.
	if _, err := pgx.Connect(ctx, connString(addr, "alice", "")); codeOf(err) != "28000" {
		t.Errorf("plaintext: got %v, want 28000", err)
	}
	// lib/pq with sslmode=require (no verification).
	db, _ := sql.Open("postgres", strings.Replace(connString(addr, "alice", ""), "sslmode=disable", "sslmode=require", 1))
	defer db.Close()
	if err := db.QueryRow("gen 1").Scan(&n); err != nil {
		t.Errorf("lib/pq over TLS: %v", err)
	}
}

func TestEmptyPasswordRefused(t *testing.T) {
	if _, err := NewServer(Config{Addr: "0.0.0.0:5433", Users: map[string]string{"a": ""}}, &fakeBackend{}); err == nil || !strings.Contains(err.Error(), "empty password") {
		t.Errorf("empty configured password: got %v, want a refusal", err)
	}
	// A client's empty password fails even for a user that exists.
	_, _, addr := startServer(t, Config{Users: map[string]string{"alice": "secret"}, AuthMethod: "password"})
	ctx := context.Background()
	if _, err := pgx.Connect(ctx, strings.Replace(connString(addr, "alice", ""), ":secret@", ":@", 1)); codeOf(err) != "28P01" {
		t.Errorf("empty password at login: got %v, want 28P01", err)
	}
}

// TestFailedLoginLogged checks the one log line a failed login leaves.
func TestFailedLoginLogged(t *testing.T) {
	var buf syncBuffer
	logger := slog.New(slog.NewTextHandler(&buf, nil))
	_, _, addr := startServer(t, Config{Users: map[string]string{"alice": "secret"}, Logger: logger})
	if _, err := pgx.Connect(context.Background(), connString(addr, "mallory", "")); codeOf(err) != "28P01" {
		t.Fatalf("got %v, want 28P01", err)
	}
	deadline := time.Now().Add(2 * time.Second)
	for !strings.Contains(buf.String(), "authentication failed") && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	line := buf.String()
	for _, want := range []string{"authentication failed", "user=mallory", "remote=127.0.0.1:", "method=scram-sha-256"} {
		if !strings.Contains(line, want) {
			t.Errorf("log %q lacks %q", line, want)
		}
	}
}

// TestSilentClientsDoNotLockOut opens more connections than
// MaxConnections that send a StartupMessage and never answer the password
// challenge: a real client still gets in, and only past
// MaxStartupConnections are new connections refused (53300).
func TestSilentClientsDoNotLockOut(t *testing.T) {
	users := map[string]string{"alice": "secret"}
	_, _, addr := startServer(t, Config{Users: users, MaxConnections: 2, MaxStartupConnections: 8})
	var silent []net.Conn
	defer func() {
		for _, c := range silent {
			c.Close()
		}
	}()
	for range 6 {
		nc, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		silent = append(silent, nc)
		fe := pgproto3.NewFrontend(nc, nc)
		fe.Send(&pgproto3.StartupMessage{ProtocolVersion: pgproto3.ProtocolVersionNumber, Parameters: map[string]string{"user": "alice"}})
		if err := fe.Flush(); err != nil {
			t.Fatal(err)
		}
		if _, err := fe.Receive(); err != nil { // the SASL challenge, never answered
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c, err := pgx.Connect(ctx, connString(addr, "alice", ""))
	if err != nil {
		t.Fatalf("real client locked out by 6 silent ones: %v", err)
	}
	defer c.Close(ctx)
	// Two more silent ones fill MaxStartupConnections (the real client's
	// slot was freed when it authenticated); the next is refused at once.
	for range 2 {
		nc, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		silent = append(silent, nc)
	}
	time.Sleep(50 * time.Millisecond)
	if _, err := pgx.Connect(ctx, connString(addr, "alice", "")); codeOf(err) != "53300" {
		t.Errorf("past MaxStartupConnections: got %v, want 53300", err)
	}
}

// syncBuffer is a bytes.Buffer safe for a logger and a test to share.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
