package session

import "testing"

// SetProgressHook makes every index build, VACUUM, table rewrite and
// ANALYZE call f after each progress report, until the test ends.
func SetProgressHook(t testing.TB, f func()) {
	testHookProgress.Store(&f)
	t.Cleanup(func() { testHookProgress.Store(nil) })
}
