package fuzz

import "strings"

// knownUnsupported lists what kvsql refuses on purpose or has not built
// yet, each matched by its SQLSTATE and a piece of its message. A kvsql
// error matching an entry, where PostgreSQL succeeded, is counted apart
// and is no finding. Keep it short: every entry is a gap a user can hit.
var knownUnsupported = []struct {
	code, contains, why string
}{}

// unsupported returns the known-unsupported entry kvsql's failure r
// matches, or "".
func unsupported(r result) string {
	for _, u := range knownUnsupported {
		if r.code == u.code && strings.Contains(r.msg, u.contains) {
			return u.why
		}
	}
	return ""
}

// knownIssues are engine bugs the fuzzer found and that are not fixed
// yet. With Config.AvoidKnown the generator leaves out the constructs
// that hit them, so that a run (CI's, the package's test) reports what is
// new; without it, they are found again. Remove an entry, and its
// avoidance in gen.go, with the fix.
var knownIssues = []struct{ name, repro string }{}
