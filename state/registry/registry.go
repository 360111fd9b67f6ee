// Package registry remembers which backend produced each thinking block, and
// keeps that memory small and correct while many conversations run at once.
//
// A block is registered when a response carrying it passes the gateway
// (Observe), and confirmed when a later request replays it (Admit). The
// lifecycle is kept per thread: the requests of one scope (a session, a
// subagent, or the global scope of clients that name neither) that continue
// each other's history, as package threads recognizes them. A thread holds
// the blocks its latest request replayed; a block that no thread holds any
// more is released: it stays known, but is the first to be forgotten when
// the registry needs room. A thread never releases a block because another
// thread's request lacks it, so conversations that share a scope never
// evict each other's blocks, and requests that carry no thinking blocks
// (title generation, safety checks) never release anything.
//
// Which backends served each scope is kept per scope: a block the registry
// does not know can only be the target's while its scope has known only the
// target.
//
// A backend that refuses a block it was thought to accept (its key changed)
// is remembered too (Refuse), so the block is not offered to it again.
//
// What the registry learns can be written down as Changes (TakeChanges) and
// applied to another registry (Apply): that is how it survives restarts and
// how replicas share it. The registry itself knows nothing of storage, HTTP
// or Caddy. It is safe for concurrent use.
package registry

import (
	"sync"
	"time"

	"github.com/hashicorp/golang-lru/v2/simplelru"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/block"
)

// DefaultName is the name of the registry a gateway uses when its config
// names none.
const DefaultName = "default"

// Defaults for Config fields left at zero.
const (
	DefaultMaxBlocks = 100_000
	DefaultOrphanTTL = 5 * time.Minute
)

// maxSeenBackends bounds the backends remembered per scope, and the
// backends remembered as refusing one block. A scope that has used more is
// treated as mixed for good.
const maxSeenBackends = 8

// Config bounds a registry.
type Config struct {
	// MaxBlocks is how many blocks the registry remembers; the least
	// recently used are forgotten first.
	MaxBlocks int
	// OrphanTTL is how long a block that no request has replayed yet is
	// held for the thread whose response produced it while that thread goes
	// on without it.
	OrphanTTL time.Duration
	// MaxConversations is how many scopes are tracked; zero derives it from
	// MaxBlocks.
	MaxConversations int
	// MaxThreads is how many threads are tracked; zero derives it from
	// MaxBlocks.
	MaxThreads int
}

func (c Config) withDefaults() Config {
	if c.MaxBlocks <= 0 {
		c.MaxBlocks = DefaultMaxBlocks
	}
	if c.OrphanTTL <= 0 {
		c.OrphanTTL = DefaultOrphanTTL
	}
	if c.MaxConversations <= 0 {
		c.MaxConversations = max(1024, c.MaxBlocks/8)
	}
	if c.MaxThreads <= 0 {
		c.MaxThreads = max(4096, c.MaxBlocks/8)
	}
	return c
}

// Registry maps block keys to the backend that produced them.
type Registry struct {
	mu        sync.Mutex
	ttl       time.Duration
	blocks    slab
	names     names
	scopes    *simplelru.LRU[string, *scope]
	scopeIDs  numbered[scopeID, *scope]
	threads   *simplelru.LRU[ThreadID, *thread]
	holders   numbered[holderID, *thread]
	confirmed int    // entries with at least one holder
	switches  uint64 // backend switches over all conversations
	retries   uint64 // refused requests replayed
	refusals  uint64 // blocks refused by a backend that was thought to accept them
	present   map[block.Key]struct{}
	// capabilities are the facts learned per backend and model.
	capabilities *simplelru.LRU[capabilityKey, *learned]
	slots        []slot // lookup's, reused
	now          func() time.Time
	journal      journal
}

// New returns an empty registry bounded by cfg.
func New(cfg Config) *Registry {
	cfg = cfg.withDefaults()
	r := &Registry{
		ttl:      cfg.OrphanTTL,
		blocks:   newSlab(cfg.MaxBlocks),
		names:    newNames(),
		scopeIDs: newNumbered[scopeID, *scope](),
		holders:  newNumbered[holderID, *thread](),
		present:  make(map[block.Key]struct{}),
		now:      time.Now,
	}
	// NewLRU fails only for a non-positive size, which withDefaults rules out.
	r.scopes, _ = simplelru.NewLRU(cfg.MaxConversations, r.evictScope)
	r.threads, _ = simplelru.NewLRU(cfg.MaxThreads, r.endThread)
	r.capabilities, _ = simplelru.NewLRU[capabilityKey, *learned](MaxCapabilities, nil)
	return r
}

// Configure applies new bounds to a registry that may already hold blocks,
// as happens when a config reload keeps the registry alive. Shrinking evicts
// the least recently used blocks, scopes and threads.
func (r *Registry) Configure(cfg Config) {
	cfg = cfg.withDefaults()
	r.mu.Lock()
	defer r.mu.Unlock()
	r.ttl = cfg.OrphanTTL
	r.blocks.max = cfg.MaxBlocks
	for r.blocks.len() > r.blocks.max {
		r.evict(r.blocks.tail)
	}
	r.scopes.Resize(cfg.MaxConversations)
	r.threads.Resize(cfg.MaxThreads)
}

// Stats is a snapshot of a registry, as served by the admin endpoint.
type Stats struct {
	Blocks      int `json:"blocks"`
	Confirmed   int `json:"confirmed"`
	Unconfirmed int `json:"unconfirmed"`
	// Conversations counts the scopes tracked (sessions, subagents, the
	// global scope), Threads the threads within them.
	Conversations int    `json:"conversations"`
	Threads       int    `json:"threads"`
	Switches      uint64 `json:"switches"`
	// Retries counts refused requests that were repaired and replayed.
	Retries uint64 `json:"retries"`
	// Refusals counts blocks a backend refused although it was thought to
	// accept them.
	Refusals uint64 `json:"refusals"`
	// Learned counts the models of backends something was learned about
	// (see Capability).
	Learned int `json:"learned"`
}

// Stats returns the registry's current counts.
func (r *Registry) Stats() Stats {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := r.blocks.len()
	return Stats{
		Blocks:        n,
		Confirmed:     r.confirmed,
		Unconfirmed:   n - r.confirmed,
		Conversations: r.scopes.Len(),
		Threads:       r.threads.Len(),
		Switches:      r.switches,
		Retries:       r.retries,
		Refusals:      r.refusals,
		Learned:       r.capabilities.Len(),
	}
}

// CountRetry counts one refused request that was replayed.
func (r *Registry) CountRetry() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.retries++
}
