package metrics

import (
	"strings"
	"sync"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/adminapi"
)

// Label values that are not backend names.
const (
	// labelUnknown stands for a backend not known when the blocks were
	// decided: no backend set, and no answer yet in the conversation.
	labelUnknown = "unknown"
	// labelOther gathers every backend beyond the bound.
	labelOther = "other"
)

// boundedLabels keeps a metric label's cardinality bounded: the first max
// distinct names the process sees are label values of their own, every
// later one is counted as labelOther, for the rest of the process's life,
// so that a series never changes meaning. A backend that is really called
// "unknown" or "other" shares its series with those.
type boundedLabels struct {
	max  int
	seen sync.Map // name -> struct{}, read without the lock

	mu sync.Mutex // serialises admissions
	n  int
}

// newBoundedLabels returns bounds of max names.
func newBoundedLabels(max int) *boundedLabels { return &boundedLabels{max: max} }

// value returns the label value that counts name.
func (b *boundedLabels) value(name string) string {
	if name == "" {
		return labelUnknown
	}
	if _, ok := b.seen.Load(name); ok {
		return name
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if _, ok := b.seen.Load(name); ok {
		return name
	}
	if b.n >= b.max {
		return labelOther
	}
	// The name may share memory with a request: the label outlives it.
	name = strings.Clone(name)
	b.seen.Store(name, struct{}{})
	b.n++
	return name
}

// backendTally is what each backend used and how often a request went on
// from it, for the admin endpoint's statistics (see adminapi.BackendStats):
// what the Prometheus counters count, by backend alone. Its backends are
// label values (see boundedLabels), so it is bounded as they are.
type backendTally struct {
	mu sync.Mutex
	m  map[string]*adminapi.BackendStats
}

// add changes backend's statistics with f.
func (t *backendTally) add(backend string, f func(*adminapi.BackendStats)) {
	t.mu.Lock()
	defer t.mu.Unlock()
	s, ok := t.m[backend]
	if !ok {
		s = new(adminapi.BackendStats)
		t.m[backend] = s
	}
	f(s)
}

// stats returns a copy of every backend's statistics.
func (t *backendTally) stats() map[string]adminapi.BackendStats {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := make(map[string]adminapi.BackendStats, len(t.m))
	for b, s := range t.m {
		out[b] = *s
	}
	return out
}
