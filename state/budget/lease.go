package budget

import (
	"runtime"
	"unsafe"
)

// lease is the budget's record of a buffer it counts: the request that
// holds it, and the cleanup that gives its room back should the request
// drop it without giving it back. A buffer given back is counted no more
// at once, whether it is cached or let go, and its cleanup is stopped: Go's
// collector is only the safety net for a buffer nobody gave back, never
// what a waiting request waits on.
type lease struct {
	// t is the request that holds the buffer; nil once it gave it back
	// (the buffer is cached, or let go). Guarded by the budget's lock.
	t *Ticket
	// size is the room the buffer takes (see charge).
	size int64
	// at is the buffer's address, its key in Budget.leases.
	at      uintptr
	cleanup runtime.Cleanup
}

// addressOf returns the address of buf's memory: the key of its lease. It
// is kept as a number, not a pointer, so that the budget's record of a
// buffer never keeps the buffer from being collected (Go's heap objects
// do not move). A buffer collected without being given back may leave its
// address to a new one before its cleanup runs: see freed.
func addressOf(buf []byte) uintptr { return uintptr(unsafe.Pointer(unsafe.SliceData(buf))) }

// lease records buf, of size bytes, as held by t, already counted.
// Called with b.mu held.
func (b *Budget) lease(buf []byte, t *Ticket, size int64) {
	l := &lease{t: t, size: size, at: addressOf(buf)}
	l.cleanup = runtime.AddCleanup(unsafe.SliceData(buf), b.freed, l)
	b.leases[l.at] = l
}

// allocate returns a new empty buffer of size bytes, already counted for
// t.
func (b *Budget) allocate(t *Ticket, size int64) []byte {
	buf := make([]byte, 0, size) // outside the lock: zeroing megabytes takes a while
	b.mu.Lock()
	b.lease(buf, t, size)
	b.mu.Unlock()
	return buf
}

// hand makes buf, just taken from the cache, held by t. Called with b.mu
// held.
func (b *Budget) hand(buf []byte, t *Ticket) {
	if l := b.leases[addressOf(buf)]; l != nil {
		l.t = t
	}
	b.use(t, charge(cap(buf)))
}

// forget lets go of buf, given back and not cached (or no longer): its
// room is no longer counted, and Go may collect it without a cleanup.
// Called with b.mu held.
func (b *Budget) forget(buf []byte) {
	if l := b.leases[addressOf(buf)]; l != nil {
		delete(b.leases, l.at)
		l.t = nil
		l.cleanup.Stop()
	}
	// buf must stay reachable until its cleanup is stopped, or the cleanup
	// could be queued meanwhile.
	runtime.KeepAlive(buf)
}

// freed gives back the room of a buffer Go collected while a request held
// it: a request that dropped it without giving it back. A buffer given
// back (l.t nil) has its cleanup stopped, and is never counted twice even
// if the cleanup was queued already.
func (b *Budget) freed(l *lease) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.leases[l.at] == l {
		delete(b.leases, l.at)
	}
	if l.t == nil {
		return
	}
	b.unuse(l.t, l.size)
	l.t = nil
	b.collected.Add(1)
	b.dispatch()
}
