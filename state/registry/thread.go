package registry

import "github.com/caddy-llm-thinking/caddy-llm-thinking/block"

// ThreadID names a thread: the requests of one scope that continue each
// other's history (package threads recognizes them from their bodies). The
// blocks a thread replays are held by it, whatever other threads of its
// scope send, so conversations that share a scope never release each
// other's blocks. 0 is no thread.
type ThreadID uint64

// holderID numbers a live thread, as entries name it; 0 is none.
type holderID uint32

// thread is the lifecycle state of one thread.
type thread struct {
	id     ThreadID
	holder holderID
	// waiting is the first of the blocks its responses produced that no
	// request has replayed yet (the entries link the rest): they are the
	// blocks it owns.
	waiting slot
	// replayed are the keys of its latest tracked request, in order: the
	// blocks it holds are among them. zeros counts those the registry did
	// not know then (their slot is 0), evicted those it held and the
	// registry forgot since.
	replayed []block.Key
	zeros    int
	evicted  int
	// slots are where the replayed blocks were found, 0 for unknown ones:
	// the next request finds them there without the index (see lookup).
	// slotsAt is the slab's added count when they were found: an unknown
	// one is unknown still unless the slab added it since.
	slots   []slot
	slotsAt uint64
}

// StartThread begins the lifecycle of thread id: from now on the blocks
// its requests replay are held by it (see Request.Thread), until
// EndThreads. Starting a thread that has started changes nothing.
func (r *Registry) StartThread(id ThreadID) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.thread(id)
}

// thread returns the state of thread id, creating it when new.
func (r *Registry) thread(id ThreadID) *thread {
	if t, ok := r.threads.Get(id); ok {
		return t
	}
	t := &thread{id: id}
	t.holder = r.holders.add(t)
	r.threads.Add(id, t)
	return t
}

// EndThreads forgets the threads with the given ids: nothing will continue
// them (their recognizer let them go). What they held is released.
func (r *Registry) EndThreads(ids ...ThreadID) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, id := range ids {
		r.threads.Remove(id)
	}
}

// endThread runs when a thread leaves the LRU, ended or crowded out. The
// blocks it held and nobody else holds are released: they stay known, as
// the first the registry forgets when it needs room, so a thread that
// comes back after all still finds the origins of its history.
func (r *Registry) endThread(_ ThreadID, t *thread) {
	for i, k := range t.replayed {
		at := r.heldAt(t, i, k)
		if at != 0 && r.blocks.holds(at, t.holder) {
			r.release(t, at)
		}
	}
	for at := t.waiting; at != 0; {
		next := r.blocks.entries.at(at).waitNext
		r.blocks.unwait(at, &t.waiting)
		r.blocks.entries.at(at).owner = 0
		r.blocks.demote(at)
		at = next
	}
	r.holders.remove(t.holder)
}

// heldAt returns the slot of the i-th block t replayed, whose key is k, or
// 0 when the registry no longer knows it.
func (r *Registry) heldAt(t *thread, i int, k block.Key) slot {
	if i < len(t.slots) && t.slots[i] != 0 && r.blocks.entries.at(t.slots[i]).key == k {
		return t.slots[i]
	}
	return r.blocks.peek(k)
}
