package kv

import (
	"fmt"
	"os"
	"sort"
	"strings"
	"sync"
)

// stores maps a store scheme ("etcd", "tikv") to the function that opens
// it. Engines outside this package register themselves from their init
// (RegisterStore), so kv never imports them and a program links only the
// engines it imports.
var stores struct {
	sync.Mutex
	open map[string]func(rest string) (Engine, error)
}

// OpenStore opens the engine a store spec names: "pebble:DIR", "memory:", or "SCHEME://REST" for a registered scheme.
func OpenStore(spec string) (Engine, error) {
	switch {
	case strings.HasPrefix(spec, "pebble:"):
		dir := strings.TrimPrefix(spec, "pebble:")
		if dir == "" {
			return nil, fmt.Errorf("kv: store %q names no directory (pebble:DIR)", spec)
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, fmt.Errorf("kv: %w", err)
		}
		return OpenPebble(dir, PebbleOptions{})
	case spec == "memory:":
		return NewMemory(), nil
	}
	scheme, rest, ok := strings.Cut(spec, "://")
	if !ok || scheme == "" {
		return nil, fmt.Errorf("kv: unknown store %q: want pebble:DIR, memory: or SCHEME://... (registered schemes: %s)", spec, registeredSchemes())
	}
	stores.Lock()
	open := stores.open[scheme]
	stores.Unlock()
	if open == nil {
		return nil, fmt.Errorf("kv: no engine for store scheme %q in this program (registered schemes: %s; the kvsql server links etcd:// when built with -tags etcd and tikv:// with -tags tikv)", scheme, registeredSchemes())
	}
	return open(rest)
}

// RegisterStore makes OpenStore open "scheme://rest" with open(rest).
func RegisterStore(scheme string, open func(rest string) (Engine, error)) {
	stores.Lock()
	defer stores.Unlock()
	if stores.open == nil {
		stores.open = map[string]func(string) (Engine, error){}
	}
	if _, dup := stores.open[scheme]; dup {
		panic("kv: store scheme " + scheme + " registered twice")
	}
	stores.open[scheme] = open
}

// registeredSchemes lists the registered schemes, sorted, for messages.
func registeredSchemes() string {
	stores.Lock()
	defer stores.Unlock()
	var names []string
	for s := range stores.open {
		names = append(names, s+"://")
	}
	if len(names) == 0 {
		return "none"
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}
