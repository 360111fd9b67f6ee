// Package gctest helps tests of what happens only once Go collected
// something: a buffer nobody gave back to the budget, a body reader nobody
// closed, bytes a closed reader must not keep, the cache that follows Go's
// cycles. Test code only.
package gctest

import (
	"runtime"
	"testing"
	"time"
)

// Until runs Go's collections until done holds, and fails with failure()
// if it does not within 10 s.
func Until(t testing.TB, done func() bool, failure func() string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !done() {
		if time.Now().After(deadline) {
			t.Fatal(failure())
		}
		runtime.GC()
		time.Sleep(time.Millisecond)
	}
}
