package registry

import (
	"slices"
	"time"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/block"
)

// Observe records that backend produced the block with key k in a response
// to a request of thread th (0 when it is in none), which is then expected to
// replay it.
func (r *Registry) Observe(th ThreadID, backend string, k block.Key) {
	r.mu.Lock()
	defer r.mu.Unlock()
	now := r.now()
	var t *thread
	if th != 0 {
		t, _ = r.threads.Peek(th)
	}
	r.produced(t, backend, k, now)
	r.journal.add(Change{Op: Produced, Key: k, Backend: backend, At: now})
}

// produced records backend as the producer of k, now; c, when not nil, is
// the thread waiting to replay it.
func (r *Registry) produced(c *thread, backend string, k block.Key, now time.Time) {
	at := r.blocks.get(k)
	fresh := at == 0
	if fresh {
		at = r.newEntry(k)
	}
	e := r.blocks.entries.at(at)
	e.origin = r.names.id(backend)
	if fresh || c != nil && r.blocks.holders(at) == 0 {
		e.born = now.UnixNano()
	}
	if c != nil && r.blocks.holders(at) == 0 {
		r.setOwner(at, c)
	}
}

// newEntry makes room and adds an empty entry for k.
func (r *Registry) newEntry(k block.Key) slot {
	for r.blocks.full() {
		r.evict(r.blocks.tail)
	}
	return r.blocks.add(k)
}

// Request describes one request on its way to a backend.
type Request struct {
	// Conversation names the request's scope, whose backends are tracked;
	// "" is the shared global scope.
	Conversation string
	// Thread is the thread within that scope whose history the request
	// continues: the blocks it replays are held by that thread, once it has
	// started (see StartThread). 0 tracks no lifecycle.
	Thread ThreadID
	// Backend is the backend the request goes to, as far as it is known
	// ("" when not at all): origins are looked up, and refusals reported,
	// for it.
	Backend string
	// ServedLater means that the response will name the backend that
	// answered (see Served): Admit leaves the conversation's backend alone.
	ServedLater bool
	// Keys are the keys of every thinking and redacted_thinking block the
	// client sent, before any of them is removed.
	Keys []block.Key
	// Track applies the lifecycle: confirm the blocks, release what the
	// thread no longer replays, record the backend. Requests that only read
	// (token counting, side requests without thinking) leave it false.
	Track bool
	// Origins and Refused, when large enough, are reused for the
	// Admission's.
	Origins []string
	Refused []bool
}

// Admission is what the registry knows of a request's blocks.
type Admission struct {
	// Origins holds, per key, the backend that produced the block, or ""
	// when the registry does not know it.
	Origins []string
	// Refused reports, per key, that the request's backend refused the
	// block before.
	Refused []bool
	// Mixed reports that the scope was served by a backend other than the
	// request's before this request.
	Mixed bool
	// Switched reports that this request moves the scope to a new backend;
	// Previous names the one it leaves.
	Switched bool
	Previous string
}

// Admit looks up the origin of every block of req and, when req.Track is
// set, advances the lifecycle of its thread and scope.
func (r *Registry) Admit(req Request) Admission {
	r.mu.Lock()
	defer r.mu.Unlock()

	n := len(req.Keys)
	a := Admission{
		Origins: slices.Grow(req.Origins[:0], n)[:n],
		Refused: slices.Grow(req.Refused[:0], n)[:n],
	}
	var s *scope
	var t *thread
	if req.Track {
		s = r.scope(req.Conversation)
		if req.Thread != 0 {
			t, _ = r.threads.Get(req.Thread)
		}
	} else {
		s, _ = r.scopes.Peek(req.Conversation)
		if req.Thread != 0 {
			t, _ = r.threads.Peek(req.Thread)
		}
	}
	slots := r.lookup(t, req.Keys)
	target := r.names.lookup(req.Backend)
	for i, at := range slots {
		a.Origins[i], a.Refused[i] = "", false
		if at != 0 {
			a.Origins[i] = r.names.of(r.blocks.entries.at(at).origin)
			a.Refused[i] = target != 0 && r.refusedBy(at, target)
		}
	}
	if s == nil {
		return a
	}
	a.Mixed = s.servedOtherThan(req.Backend)
	if !req.Track {
		return a
	}
	if t != nil && len(req.Keys) > 0 {
		r.advance(t, req.Keys, slots)
	}
	if req.Backend != "" && !req.ServedLater {
		a.Switched, a.Previous = r.serve(s, req.Backend)
	}
	return a
}

// lookup returns the slot of every key, 0 for a block the registry does
// not know, and makes the known blocks the most recently used. The blocks
// c's latest request replayed are found where c saw them then, without
// the index: a long conversation replays hundreds of blocks on every
// request, and in a large registry each index lookup is a cache miss or
// two. A slot is only trusted while it still holds its key (a removed
// entry is zeroed, a reused one holds another key). The blocks of c's
// latest request that the registry did not know are not looked for again
// either, unless it added them since (or added too many keys to tell):
// history from before the gateway, or forgotten, is unknown on every
// request. The slice is reused by the next call.
func (r *Registry) lookup(c *thread, keys []block.Key) []slot {
	r.slots = slices.Grow(r.slots[:0], len(keys))[:len(keys)]
	var seenKeys []block.Key
	var seenSlots []slot
	if c != nil {
		seenKeys, seenSlots = c.replayed, c.slots
	}
	for i, k := range keys {
		if i < len(seenSlots) {
			if at := seenSlots[i]; at != 0 {
				if r.blocks.entries.at(at).key == k && k != (block.Key{}) {
					r.blocks.touch(at)
					r.slots[i] = at
					continue
				}
			} else if seenKeys[i] == k && r.blocks.stillAbsent(k, c.slotsAt) {
				r.slots[i] = 0
				continue
			}
		}
		r.slots[i] = r.blocks.get(k)
	}
	return r.slots
}

