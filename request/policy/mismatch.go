package policy

import (
	"sync"

	"github.com/hashicorp/golang-lru/v2/simplelru"
)

// maxMismatches bounds the conversations whose model mismatch is
// remembered as reported.
const maxMismatches = 4096

// maxMismatchPairs bounds the backends and model pairs whose mismatch is
// remembered as reported.
const maxMismatchPairs = 256

// Mismatches remembers the conversations in which a backend answered under
// another model name than the one asked for, and the backends and model
// pairs it happened with. Claude Code replays thinking only from messages
// recorded under the model it asks for, so such a backend loses its own
// reasoning on every turn: a backend's first mismatch for a pair of names
// is a configuration to fix, worth a warning once; a conversation's first
// is worth a debug line; the next ones are worth nothing. It is safe for
// concurrent use.
type Mismatches struct {
	mu    sync.Mutex
	seen  *simplelru.LRU[string, struct{}]
	pairs *simplelru.LRU[[3]string, struct{}]
}

// NewMismatches returns an empty set.
func NewMismatches() *Mismatches {
	seen, _ := simplelru.NewLRU[string, struct{}](maxMismatches, nil) // fails only for a size < 1
	pairs, _ := simplelru.NewLRU[[3]string, struct{}](maxMismatchPairs, nil)
	return &Mismatches{seen: seen, pairs: pairs}
}

// First reports whether a response of conversation conv, from backend,
// that answered under model answered, to a request for model requested, is
// the conversation's first mismatch, and whether it is the backend's first
// for that pair of names. Either name unknown ("") is no mismatch.
func (m *Mismatches) First(conv, backend, requested, answered string) (conversation, pair bool) {
	if m == nil || requested == "" || answered == "" || requested == answered {
		return false, false
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if !m.seen.Contains(conv) {
		m.seen.Add(conv, struct{}{})
		conversation = true
	}
	if k := [3]string{backend, requested, answered}; !m.pairs.Contains(k) {
		m.pairs.Add(k, struct{}{})
		pair = true
	}
	return conversation, pair
}
