package llmthinking

import (
	"errors"
	"sync"
	"sync/atomic"
)

// memoryBudget bounds the bytes of every buffer llm_thinking holds at once,
// across every handler of the process: request bodies being read or waiting
// to be forwarded, their rewritten copies and replays, answers held to be
// read or rewritten, and the buffers cached for reuse. Plain reverse_proxy
// streams a body through a small buffer; llm_thinking must hold it whole to
// decide about it, so without a bound a few clients uploading large bodies
// to a slow upstream can take the process out of memory, and every other
// site with it.
//
// A buffer counts from the moment it is allocated until Go's garbage
// collector has freed it (a runtime cleanup says when), so that what the
// budget bounds is memory: a buffer let go but not collected yet still
// takes room. Buffers let go are kept for reuse while they fit in a small
// cache (memory_cache.go), and a request that waits for room while some
// awaits collection has a collection run (memory_wait.go).
//
// A request takes room as its body arrives, a buffer at a time (see
// body.readFrom and memoryTicket), so a client that trickles its body holds
// only about what it sent. When there is no room it waits, at most its handler's
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
	// wake ends a pause of the collecting when more was let go.
	wake chan struct{}
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
	b := &memoryBudget{limit: limit, wake: make(chan struct{}, 1)}
	b.limitNow.Store(limit)
	b.watchCycles()
	return b
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
