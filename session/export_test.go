package session

import "testing"

// SetIndexProgressHook makes every index build call f after each batch
// of rows it reports, until the test ends.
func SetIndexProgressHook(t testing.TB, f func()) {
	testHookIndexProgress.Store(&f)
	t.Cleanup(func() { testHookIndexProgress.Store(nil) })
}
