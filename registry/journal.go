package registry

import (
	"strconv"
	"time"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/block"
)

// Op says what a Change records.
type Op uint8

// The facts a registry learns.
const (
	// Produced: Backend produced the block Key.
	Produced Op = iota + 1
	// Refused: Backend refused the block Key.
	Refused
	// Served: Backend answered Conversation.
	Served
)

var opNames = [...]string{Produced: "produced", Refused: "refused", Served: "served"}

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
			c := r.conversation(ch.Conversation)
			if ch.At.After(c.lastAt) {
				c.last, c.lastAt = ch.Backend, ch.At
			}
			c.remember(ch.Backend)
		}
	}
}

// Snapshot returns the changes that rebuild what the registry knows of
// origins, refusals and conversations' backends, least recently used first.
// The lifecycle (who holds which block) is not part of it: it is rebuilt as
// conversations go on.
func (r *Registry) Snapshot() []Change {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]Change, 0, r.blocks.len()+r.convs.Len())
	for at := r.blocks.tail; at != 0; at = r.blocks.entries[at].prev {
		e := r.blocks.entries[at]
		born := time.Unix(0, e.born)
		if e.origin != 0 && e.origin != other {
			out = append(out, Change{Op: Produced, Key: e.key, Backend: r.names.of(e.origin), At: born})
		}
		if x := r.blocks.extras[at]; x != nil {
			for _, b := range x.refusedBy {
				if b != other {
					out = append(out, Change{Op: Refused, Key: e.key, Backend: r.names.of(b), At: born})
				}
			}
		}
	}
	for _, id := range r.convs.Keys() {
		c, _ := r.convs.Peek(id)
		for _, b := range c.seen {
			if b != c.last {
				out = append(out, Change{Op: Served, Conversation: id, Backend: b})
			}
		}
		if c.last != "" {
			out = append(out, Change{Op: Served, Conversation: id, Backend: c.last, At: c.lastAt})
		}
	}
	return out
}

// Journaled returns the number of changes waiting for TakeChanges.
func (r *Registry) Journaled() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.journal.changes)
}
