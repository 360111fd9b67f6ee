package llmthinking

import (
	"strings"
	"sync"
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
