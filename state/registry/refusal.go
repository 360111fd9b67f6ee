package registry

import (
	"slices"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/block"
)

// Refuse records that backend refused the blocks with the given keys (an
// invalid signature, say), so that they are never offered to it again. A
// block the registry did not know is remembered with an unknown origin.
func (r *Registry) Refuse(backend string, keys ...block.Key) {
	r.mu.Lock()
	defer r.mu.Unlock()
	now := r.now()
	for _, k := range keys {
		if r.refuse(backend, k) {
			r.refusals++
			r.journal.add(Change{Op: Refused, Key: k, Backend: backend, At: now})
		}
	}
}

// refuse adds backend to the refusers of k, reporting whether it is new.
func (r *Registry) refuse(backend string, k block.Key) bool {
	at := r.blocks.get(k)
	if at == 0 {
		at = r.newEntry(k)
		r.blocks.entries.at(at).born = r.now().UnixNano()
	}
	b := r.names.id(backend)
	if r.refusedBy(at, b) {
		return false
	}
	x := r.blocks.extra(at)
	if len(x.refusedBy) == maxSeenBackends {
		x.refusedBy = x.refusedBy[1:]
	}
	x.refusedBy = append(x.refusedBy, b)
	return true
}

// refusedBy reports whether backend b refused the block at.
func (r *Registry) refusedBy(at slot, b name) bool {
	x := r.blocks.extras[at]
	return x != nil && slices.Contains(x.refusedBy, b)
}
