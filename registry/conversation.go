package registry

import (
	"time"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/block"
)

// conversation is the lifecycle state of one conversation.
type conversation struct {
	id      convID    // how entries name it
	name    string    // how requests name it, for Snapshot
	last    string    // backend of its latest answer
	lastAt  time.Time // when last was learned
	seen    []string  // backends that served it
	crowded bool      // more backends than seen can hold
	// waiting is the first of the blocks its responses produced that no
	// request has replayed yet (the entries link the rest): they are the
	// blocks it owns.
	waiting slot
	// replayed are the keys of its latest tracked request, in order: the
	// blocks it holds are among them. unknown counts those the registry
	// did not know, or forgot since.
	replayed []block.Key
	unknown  int
	// slots are where the replayed blocks were found, 0 for unknown ones:
	// the next request finds them there without the index (see lookup).
	slots []slot
}

// conversation returns the state of id, creating it when new.
func (r *Registry) conversation(id string) *conversation {
	if c, ok := r.convs.Get(id); ok {
		return c
	}
	c := &conversation{name: id}
	if n := len(r.freeConvs); n > 0 {
		c.id, r.freeConvs = r.freeConvs[n-1], r.freeConvs[:n-1]
		r.convSlots[c.id] = c
	} else {
		c.id = convID(len(r.convSlots))
		r.convSlots = append(r.convSlots, c)
	}
	r.convs.Add(id, c)
	return c
}

// evictConversation runs when a conversation leaves the LRU. Its blocks stay
// (they age out with the block LRU), so a conversation that comes back still
// finds the origins of its history.
func (r *Registry) evictConversation(_ string, c *conversation) {
	for _, k := range c.replayed {
		if at := r.blocks.peek(k); at != 0 && r.blocks.holds(at, c.id) {
			r.blocks.dropHolder(at, c.id)
			if r.blocks.holders(at) == 0 {
				r.confirmed--
			}
		}
	}
	for at := c.waiting; at != 0; {
		next := r.blocks.entries.at(at).waitNext
		r.blocks.unwait(at, &c.waiting)
		r.blocks.entries.at(at).owner = 0
		at = next
	}
	r.convSlots[c.id] = nil
	r.freeConvs = append(r.freeConvs, c.id)
}

// Served records that backend answered conversation conv, for requests
// whose backend was not known before the response named it. It reports
// whether the conversation switched backends, and from which.
func (r *Registry) Served(conv, backend string) (switched bool, previous string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.serve(conv, r.conversation(conv), backend)
}

// serve moves c, named id, to backend, counting a switch.
func (r *Registry) serve(id string, c *conversation, backend string) (switched bool, previous string) {
	now := r.now()
	if c.last != "" && c.last != backend {
		switched, previous = true, c.last
		r.switches++
	}
	c.last, c.lastAt = backend, now
	c.remember(backend)
	r.journal.add(Change{Op: Served, Conversation: id, Backend: backend, At: now})
	return switched, previous
}

// Last returns the backend that last answered conversation conv, or "".
func (r *Registry) Last(conv string) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	if c, ok := r.convs.Peek(conv); ok {
		return c.last
	}
	return ""
}

// servedOtherThan reports whether a backend other than b served c.
func (c *conversation) servedOtherThan(b string) bool {
	if c.crowded {
		return true
	}
	for _, s := range c.seen {
		if s != b {
			return true
		}
	}
	return false
}

// remember adds b to the backends that served c.
func (c *conversation) remember(b string) {
	for _, s := range c.seen {
		if s == b {
			return
		}
	}
	if len(c.seen) == maxSeenBackends {
		c.crowded = true
		return
	}
	c.seen = append(c.seen, b)
}