// advance applies one request's blocks to its thread c: blocks it replays
// are confirmed, blocks it held but no longer replays are released, and
// blocks its responses produced that it still has not replayed after the
// orphan TTL are released too. A thread holds only blocks of its latest
// request, so what it held is among c.replayed.
func (r *Registry) advance(c *thread, keys []block.Key, slots []slot) {
	n := len(c.replayed)
	if n > 0 && n <= len(keys) && slices.Equal(c.replayed, keys[:n]) && c.evicted == 0 && (c.zeros == 0 || slices.Equal(c.slots, slots[:n])) {
		// The request replays the last one's history, found where it was
		// then (the blocks it held, none forgotten since, and the ones the
		// registry did not know and still does not), and adds to it, as a
		// thread's next request does: nothing is released, and only what
		// it adds is new. A held block forgotten and learned again may be
		// back in the slot it had, unheld: evicted sends that to the full
		// path.
		r.expireOrphans(c, func(k block.Key) bool { return slices.Contains(keys, k) })
		c.zeros += r.holdAll(c, slots[n:])
		c.replayed = append(c.replayed, keys[n:]...)
		c.slots = append(c.slots[:n], slots[n:]...)
		c.slotsAt = r.blocks.added
		return
	}
	clear(r.present)
	for _, k := range keys {
		r.present[k] = struct{}{}
	}
	for i, k := range c.replayed {
		if _, ok := r.present[k]; !ok {
			if at := r.heldAt(c, i, k); at != 0 && r.blocks.holds(at, c.holder) {
				r.release(c, at)
			}
		}
	}
	r.expireOrphans(c, func(k block.Key) bool { _, ok := r.present[k]; return ok })
	c.zeros, c.evicted = r.holdAll(c, slots), 0
	c.replayed = append(c.replayed[:0], keys...)
	c.slots = append(c.slots[:0], slots...)
	c.slotsAt = r.blocks.added
}

// expireOrphans releases the blocks c's responses produced that it still
// has not replayed (present tells) after the orphan TTL: the answer was
// dropped, or retried.
func (r *Registry) expireOrphans(c *thread, present func(block.Key) bool) {
	now := r.now().UnixNano()
	for at := c.waiting; at != 0; {
		e := r.blocks.entries.at(at)
		next := e.waitNext
		if now-e.born > int64(r.ttl) && !present(e.key) {
			r.blocks.unwait(at, &c.waiting)
			e.owner = 0
			r.blocks.demote(at)
		}
		at = next
	}
}

// holdAll makes c a holder of the blocks in slots, and returns how many
// slots are 0: blocks the registry does not know.
func (r *Registry) holdAll(c *thread, slots []slot) (unknown int) {
	for _, at := range slots {
		if at != 0 {
			r.hold(c, at)
		} else {
			unknown++
		}
	}
	return unknown
}

// hold makes c a holder of the block at.
func (r *Registry) hold(c *thread, at slot) {
	if r.blocks.holds(at, c.holder) {
		return
	}
	e := r.blocks.entries.at(at)
	if e.owner != 0 {
		r.blocks.unwait(at, &r.holders.at(e.owner).waiting)
		e.owner = 0
	}
	if r.blocks.holders(at) == 0 {
		r.confirmed++
	}
	r.blocks.addHolder(at, c.holder)
}

// release ends c's hold on the block at. A block nobody else holds stays
// known, as the first to be forgotten when the registry needs room: c may
// have been taken for another thread, whose next request would want it.
func (r *Registry) release(c *thread, at slot) {
	r.blocks.dropHolder(at, c.holder)
	if r.blocks.holders(at) == 0 {
		r.confirmed--
		r.blocks.demote(at)
	}
}

// setOwner records c as the thread waiting to confirm the block at.
func (r *Registry) setOwner(at slot, c *thread) {
	e := r.blocks.entries.at(at)
	if e.owner == c.holder {
		return
	}
	if e.owner != 0 {
		r.blocks.unwait(at, &r.holders.at(e.owner).waiting)
	}
	e.owner = c.holder
	r.blocks.wait(at, &c.waiting)
}

// evict forgets the block at, whatever holds it: the registry is full.
func (r *Registry) evict(at slot) {
	e := r.blocks.entries.at(at)
	if e.owner != 0 {
		r.blocks.unwait(at, &r.holders.at(e.owner).waiting)
	}
	if r.blocks.holders(at) > 0 {
		r.confirmed--
		r.blocks.eachHolder(at, func(h holderID) {
			r.holders.at(h).evicted++ // a block it replayed is no longer known
		})
	}
	r.blocks.remove(at)
}
