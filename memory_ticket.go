package llmthinking

import (
	"context"
	"runtime"
	"time"
	"unsafe"
)

// memoryTicket is one request's account with the budget: what it holds,
// how long it may still wait, and its age among waiters. Only the request's
// own goroutine waits on it; buffers may be given back from any goroutine.
type memoryTicket struct {
	b    *memoryBudget
	ctx  context.Context
	age  uint64
	wait time.Duration // what is left of memory_wait

	counted bool // its waits were counted
	// Guarded by b.mu.
	held    int64
	gaveWay bool
}

// ticket opens the account of a request, which may wait for room at most
// wait in all, and not once ctx is done.
func (b *memoryBudget) ticket(ctx context.Context, wait time.Duration) *memoryTicket {
	return &memoryTicket{b: b, ctx: ctx, age: b.requests.Add(1), wait: wait}
}

// buffer returns an empty buffer of at least need bytes, in use by the
// request; one of want bytes (want >= need) when such a buffer is cached
// and nobody waits for room (a body of known length then takes one buffer
// of its size, but under pressure grows only as its bytes arrive).
// Without room it waits when wait is set, else fails with errNoRoom.
func (t *memoryTicket) buffer(want, need int, wait bool) ([]byte, error) {
	b := t.b
	size := bufferSize(need)
	b.mu.Lock()
	if t.held+size > b.limit {
		b.mu.Unlock()
		return nil, errBeyondBudget
	}
	if b.first(t) {
		var buf []byte
		if want != need && len(b.waiters) == 0 {
			buf = b.cache.take(want)
		}
		if buf == nil {
			buf = b.cache.take(need)
		}
		if buf == nil && b.charged+size > b.limit {
			buf = b.cache.takeAny(need) // without room, a larger buffer serves better than none
		}
		if buf != nil {
			b.use(t, charge(cap(buf)))
			b.mu.Unlock()
			return buf, nil
		}
		if b.charged+size <= b.limit {
			b.charged += size
			b.use(t, size)
			b.mu.Unlock()
			return b.allocate(size), nil
		}
	}
	if !wait {
		b.mu.Unlock()
		return nil, errNoRoom
	}
	w := &memoryWaiter{t: t, size: size, need: need, done: make(chan error, 1)}
	b.enqueue(w)
	b.mu.Unlock()
	if err := t.await(w); err != nil {
		return nil, err
	}
	if w.buf != nil {
		return w.buf, nil
	}
	return b.allocate(size), nil
}

// reserve takes n bytes of room for a copy that another package allocates
// (see adopt), waiting for it when wait is set.
func (t *memoryTicket) reserve(n int64, wait bool) error {
	b := t.b
	b.mu.Lock()
	if t.held+n > b.limit {
		b.mu.Unlock()
		return errBeyondBudget
	}
	if b.first(t) && b.charged+n <= b.limit {
		b.charged += n
		b.use(t, n)
		b.mu.Unlock()
		return nil
	}
	if !wait {
		b.mu.Unlock()
		return errNoRoom
	}
	w := &memoryWaiter{t: t, size: n, done: make(chan error, 1)}
	b.enqueue(w)
	b.mu.Unlock()
	return t.await(w)
}

// unreserve gives back room reserved and not used.
func (t *memoryTicket) unreserve(n int64) {
	b := t.b
	b.mu.Lock()
	defer b.mu.Unlock()
	b.charged -= n
	b.unuse(t, n)
	b.dispatch()
}

// adopt makes buf, which another package allocated, a buffer of the
// request, counted in place of the reserved room: exactly as from then on,
// until Go collects it. A copy larger than the room reserved is counted
// whole, even past the limit: it exists already.
func (t *memoryTicket) adopt(buf []byte, reserved int64) {
	b := t.b
	size := charge(cap(buf))
	b.mu.Lock()
	b.charged += size - reserved
	b.use(t, size-reserved)
	if size < reserved {
		b.dispatch()
	}
	b.mu.Unlock()
	runtime.AddCleanup(unsafe.SliceData(buf), b.collected, size)
}

// grow returns a buffer from buffer(want, need, wait) holding old's bytes,
// and gives old back: what a buffer that must hold more does.
func (t *memoryTicket) grow(old []byte, want, need int, wait bool) ([]byte, error) {
	buf, err := t.buffer(want, need, wait)
	if err != nil {
		return nil, err
	}
	buf = append(buf, old...)
	if cap(old) > 0 {
		t.put(old)
	}
	return buf, nil
}

// put gives back a buffer the request is done with: it is cached for reuse,
// or let go until Go collects it.
func (t *memoryTicket) put(buf []byte) {
	b := t.b
	b.mu.Lock()
	defer b.mu.Unlock()
	b.unuse(t, charge(cap(buf)))
	if !b.cache.add(buf) {
		b.letGo = true
	}
	b.dispatch()
	if len(b.waiters) == 0 {
		b.trimCache() // under pressure, a buffer cached serves better than one collected
	}
}

// first reports whether no request older than t waits for room.
func (b *memoryBudget) first(t *memoryTicket) bool {
	return len(b.waiters) == 0 || b.waiters[0].t.age > t.age
}

// use counts n more bytes held by t.
func (b *memoryBudget) use(t *memoryTicket, n int64) {
	t.held += n
	b.inUse += n
	b.peak = max(b.peak, b.charged)
}

// unuse counts n bytes t no longer holds.
func (b *memoryBudget) unuse(t *memoryTicket, n int64) {
	b.use(t, -n)
	if t.gaveWay {
		b.givingWay -= n
		t.gaveWay = t.held > 0
	}
}

// allocate returns a new empty buffer of size bytes, already counted, and
// has Go's collector give its room back once it is unreachable.
func (b *memoryBudget) allocate(size int64) []byte {
	buf := make([]byte, 0, size)
	runtime.AddCleanup(unsafe.SliceData(buf), b.collected, size)
	return buf
}

// collected gives back the room of a buffer Go has freed.
func (b *memoryBudget) collected(size int64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.charged -= size
	b.dispatch()
}
