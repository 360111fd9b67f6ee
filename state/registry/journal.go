package registry

import (
	"strconv"
	"time"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/block"
)

// Op says what a Change records. Storage writes ops as their numbers, so
// the values are stable: an op is never renumbered, and a new one takes the
// next number.
type Op uint8

// The facts a registry learns (stored as 1 to 5).
const (
	// Produced: Backend produced the block Key.
	Produced Op = iota + 1
	// Refused: Backend refused the block Key.
	Refused
	// Served: Backend answered Conversation.
	Served
	// Learned: Facts are what Model takes as Backend serves it (see
	// Capability).
	Learned
	// Forgot: what was learned of Model as Backend serves it, or of every
	// model of Backend when Model is "", was forgotten.
	Forgot
)

var opNames = [...]string{Produced: "produced", Refused: "refused", Served: "served", Learned: "learned", Forgot: "forgot"}

// String returns the op's name, as storage writes it.
func (o Op) String() string {
	if int(o) < len(opNames) && opNames[o] != "" {
		return opNames[o]
	}
	return "Op(" + strconv.Itoa(int(o)) + ")"
}

// Change is one fact a registry learned, in a form another registry can
// apply: after a restart, or on a replica sharing the same storage.
type Change struct {
	Op           Op
	Key          block.Key // for Produced and Refused
	Conversation string    // for Served
	Backend      string
	Model        string     // for Learned and Forgot
	Facts        Capability // for Learned
	At           time.Time
}

// maxJournal bounds the changes kept for TakeChanges: when nobody takes
// them (storage is down), the oldest go first.
const maxJournal = 1 << 16

// journal collects the changes a registry learns by itself, once Record
// turned it on. Changes applied from elsewhere are not journaled again.
type journal struct {
	on      bool
	changes []Change
	dropped uint64
}

func (j *journal) add(c Change) {
	if !j.on {
		return
	}
	if len(j.changes) == maxJournal {
		n := copy(j.changes, j.changes[maxJournal/4:])
		j.changes = j.changes[:n]
		j.dropped += maxJournal / 4
	}
	j.changes = append(j.changes, c)
}

// Record turns the journal on: from now on, what the registry learns by
// itself is kept for TakeChanges.
func (r *Registry) Record() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.journal.on = true
}

// TakeChanges appends the journaled changes to dst, oldest first, and
// empties the journal. dropped counts the changes lost since the last call
// because nobody took them in time.
func (r *Registry) TakeChanges(dst []Change) (changes []Change, dropped uint64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	dst = append(dst, r.journal.changes...)
	clear(r.journal.changes)
	r.journal.changes = r.journal.changes[:0]
	dropped, r.journal.dropped = r.journal.dropped, 0
	return dst, dropped
}

// Apply merges changes learned elsewhere, in order. A conversation's
// latest backend is the one of its most recent Served change.
func (r *Registry) Apply(changes []Change) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, ch := range changes {
		switch ch.Op {
		case Produced:
			r.produced(nil, ch.Backend, ch.Key, r.now())
		case Refused:
			r.refuse(ch.Backend, ch.Key)
		case Served:
			s := r.scope(ch.Conversation)
			if ch.At.After(s.lastAt) {
				s.last, s.lastAt = ch.Backend, ch.At
			}
			s.remember(ch.Backend)
		case Learned:
			if ch.Backend != "" && ch.Model != "" && ch.Facts != 0 {
				r.capabilities.Add(capabilityKey{ch.Backend, ch.Model}, &learned{facts: ch.Facts, at: ch.At})
			}
		case Forgot:
			r.forget(ch.Backend, ch.Model)
		}
	}
}

// Journaled returns the number of changes waiting for TakeChanges.
func (r *Registry) Journaled() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.journal.changes)
}
