// Package budget bounds the memory llm_thinking holds at once in a process:
// the request bodies being read or waiting to be forwarded, their rewritten
// copies and replays, the answers held to be read or rewritten, and the
// buffers cached for reuse. A request takes room as its bytes arrive and
// waits for room when there is none (small requests before large ones,
// oldest first); what it cannot get in time is its caller's to refuse (a
// 529, a 413). An answer the handler observes never waits; one a
// transport must translate does, before every request still on its way.
//
// It knows nothing of Caddy or HTTP handlers: the handler and the
// transports open a Ticket per request and hold their bytes through it.
// It must never hold a byte it does not count.
package budget

import (
	"errors"
	"sync"
	"sync/atomic"
)

// Budget bounds the bytes of every buffer llm_thinking holds at once,
// across every handler of the process: request bodies being read or waiting
// to be forwarded, their rewritten copies and replays, answers held to be
// read or rewritten, and the buffers cached for reuse. Plain reverse_proxy
// streams a body through a small buffer; llm_thinking must hold it whole to
// decide about it, so without a bound a few clients uploading large bodies
// to a slow upstream can take the process out of memory, and every other
// site with it.
//
// A buffer counts from the moment it is allocated until its request gives
// it back (Ticket.Put, a Body's last reference, Answer.Release), whether it
// is then kept for reuse in a small cache (cache.go) or let go: the budget
// admits by its own accounting, and a request never waits for Go's garbage
// collector. What was let go and not collected yet is Go's to bound, as
// all garbage is (GOGC, GOMEMLIMIT; see docs/memory.md). A buffer that a
// request drops without giving it back counts until Go collects it (a
// runtime cleanup gives its room back then; see lease.go).
//
// A request takes room as its body arrives, a buffer at a time (see
// body.readFrom and Ticket), so a client that trickles its body holds
// only about what it sent. When there is no room it waits, at most its handler's
// memory_wait in all. Large requests may fill seven eighths of the budget,
// small ones all of it, and waiters are served finishing requests first,
// then small ones, then large ones, oldest first in each (see lane.go): a
// flood of large requests leaves room for the small ones of other
// clients, and no request of a size is starved by later ones. What a
// waiting request holds is of no use while it waits: when the first
// waiter cannot be served, later waiters that hold bytes give way at once,
// youngest first, until what they hold would serve it (their clients get
// a 529, which clients retry).
// So requests that all wait for more, none able to finish, never stall
// each other, and memory is not held by requests that cannot go on.
type Budget struct {
	mu sync.Mutex
	// limit bounds what is held: inUse and the cache's bytes.
	limit int64
	// inUse is what requests hold: buffers, and room reserved for copies
	// being made.
	inUse int64
	peak  int64
	cache bufferCache
	// leases are the buffers requests hold and those cached, by address.
	leases map[uintptr]*lease
	// waiters are the requests waiting for room, oldest request first.
	waiters []*waiter
	// givingWay is what the requests told to give way still hold: room on
	// its way back.
	givingWay int64
	// waitsSeen is waits as the last garbage collection saw it (see cycle).
	waitsSeen uint64

	requests                                 atomic.Uint64 // tickets issued: their age
	waits, overloaded, unobserved, collected atomic.Uint64
	limitNow                                 atomic.Int64 // limit, read without the lock
	closed                                   atomic.Bool  // see Close
}

// Errors of a request that found no room.
var (
	// ErrOverloaded: the request waited its memory_wait for room in vain.
	ErrOverloaded = errors.New("llm_thinking memory budget is full")
	// ErrGaveWay: the request gave its room to older ones, which could not
	// have finished otherwise.
	ErrGaveWay = errors.New("llm_thinking memory budget is full; gave way to older requests")
	// ErrBeyondBudget: the request needs more than the whole budget.
	ErrBeyondBudget = errors.New("request body exceeds what llm_thinking memory_budget can hold")
	// ErrNoRoom: no room now, for an answer, which never waits.
	ErrNoRoom = errors.New("no room in llm_thinking memory budget")
)

// New returns a budget of limit bytes.
func New(limit int64) *Budget {
	b := &Budget{limit: limit, leases: make(map[uintptr]*lease)}
	b.cache.drop = b.forget
	b.limitNow.Store(limit)
	b.watchCycles()
	return b
}

// SetLimit changes the limit; requests waiting for room get it when it grew.
func (b *Budget) SetLimit(limit int64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.limit = limit
	b.limitNow.Store(limit)
	b.trimCache()
	b.dispatch()
}

// Limit returns the limit.
func (b *Budget) Limit() int64 { return b.limitNow.Load() }

// Close stops following Go's garbage collections, for a budget no handler
// uses any more. What is still held is given back as before; the cached
// buffers are let go.
func (b *Budget) Close() {
	b.closed.Store(true)
	b.mu.Lock()
	defer b.mu.Unlock()
	b.cache.trim(0)
}

// held is what the budget counts: the buffers and room requests hold, and
// the buffers cached. Called with b.mu held.
func (b *Budget) held() int64 { return b.inUse + b.cache.bytes }

// cacheLimit bounds the buffers kept for reuse: an eighth of the budget,
// at most maxCacheBytes.
func (b *Budget) cacheLimit() int64 { return min(b.limit/8, maxCacheBytes) }

// Stats is what the budget reports, in bytes and counts since the
// process started.
type Stats struct {
	// Budget is the limit on held.
	Budget int64 `json:"budget"`
	// Held is what llm_thinking's buffers take now: in use or cached for
	// reuse, with the room reserved for copies being made.
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
	// Collected counts what requests dropped without giving it back (a
	// buffer, a body reader nobody closed), whose room came back only once
	// Go's garbage collector found it unreachable: the reader of a body
	// that a route never proxied, or that reverse_proxy could not send
	// (it leaves a body it did not read open when a dial fails, for a
	// retry); a buffer dropped is a path that forgets to give memory back.
	Collected uint64 `json:"collected"`
}

// Stats returns what the budget holds and has counted.
func (b *Budget) Stats() Stats {
	b.mu.Lock()
	s := Stats{Budget: b.limit, Held: b.held(), InUse: b.inUse, Cached: b.cache.bytes, Peak: b.peak}
	b.mu.Unlock()
	s.Waits, s.Overloaded, s.Unobserved, s.Collected = b.waits.Load(), b.overloaded.Load(), b.unobserved.Load(), b.collected.Load()
	return s
}
