package budget

import (
	"context"
	"errors"
	"slices"
	"time"
)

// waiter is a request waiting for room.
type waiter struct {
	t    *Ticket
	size int64 // room asked for
	need int   // a cached buffer of at least need bytes serves it; 0 for a reservation
	lane lane
	buf  []byte     // the cached buffer that served it
	done chan error // nil once served, or why it stopped waiting
}

// enqueue adds w to the waiters, in the order they are served (see
// lane).
func (b *Budget) enqueue(w *waiter) {
	if !w.t.counted {
		w.t.counted = true
		b.waits.Add(1)
	}
	i, _ := slices.BinarySearchFunc(b.waiters, w, func(v, w *waiter) int { return order(v.lane, v.t.age, w.lane, w.t.age) })
	b.waiters = slices.Insert(b.waiters, i, w)
	b.dispatch()
}

// dequeue removes the waiter at i.
func (b *Budget) dequeue(i int) *waiter {
	w := b.waiters[i]
	b.waiters = slices.Delete(b.waiters, i, i+1)
	return w
}

// dispatch serves the waiters that room allows, oldest first. When the
// oldest cannot be served, the cached buffers are let go for it, and if
// that is not enough, later waiters give way (see giveWay). Called with
// b.mu held, after anything that may have made room.
func (b *Budget) dispatch() {
	for len(b.waiters) > 0 {
		w := b.waiters[0]
		if w.need > 0 {
			w.buf = b.cache.takeAny(w.need)
		}
		switch {
		case w.buf != nil:
			b.dequeue(0)
			b.hand(w.buf, w.t)
		case b.held()+w.size <= b.room(w.lane):
			b.dequeue(0)
			b.use(w.t, w.size)
		case b.missing(w) > 0 && b.cache.bytes > 0:
			b.cache.evict(b.missing(w))
			continue
		default:
			b.giveWay(w)
			return
		}
		w.done <- nil
	}
}

// missing is the room the first waiter, head, lacks beyond what the
// requests giving way will give back. Called with b.mu held.
func (b *Budget) missing(head *waiter) int64 {
	return b.held() + head.size - b.room(head.lane) - b.givingWay
}

// giveWay makes room come for the first waiter, head, which room does not
// allow when the cache is let go: later waiters that hold bytes give way,
// youngest first, until what they give back would serve it; finishing
// ones never do.
func (b *Budget) giveWay(head *waiter) {
	for i := len(b.waiters) - 1; i > 0 && b.missing(head) > 0; i-- {
		if w := b.waiters[i]; w.t.held > 0 && !w.t.finishing {
			b.dequeue(i)
			w.t.gaveWay = true
			b.givingWay += w.t.held
			w.done <- ErrGaveWay
		}
	}
}

// await waits until w is served, its request's memory_wait is spent, its
// client is gone, or it must give way.
func (t *Ticket) await(w *waiter) error {
	start := time.Now()
	timer := time.NewTimer(max(t.wait, 0))
	defer timer.Stop()
	var err error
	select {
	case err = <-w.done:
	case <-timer.C:
		err = ErrOverloaded
	case <-t.ctx.Done():
		err = context.Cause(t.ctx)
	}
	t.wait -= time.Since(start)
	if err == nil || errors.Is(err, ErrGaveWay) {
		return err
	}
	b := t.b
	b.mu.Lock()
	if i := slices.Index(b.waiters, w); i >= 0 {
		b.dequeue(i)
		b.dispatch() // w may have held back younger waiters
		b.mu.Unlock()
		return err
	}
	b.mu.Unlock()
	return <-w.done // served or told to give way meanwhile
}
