package budget

import (
	"context"
	"time"
)

// Ticket is one request's account with the budget: what it holds,
// how long it may still wait, and its age among waiters. Only the request's
// own goroutine waits on it; buffers may be given back from any goroutine.
type Ticket struct {
	b    *Budget
	ctx  context.Context
	age  uint64
	wait time.Duration // what is left of memory_wait
	// maxWait is all the request could wait (see MaxWait).
	maxWait time.Duration

	counted bool // its waits were counted
	// Guarded by b.mu.
	held      int64
	gaveWay   bool
	finishing bool // see Finishing
}

// Ticket opens the account of a request, which may wait for room at most
// wait in all, and not once ctx is done.
func (b *Budget) Ticket(ctx context.Context, wait time.Duration) *Ticket {
	return &Ticket{b: b, ctx: ctx, age: b.requests.Add(1), wait: wait, maxWait: wait}
}

// Budget returns the budget the ticket is an account with.
func (t *Ticket) Budget() *Budget { return t.b }

// WaitLeft returns what is left of the time the request may wait for
// room; it is negative once the request waited longer.
func (t *Ticket) WaitLeft() time.Duration { return t.wait }

// MaxWait returns all the time the request could wait for room: what a
// client refused for lack of it is told to wait before it retries.
func (t *Ticket) MaxWait() time.Duration { return t.maxWait }

// Overloaded counts the request as refused for lack of room.
func (t *Ticket) Overloaded() { t.b.overloaded.Add(1) }

// Unobserved counts an answer of the request passed on unread for lack of
// room.
func (t *Ticket) Unobserved() { t.b.unobserved.Add(1) }

// Buffer returns an empty buffer of at least need bytes, in use by the
// request; one of want bytes (want >= need) when such a buffer is cached
// and nobody waits for room (a body of known length then takes one buffer
// of its size, but under pressure grows only as its bytes arrive).
// Without room it waits when wait is set, else fails with ErrNoRoom.
func (t *Ticket) Buffer(want, need int, wait bool) ([]byte, error) {
	b := t.b
	size := bufferSize(need)
	b.mu.Lock()
	l := b.laneOf(t, size)
	if t.held+size > b.room(l) {
		b.mu.Unlock()
		return nil, ErrBeyondBudget
	}
	if b.first(t, l) {
		var buf []byte
		if want != need && len(b.waiters) == 0 {
			buf = b.cache.take(want)
		}
		if buf == nil {
			buf = b.cache.take(need)
		}
		if buf == nil && b.held()+size > b.room(l) {
			buf = b.cache.takeAny(need) // without room, a larger buffer serves better than none
		}
		if buf != nil {
			b.hand(buf, t)
			b.mu.Unlock()
			return buf, nil
		}
		if b.held()+size <= b.room(l) {
			b.use(t, size)
			b.mu.Unlock()
			return b.allocate(t, size), nil
		}
	}
	if !wait {
		b.mu.Unlock()
		return nil, ErrNoRoom
	}
	w := &waiter{t: t, size: size, need: need, lane: l, done: make(chan error, 1)}
	b.enqueue(w)
	b.mu.Unlock()
	if err := t.await(w); err != nil {
		return nil, err
	}
	if w.buf != nil {
		return w.buf, nil
	}
	return b.allocate(t, size), nil
}

// Reserve takes n bytes of room for a copy that another package allocates
// (see adopt), waiting for it when wait is set.
func (t *Ticket) Reserve(n int64, wait bool) error {
	b := t.b
	b.mu.Lock()
	l := b.laneOf(t, n)
	if t.held+n > b.room(l) {
		b.mu.Unlock()
		return ErrBeyondBudget
	}
	if b.first(t, l) && b.held()+n <= b.room(l) {
		b.use(t, n)
		b.mu.Unlock()
		return nil
	}
	if !wait {
		b.mu.Unlock()
		return ErrNoRoom
	}
	w := &waiter{t: t, size: n, lane: l, done: make(chan error, 1)}
	b.enqueue(w)
	b.mu.Unlock()
	return t.await(w)
}

// Unreserve gives back room reserved and not used.
func (t *Ticket) Unreserve(n int64) {
	b := t.b
	b.mu.Lock()
	defer b.mu.Unlock()
	b.unuse(t, n)
	b.dispatch()
}

// Adopt makes buf, which another package allocated, a buffer of the
// request, counted in place of the reserved room: exactly as from then on,
// until the request gives it back. A copy larger than the room reserved is
// counted whole, even past the limit: it exists already.
func (t *Ticket) Adopt(buf []byte, reserved int64) {
	b := t.b
	size := charge(cap(buf))
	b.mu.Lock()
	b.use(t, size-reserved)
	b.lease(buf, t, size)
	if size < reserved {
		b.dispatch()
	}
	b.mu.Unlock()
}

// Grow returns a buffer from Buffer(want, need, wait) holding old's bytes,
// and gives old back: what a buffer that must hold more does.
func (t *Ticket) Grow(old []byte, want, need int, wait bool) ([]byte, error) {
	buf, err := t.Buffer(want, need, wait)
	if err != nil {
		return nil, err
	}
	buf = append(buf, old...)
	if cap(old) > 0 {
		t.Put(old)
	}
	return buf, nil
}

// Put gives back a buffer the request is done with, and its room with it
// at once: the buffer is cached for reuse, or let go for Go to collect. A
// buffer the budget does not count (not its own, or given back already) is
// left alone.
func (t *Ticket) Put(buf []byte) {
	b := t.b
	b.mu.Lock()
	defer b.mu.Unlock()
	l := b.leases[addressOf(buf)]
	if l == nil || l.t == nil {
		return
	}
	b.unuse(l.t, l.size)
	l.t = nil
	if !b.cache.add(buf) {
		b.forget(buf)
	}
	b.dispatch()
	if len(b.waiters) == 0 {
		b.trimCache() // under pressure, a buffer cached may serve a waiter as it is
	}
}

// Finishing says the request is past the upstream, holding its answer:
// it is about to give back all it holds, and the upstream's work is done.
// From then on, when it waits for room it goes before the requests still
// on their way (see lane), may use the whole budget, and is never told to
// give way to them: an answer the upstream gave is not thrown away for a
// request that may never get one.
func (t *Ticket) Finishing() {
	t.b.mu.Lock()
	t.finishing = true
	t.b.mu.Unlock()
}

// use counts n more bytes held by t.
func (b *Budget) use(t *Ticket, n int64) {
	t.held += n
	b.inUse += n
	b.peak = max(b.peak, b.held())
}

// unuse counts n bytes t no longer holds.
func (b *Budget) unuse(t *Ticket, n int64) {
	b.use(t, -n)
	if t.gaveWay {
		b.givingWay -= n
		t.gaveWay = t.held > 0
	}
}
