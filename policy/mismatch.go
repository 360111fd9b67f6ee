package policy

import (
	"sync"

	"github.com/hashicorp/golang-lru/v2/simplelru"
)

// maxMismatches bounds the conversations whose model mismatch is
// remembered as reported.
const maxMismatches = 4096

// Mismatches remembers the conversations in which a backend answered under
// another model name than the one asked for. Claude Code replays thinking
// only from messages recorded under the model it asks for, so such a
// backend loses its own reasoning on every turn; the first mismatch of a
// conversation is worth a log line, the next ones are not. It is safe for
// concurrent use.
type Mismatches struct {
	mu   sync.Mutex
	seen *simplelru.LRU[string, struct{}]
}

// NewMismatches returns an empty set.
func NewMismatches() *Mismatches {
	seen, _ := simplelru.NewLRU[string, struct{}](maxMismatches, nil) // fails only for a size < 1
	return &Mismatches{seen: seen}
}

// First reports whether a response of conversation conv that answered
// under model answered, to a request for model requested, is the
// conversation's first mismatch. Either name unknown ("") is no mismatch.
func (m *Mismatches) First(conv, requested, answered string) bool {
	if m == nil || requested == "" || answered == "" || requested == answered {
		return false
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.seen.Contains(conv) {
		return false
	}
	m.seen.Add(conv, struct{}{})
	return true
}
