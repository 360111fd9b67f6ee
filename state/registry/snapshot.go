package registry

import "time"

// Snapshot hands emit, batch after batch, the changes that rebuild what the
// registry knows of origins, refusals and conversations' backends. The
// lifecycle (who holds which block) is not part of it: it is rebuilt as
// conversations go on.
//
// Snapshot never holds the registry's lock for long: it walks the blocks a
// page of slots at a time (pageSize entries) and the conversations as many
// at a time, taking the lock once per page, so a request waits at most for
// one page's walk; emit is called between pages, outside the lock, and may
// itself use the registry. The batches are built in buf (nil allocates
// one), which is reused from one batch to the next: emit must not keep a
// batch past its return. Backend and conversation names are the registry's
// own strings, so a snapshot allocates nothing per change.
//
// The blocks come in slot order, not in recency order: slots are handed out
// as blocks arrive, so slot order approximates the order they were learned
// in, and following the recency links instead would jump through memory at
// random for every block. A registry that applies the snapshot makes its
// blocks recent in that order; a conversation that goes on re-touches its
// own blocks with its next request anyway.
//
// A snapshot is not atomic across pages: a block forgotten and learned
// again while Snapshot runs may land in a slot already walked (and be
// missed) or in one not walked yet (and be seen twice); a conversation
// likewise. That is harmless: applying a change twice changes nothing, and
// whatever the registry learns while Snapshot runs is journaled (see
// TakeChanges), so a later journal segment, or the next snapshot, carries
// what this one missed.
func (r *Registry) Snapshot(buf []Change, emit func(batch []Change)) {
	batch := buf[:0]
	if cap(batch) == 0 {
		// Room for a page of blocks with some refusals, or a page of
		// conversations served by two backends each, without growing.
		batch = make([]Change, 0, 2*pageSize)
	}
	batch = emitPages(batch, r.snapshotBlocks, emit)
	batch = emitPages(batch, r.snapshotConversations, emit)
	batch = batch[:0]
	for _, l := range r.LearnedCapabilities() {
		batch = append(batch, Change{Op: Learned, Backend: l.Backend, Model: l.Model, Facts: l.Facts, At: l.At})
	}
	if len(batch) > 0 {
		emit(batch)
	}
}

// emitPages hands emit the changes page appends, a page at a time from the
// first on, until page reports that no page follows. It returns batch for
// reuse.
func emitPages[First slot | scopeID](batch []Change, page func([]Change, First) ([]Change, bool), emit func(batch []Change)) []Change {
	for first := First(0); ; first += pageSize {
		var more bool
		batch, more = page(batch[:0], first)
		if len(batch) > 0 {
			emit(batch)
		}
		if !more {
			return batch
		}
	}
}

// snapshotBlocks appends the changes of the blocks in the page of slots
// that starts at first, and reports whether pages follow it.
func (r *Registry) snapshotBlocks(batch []Change, first slot) ([]Change, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	es := &r.blocks.entries
	end := min(int(first)+pageSize, es.n)
	// Few blocks have extras (refusals, second holders): skip the map
	// lookup for each entry when there are none at all.
	extras := len(r.blocks.extras) > 0
	for at := first; int(at) < end; at++ {
		e := es.at(at)
		if e.origin == 0 && !extras {
			continue // free, or a block whose producer is unknown
		}
		born := time.Unix(0, e.born)
		if e.origin != 0 && e.origin != other {
			batch = append(batch, Change{Op: Produced, Key: e.key, Backend: r.names.of(e.origin), At: born})
		}
		if !extras {
			continue
		}
		if x := r.blocks.extras[at]; x != nil {
			for _, b := range x.refusedBy {
				if b != other {
					batch = append(batch, Change{Op: Refused, Key: e.key, Backend: r.names.of(b), At: born})
				}
			}
		}
	}
	return batch, end < es.n
}

// snapshotConversations appends the Served changes of the conversations
// whose ids are in the page that starts at first, and reports whether
// pages follow it. A conversation's other backends come first, without a
// time, then its latest backend with the time it was learned, so that it
// stays the latest.
func (r *Registry) snapshotConversations(batch []Change, first scopeID) ([]Change, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	end := min(int(first)+pageSize, len(r.scopeIDs.byNumber))
	for _, c := range r.scopeIDs.byNumber[first:end] {
		if c == nil {
			continue // slot 0, or a conversation gone
		}
		for _, b := range c.seen {
			if b != c.last {
				batch = append(batch, Change{Op: Served, Conversation: c.name, Backend: b})
			}
		}
		if c.last != "" {
			batch = append(batch, Change{Op: Served, Conversation: c.name, Backend: c.last, At: c.lastAt})
		}
	}
	return batch, end < len(r.scopeIDs.byNumber)
}
