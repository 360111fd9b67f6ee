package llmthinking

import (
	"math"
	"runtime/debug"
	"sync"
)

// Memory budget sizes.
const (
	// DefaultMemoryBudget is the budget when no handler sets one and
	// GOMEMLIMIT is not lower than twice it.
	DefaultMemoryBudget = 256 << 20
	// minMemoryBudget is the smallest budget a handler may set.
	minMemoryBudget = 1 << 20
)

// processMemory is the memory budget every handler of the process shares.
// It lives at package level, like the registries, so that it outlives
// config reloads: what the requests of an old config still hold counts
// against the new one's room.
var processMemory = newMemoryBudget(defaultMemoryBudget())

// budgetVotes sets processMemory's limit from the handlers provisioned.
var budgetVotes = &memoryVotes{budget: processMemory, votes: make(map[*Handler]int64)}

// defaultMemoryBudget returns the budget when no handler sets one:
// DefaultMemoryBudget, or half of the Go runtime's memory limit when that
// is lower. Caddy sets the limit (GOMEMLIMIT) from a container's memory
// limit, on a large host too: the budget follows a small container down,
// never a large one up, or a handful of clients could again take
// gigabytes.
func defaultMemoryBudget() int64 {
	if limit := debug.SetMemoryLimit(-1); limit < math.MaxInt64 {
		return min(max(limit/2, minMemoryBudget), DefaultMemoryBudget)
	}
	return DefaultMemoryBudget
}

// memoryVotes decides the budget of the process from the memory_budget of
// every handler provisioned and not cleaned up: the largest wins, and with
// none set the default applies. On a reload the new handlers are
// provisioned before the old ones are cleaned up, so for a moment both
// configs have a say; once the old one is gone, only the running config
// decides.
type memoryVotes struct {
	mu     sync.Mutex
	budget *memoryBudget
	votes  map[*Handler]int64
}

// cast records h's memory_budget (0 for none) and applies the outcome.
func (v *memoryVotes) cast(h *Handler, size int64) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if size > 0 {
		v.votes[h] = size
	} else {
		delete(v.votes, h)
	}
	v.apply()
}

// withdraw forgets h's say, when it is cleaned up, and applies the outcome.
func (v *memoryVotes) withdraw(h *Handler) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if _, ok := v.votes[h]; ok {
		delete(v.votes, h)
		v.apply()
	}
}

// apply sets the budget's limit to the largest vote, or the default.
func (v *memoryVotes) apply() {
	limit := int64(0)
	for _, size := range v.votes {
		limit = max(limit, size)
	}
	if limit == 0 {
		limit = defaultMemoryBudget()
	}
	v.budget.setLimit(limit)
}
