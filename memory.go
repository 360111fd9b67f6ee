package llmthinking

import (
	"context"
	"errors"
	"runtime"
	"runtime/debug"
	"slices"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"
)

// memoryBudget bounds the bytes of every buffer llm_thinking holds at once,
// across every handler of the process: request bodies being read or waiting
// to be forwarded, their rewritten copies and replays, and answers held to
// be read or rewritten, and the buffers cached for reuse. Plain reverse_proxy streams a body through a small
// buffer; llm_thinking must hold it whole to decide about it, so without a
// bound a few clients uploading large bodies to a slow upstream can take
// the process out of memory, and every other site with it.
//
// A buffer counts from the moment it is allocated until Go's garbage
// collector has freed it (a runtime cleanup says when), so that what the
// budget bounds is memory: a buffer let go but not collected yet still
// takes room. Buffers let go are kept for reuse while they fit in a small
// cache (let go in turn when their size went unused through a garbage
// collection), and a
// request that waits for room while some awaits collection has a
// collection run.
//
// A request takes room as its body arrives, a buffer at a time (see
// body.readFrom), so a client that trickles its body holds only about what
// it sent. When there is no room it waits, at most its handler's
// memory_wait in all; waiters are served oldest request first, so small
// requests cannot starve a large one. What a waiting request holds is of
// no use while it waits: when the oldest waiter cannot be served, younger
// waiters that hold bytes give way at once, youngest first, until what
// they hold would serve it (their clients get a 529, which clients retry).
// So requests that all wait for more, none able to finish, never stall
// each other, and memory is not held by requests that cannot go on.
type memoryBudget struct {
	mu sync.Mutex
	// limit bounds charged.
	limit int64
	// charged counts every live buffer (in use, cached, or let go and not
	// collected yet) and the room reserved for copies being made.
	charged int64
	// inUse is what requests hold of charged: buffers and reservations.
	inUse int64
	peak  int64
	cache bufferCache
	// waiters are the requests waiting for room, oldest request first.
	waiters []*memoryWaiter
	// givingWay is what the requests told to give way still hold: room on
	// its way back.
	givingWay int64
	// collecting is set while a collection asked for runs; letGo, when
	// buffers were let go since the last one started.
	collecting bool
	letGo      bool
	// waitsSeen is waits as the last garbage collection saw it (see cycle).
	waitsSeen uint64

	requests                                   atomic.Uint64 // tickets issued: their age
	waits, overloaded, unobserved, collections atomic.Uint64
	limitNow                                   atomic.Int64 // limit, read without the lock
}

// Errors of a request that found no room.
var (
	// errOverloaded: the request waited its memory_wait for room in vain.
	errOverloaded = errors.New("llm_thinking memory budget is full")
	// errGaveWay: the request gave its room to older ones, which could not
	// have finished otherwise.
	errGaveWay = errors.New("llm_thinking memory budget is full; gave way to older requests")
	// errBeyondBudget: the request needs more than the whole budget.
	errBeyondBudget = errors.New("request body exceeds what llm_thinking memory_budget can hold")
	// errNoRoom: no room now, for an answer, which never waits.
	errNoRoom = errors.New("no room in llm_thinking memory budget")
)

// newMemoryBudget returns a budget of limit bytes.
func newMemoryBudget(limit int64) *memoryBudget {
	b := &memoryBudget{limit: limit}
	b.limitNow.Store(limit)
	b.watchCycles()
	return b
}

// watchCycles has cycle run after the next garbage collection, and so
// after every one: a cleanup of an object nothing references runs once
// the collection that found it is done, and arms the next.
func (b *memoryBudget) watchCycles() {
	runtime.AddCleanup(new(cycleSentinel), (*memoryBudget).cycle, b)
}

// cycleSentinel is the object whose collection marks a cycle; large enough
// not to share its memory with others (tiny objects may, and then their
// cleanups may never run).
type cycleSentinel [64]byte

// cycle lets go of the cached buffers of every size none was taken of
// through the last two garbage collections, as sync.Pool does: an idle
// gateway does not keep the buffers of its last burst, nor a busy one sizes
// it no longer needs. Not under pressure, when requests waited for room
// since the last collection: a buffer cached then serves better than one
// collected (and collections come fast, the budget asking for them). It
// runs once per collection.
func (b *memoryBudget) cycle() {
	b.mu.Lock()
	if waits := b.waits.Load(); waits == b.waitsSeen && len(b.waiters) == 0 {
		b.cache.idle()
	} else {
		b.waitsSeen = waits
	}
	b.mu.Unlock()
	b.watchCycles()
}

// setLimit changes the limit; requests waiting for room get it when it grew.
func (b *memoryBudget) setLimit(limit int64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.limit = limit
	b.limitNow.Store(limit)
	b.trimCache()
	b.dispatch()
}

// cacheLimit bounds the buffers kept for reuse: an eighth of the budget,
// at most maxCacheBytes.
func (b *memoryBudget) cacheLimit() int64 { return min(b.limit/8, maxCacheBytes) }

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

