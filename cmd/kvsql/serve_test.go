package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestLoadUsers(t *testing.T) {
	file := filepath.Join(t.TempDir(), "users")
	if err := os.WriteFile(file, []byte("# operators\ncarol:c0l0n:inside\n\n  dave:pw  \n"), 0o600); err != nil {
		t.Fatal(err)
	}
	got, err := loadUsers("alice:a", file, "bob:b")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"alice": "a", "bob": "b", "carol": "c0l0n:inside", "dave": "pw"}
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for u, p := range want {
		if got[u] != p {
			t.Errorf("%s: got %q, want %q", u, got[u], p)
		}
	}
	if u, err := loadUsers("", "", ""); err != nil || u != nil {
		t.Errorf("no users: got %v, %v; want trust (nil)", u, err)
	}
	bad := filepath.Join(t.TempDir(), "bad")
	os.WriteFile(bad, []byte("eve:\n"), 0o600)
	for _, c := range []struct{ flag, file, env, want string }{
		{"a:", "", "", `--users: user "a" has an empty password`},
		{"", "", "a:", `KVSQL_USERS: user "a" has an empty password`},
		{"", bad, "", bad + `:1: user "eve" has an empty password`},
		{"a:x", "", "a:y", `user "a" is given twice`},
		{":secret", "", "", "want user:password pairs"},
	} {
		_, err := loadUsers(c.flag, c.file, c.env)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: got %v, want %q", c, err, c.want)
		} else if strings.Contains(err.Error(), "secret") {
			t.Errorf("%+v: error %q shows the password", c, err)
		}
	}
	// serve refuses before opening anything.
	if err := runServe([]string{"--memory", "--listen", "0.0.0.0:5599", "--users", "a:"}); err == nil || !strings.Contains(err.Error(), "empty password") {
		t.Errorf("serve --users a: got %v", err)
	}
	if err := runServe([]string{"--memory", "--listen", "127.0.0.1:5599", "--require-tls"}); err == nil || !strings.Contains(err.Error(), "--require-tls needs") {
		t.Errorf("serve --require-tls without a certificate: got %v", err)
	}
	// --trace opens its file before the store: a path that cannot be
	// created fails at once.
	noDir := filepath.Join(t.TempDir(), "missing", "trace.out")
	if err := runServe([]string{"--memory", "--listen", "127.0.0.1:0", "--trace", noDir}); err == nil || !strings.Contains(err.Error(), "missing") {
		t.Errorf("serve --trace into a missing directory: got %v", err)
	}
}
