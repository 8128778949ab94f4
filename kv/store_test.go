package kv

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestOpenStore opens each kind of spec and refuses bad ones with a
// message that says what a spec looks like.
func TestOpenStore(t *testing.T) {
	for _, spec := range []string{"memory:", "pebble:" + filepath.Join(t.TempDir(), "p")} {
		e, err := OpenStore(spec)
		if err != nil {
			t.Fatalf("%s: %v", spec, err)
		}
		must(t, e.Set([]byte("a"), []byte("1")))
		wantGet(t, e, "a", sp("1"))
		must(t, e.Close())
	}
	var opened string
	RegisterStore("test-scheme", func(rest string) (Engine, error) {
		opened = rest
		return NewMemory(), nil
	})
	e, err := OpenStore("test-scheme://h1:1,h2:2/ns")
	if err != nil || opened != "h1:1,h2:2/ns" {
		t.Fatalf("registered scheme: %v, opened %q", err, opened)
	}
	must(t, e.Close())
	for spec, want := range map[string]string{
		"":              "want pebble:DIR, memory: or SCHEME://",
		"/var/data":     "want pebble:DIR, memory: or SCHEME://",
		"pebble:":       "names no directory",
		"nosuch://x":    `no engine for store scheme "nosuch"`,
		"memory:extra":  "want pebble:DIR",
		"://no-scheme":  "want pebble:DIR",
		"test-scheme:/": "want pebble:DIR",
	} {
		if _, err := OpenStore(spec); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("OpenStore(%q) = %v; want an error containing %q", spec, err, want)
		}
	}
}