// memoryWaiter is a request waiting for room.
type memoryWaiter struct {
	t    *memoryTicket
	size int64      // room asked for
	need int        // a cached buffer of at least need bytes serves it; 0 for a reservation
	buf  []byte     // the cached buffer that served it
	done chan error // nil once served, or why it stopped waiting
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

// trimCache lets go of cached buffers past the cache's bound.
func (b *memoryBudget) trimCache() {
	if b.cache.trim(b.cacheLimit()) {
		b.letGo = true
	}
}

// enqueue adds w to the waiters, in the order of its request's age.
func (b *memoryBudget) enqueue(w *memoryWaiter) {
	if !w.t.counted {
		w.t.counted = true
		b.waits.Add(1)
	}
	i, _ := slices.BinarySearchFunc(b.waiters, w.t.age, func(v *memoryWaiter, age uint64) int {
		return compareAge(v.t.age, age)
	})
	b.waiters = slices.Insert(b.waiters, i, w)
	b.dispatch()
}

func compareAge(a, b uint64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// dequeue removes the waiter at i.
func (b *memoryBudget) dequeue(i int) *memoryWaiter {
	w := b.waiters[i]
	b.waiters = slices.Delete(b.waiters, i, i+1)
	return w
}

// dispatch serves the waiters that room allows, oldest first. When the
// oldest cannot be served it makes room come (see unblock). Called with
// b.mu held, after anything that may have made room.
func (b *memoryBudget) dispatch() {
	for len(b.waiters) > 0 {
		w := b.waiters[0]
		switch {
		case w.need > 0 && b.cache.fitsAny(w.need):
			w.buf = b.cache.takeAny(w.need)
			b.dequeue(0)
			b.use(w.t, charge(cap(w.buf)))
		case b.charged+w.size <= b.limit:
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

// unblock makes room come for the oldest waiter, which room does not allow:
// cached buffers are let go and collected, and, for what that and the
// requests giving way already will not free, younger waiters that hold
// bytes give way, youngest first.
func (b *memoryBudget) unblock() {
	head := b.waiters[0]
	missing := func() int64 {
		awaitingCollection := b.charged - b.inUse - b.cache.bytes
		return b.charged + head.size - b.limit - awaitingCollection - b.givingWay
	}
	if m := missing(); m > 0 && b.cache.bytes > 0 {
		b.cache.evict(m)
		b.letGo = true
	}
	if b.letGo && !b.collecting {
		b.letGo = false
		b.collecting = true
		b.collections.Add(1)
		go b.collect()
	}
	for i := len(b.waiters) - 1; i > 0 && missing() > 0; i-- {
		if w := b.waiters[i]; w.t.held > 0 {
			b.dequeue(i)
			w.t.gaveWay = true
			b.givingWay += w.t.held
			w.done <- errGaveWay
		}
	}
}

// collect runs a garbage collection, so that the buffers let go are freed
// and their room given back (by their cleanups), again while more were let
// go meanwhile and requests still wait. It also returns the freed memory to
// the operating system: Go keeps freed pages mapped for reuse, and buffers
// of sizes from 4 KiB to tens of MiB do not fit each other's holes, so
// without it a flood of large uploads kept Caddy's resident memory some
// 60 MiB above what the budget held (with it, 25 MiB at most). It runs only
// under pressure, when a request waits for room.
func (b *memoryBudget) collect() {
	for {
		debug.FreeOSMemory()
		b.mu.Lock()
		if !b.letGo || len(b.waiters) == 0 {
			b.collecting = false
			b.dispatch()
			b.mu.Unlock()
			return
		}
		b.letGo = false
		b.collections.Add(1)
		b.mu.Unlock()
	}
}

// await waits until w is served, its request's memory_wait is spent, its
// client is gone, or it must give way.
func (t *memoryTicket) await(w *memoryWaiter) error {
	start := time.Now()
	timer := time.NewTimer(max(t.wait, 0))
	defer timer.Stop()
	var err error
	select {
	case err = <-w.done:
	case <-timer.C:
		err = errOverloaded
	case <-t.ctx.Done():
		err = context.Cause(t.ctx)
	}
	t.wait -= time.Since(start)
	if err == nil || errors.Is(err, errGaveWay) {
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

// MemoryStats is what the budget reports, in bytes and counts since the
// process started.
type MemoryStats struct {
	// Budget is the limit on held.
	Budget int64 `json:"budget"`
	// Held is what llm_thinking's buffers take now: in use, cached for
	// reuse, or let go and not yet freed by Go's garbage collector; with
	// the room reserved for copies being made.
	Held int64 `json:"held"`
	// InUse is what requests and answers hold of it.
	InUse int64 `json:"in_use"`
	// Cached is what is kept for reuse of it.
	Cached int64 `json:"cached"`
	// Peak is the most held at once.
	Peak int64 `json:"peak"`
	// Waits counts requests that waited for room.
	Waits uint64 `json:"waits"`
	// Overloaded counts requests answered 529 for lack of room.
	Overloaded uint64 `json:"overloaded"`
	// Unobserved counts answers passed to the client unread for lack of
	// room (their blocks stay unknown).
	Unobserved uint64 `json:"unobserved"`
	// Collections counts garbage collections run to free room.
	Collections uint64 `json:"collections"`
}

// stats returns what the budget holds and has counted.
func (b *memoryBudget) stats() MemoryStats {
	b.mu.Lock()
	s := MemoryStats{Budget: b.limit, Held: b.charged, InUse: b.inUse, Cached: b.cache.bytes, Peak: b.peak}
	b.mu.Unlock()
	s.Waits, s.Overloaded, s.Unobserved, s.Collections = b.waits.Load(), b.overloaded.Load(), b.unobserved.Load(), b.collections.Load()
	return s
}
