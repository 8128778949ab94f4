package kv

import (
	"fmt"
	"sort"
	"strings"
	"sync"
)

// stores maps a store scheme ("tikv", "etcd", ...) to its opener. Engines
// that live in their own packages register here from init, so only a
// binary that imports them can open their stores.
var stores struct {
	sync.Mutex
	open map[string]func(rest string) (Engine, error)
}

// RegisterStore makes OpenStore open "scheme://rest" with open(rest).
// Registering a scheme twice panics (it is a programming error, caught at
// init).
func RegisterStore(scheme string, open func(rest string) (Engine, error)) {
	stores.Lock()
	defer stores.Unlock()
	if stores.open == nil {
		stores.open = map[string]func(string) (Engine, error){}
	}
	if _, dup := stores.open[scheme]; dup {
		panic("kv: store scheme registered twice: " + scheme)
	}
	stores.open[scheme] = open
}

// OpenStore opens the engine a store spec names: "pebble:DIR", "memory:",
// or "SCHEME://REST" for a registered scheme.
func OpenStore(spec string) (Engine, error) {
	switch {
	case spec == "memory:":
		return NewMemory(), nil
	case strings.HasPrefix(spec, "pebble:"):
		dir := strings.TrimPrefix(spec, "pebble:")
		if dir == "" {
			return nil, fmt.Errorf("kv: store %q names no directory: write pebble:DIR", spec)
		}
		return OpenPebble(dir, PebbleOptions{})
	}
	scheme, rest, ok := strings.Cut(spec, "://")
	if !ok {
		return nil, fmt.Errorf("kv: store %q is none of pebble:DIR, memory: and SCHEME://REST", spec)
	}
	stores.Lock()
	open := stores.open[scheme]
	stores.Unlock()
	if open == nil {
		return nil, fmt.Errorf("kv: no store scheme %q in this build (known: %s)", scheme, strings.Join(storeSchemes(), ", "))
	}
	return open(rest)
}

// storeSchemes lists the registered schemes, sorted, with the built-in
// pebble and memory stores.
func storeSchemes() []string {
	stores.Lock()
	defer stores.Unlock()
	names := []string{"memory:", "pebble:"}
	for s := range stores.open {
		names = append(names, s+"://")
	}
	sort.Strings(names)
	return names
}
