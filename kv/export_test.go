package kv

import "testing"

// AddEngineKind adds an engine of another package to the conformance and
// differential suites. open may be called again with the same dir to
// reopen a persistent store. Call it from a TestMain of package kv_test,
// before m.Run.
func AddEngineKind(name string, persistent bool, open func(t testing.TB, dir string) Engine) {
	extraKinds = append(extraKinds, engineKind{name: name, persistent: persistent, open: open})
}
