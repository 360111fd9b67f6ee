package budget

import (
	"math"
	"runtime/debug"
)

// Budget sizes.
const (
	// DefaultLimit is the budget when none is set and GOMEMLIMIT is not
	// lower than twice it.
	DefaultLimit = 256 << 20
	// MinLimit is the smallest budget that may be set.
	MinLimit = 1 << 20
)

// Default returns the budget when none is set: DefaultLimit, or half of
// the Go runtime's memory limit when that is lower. Caddy sets the limit
// (GOMEMLIMIT) from a container's memory limit, on a large host too: the
// budget follows a small container down, never a large one up, or a
// handful of clients could again take gigabytes.
func Default() int64 {
	if limit := debug.SetMemoryLimit(-1); limit < math.MaxInt64 {
		return min(max(limit/2, MinLimit), DefaultLimit)
	}
	return DefaultLimit
}
