package budget

import (
	"context"
	"errors"
	"runtime/debug"
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
// oldest cannot be served it makes room come (see unblock). Called with
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
			b.use(w.t, charge(cap(w.buf)))
		case b.charged+w.size <= b.room(w.lane):
			b.charged += w.size
			b.dequeue(0)
			b.use(w.t, w.size)
		default:
			b.unblock()
			return
		}
		w.done <- nil
	}
}

// unblock makes room come for the first waiter, which room does not allow:
// cached buffers are let go and collected, and, for what that and the
// requests giving way already will not free, later waiters that hold
// bytes give way, youngest first; finishing ones never do.
func (b *Budget) unblock() {
	head := b.waiters[0]
	missing := func() int64 {
		return b.charged + head.size - b.room(head.lane) - b.awaitingCollection() - b.givingWay
	}
	if m := missing(); m > 0 && b.cache.bytes > 0 {
		b.cache.evict(m)
		b.letGo = true
	}
	if b.letGo && b.collecting {
		select { // a collection pausing (see collect) runs again at once
		case b.wake <- struct{}{}:
		default:
		}
	}
	if b.letGo && !b.collecting && !b.noReclaim.Load() {
		b.letGo = false
		b.collecting = true
		b.collections.Add(1)
		go b.collect()
	}
	for i := len(b.waiters) - 1; i > 0 && missing() > 0; i-- {
		if w := b.waiters[i]; w.t.held > 0 && !w.t.finishing {
			b.dequeue(i)
			w.t.gaveWay = true
			b.givingWay += w.t.held
			w.done <- ErrGaveWay
		}
	}
}

// collect runs a garbage collection, so that the buffers let go are freed
// and their room given back (by their cleanups), again while more were let
// go meanwhile and requests still wait. It also returns the freed memory to
// the operating system: Go keeps freed pages mapped for reuse, and buffers
// of sizes from 4 KiB to tens of MiB do not fit each other's holes.
//
// It runs only under pressure, when a request waits for room that buffers
// let go hold, in a goroutine of its own, one at a time, paced (below): a
// request never collects. Measured with the overhead tool's flood (24
// uploads of 27 MiB at once to a slow upstream, budget 256 MiB): with it,
// peak RSS 312 MiB; collecting without returning memory, 356 MiB; without
// either, the waiting requests wait for Go's own pacing, and the flood did
// not get through in 15 minutes (with it, in about a minute and a half). The operator may turn it off (SetReclaim, the global
// option memory_reclaim).
//
// A buffer let go may still be reachable when the collection runs (its
// request is returning), and its cleanup runs a moment after it: while
// requests wait and room let go has not come back, collect looks again
// after a pause that doubles up to maxCollectPause (ended at once when more
// is let go). So a waiter never waits on a collection Go would not run by
// itself (a large heap is collected seldom), and a buffer that stays
// reachable costs a collection now and then, not a loop of them.
func (b *Budget) collect() {
	pause := firstCollectPause
	for {
		debug.FreeOSMemory()
		if b.collectAgain() {
			continue
		}
		timer := time.NewTimer(pause)
		select {
		case <-timer.C:
			pause = min(2*pause, maxCollectPause)
		case <-b.wake:
			timer.Stop()
		}
		if !b.collectAgain() && !b.stillAwaiting() {
			return
		}
	}
}

// The pauses of collect between collections while what was let go does
// not come back.
const (
	firstCollectPause = 5 * time.Millisecond
	maxCollectPause   = 500 * time.Millisecond
)

// collectAgain reports whether more was let go since the last collection
// while requests wait, and counts the collection it calls for.
func (b *Budget) collectAgain() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if !b.letGo || len(b.waiters) == 0 {
		return false
	}
	b.letGo = false
	b.collections.Add(1)
	return true
}

// stillAwaiting reports whether requests still wait while room let go has
// not come back, counting the collection that calls for; when not, the
// collecting is over.
func (b *Budget) stillAwaiting() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.waiters) == 0 || b.awaitingCollection() <= 0 {
		b.collecting = false
		b.dispatch()
		return false
	}
	b.collections.Add(1)
	return true
}

// awaitingCollection is the room of buffers let go that Go has not freed
// yet. Called with b.mu held.
func (b *Budget) awaitingCollection() int64 { return b.charged - b.inUse - b.cache.bytes }

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
