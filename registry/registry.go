// Package registry remembers which backend produced each thinking block, and
// keeps that memory small and correct while many conversations run at once.
//
// A block is registered when a response carrying it passes the gateway
// (Observe), and confirmed when a later request replays it (Admit). The
// lifecycle is kept per conversation: a conversation that stops replaying a
// block it held releases it, and a block that nobody holds any more is
// forgotten. A block shared by several conversations (a forked session, a
// subagent) stays until every one of them has let it go, so conversations
// never evict each other. Requests that carry no thinking blocks (title
// generation, safety checks) never evict anything.
//
// The registry knows nothing of HTTP or Caddy. It is safe for concurrent use.
package registry

import (
	"sync"
	"time"

	"github.com/hashicorp/golang-lru/v2/simplelru"
)

// Defaults for Config fields left at zero.
const (
	DefaultMaxBlocks = 100_000
	DefaultOrphanTTL = 5 * time.Minute
)

// maxSeenBackends bounds the backends remembered per conversation. A
// conversation that has used more is treated as mixed for good.
const maxSeenBackends = 8

// Config bounds a registry.
type Config struct {
	// MaxBlocks is how many blocks the registry remembers; the least
	// recently used are forgotten first.
	MaxBlocks int
	// OrphanTTL is how long a block that no request has replayed yet is
	// kept while its conversation goes on without it.
	OrphanTTL time.Duration
	// MaxConversations is how many conversations are tracked; zero derives
	// it from MaxBlocks.
	MaxConversations int
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
	return c
}

// Registry maps block keys to the backend that produced them.
type Registry struct {
	mu        sync.Mutex
	ttl       time.Duration
	blocks    *simplelru.LRU[Key, *entry]
	convs     *simplelru.LRU[string, *conversation]
	confirmed int    // entries with at least one holder
	switches  uint64 // backend switches over all conversations
	present   map[Key]struct{}
	now       func() time.Time
}

// entry is what the registry knows of one block.
type entry struct {
	origin string
	born   time.Time
	// owner is the conversation whose response produced the block, while no
	// request has replayed it yet.
	owner *conversation
	// holders are the conversations whose requests replayed the block.
	holders []*conversation
}

// conversation is the lifecycle state of one conversation.
type conversation struct {
	last    string   // backend of its latest thinking request
	seen    []string // backends that served its thinking requests
	crowded bool     // more backends than seen can hold
	held    map[Key]struct{}
	pending map[Key]struct{}
}

// New returns an empty registry bounded by cfg.
func New(cfg Config) *Registry {
	cfg = cfg.withDefaults()
	r := &Registry{
		ttl:     cfg.OrphanTTL,
		present: make(map[Key]struct{}),
		now:     time.Now,
	}
	// NewLRU fails only for a non-positive size, which withDefaults rules out.
	r.blocks, _ = simplelru.NewLRU(cfg.MaxBlocks, r.evictBlock)
	r.convs, _ = simplelru.NewLRU(cfg.MaxConversations, r.evictConversation)
	return r
}

// Configure applies new bounds to a registry that may already hold blocks,
// as happens when a config reload keeps the registry alive. Shrinking evicts
// the least recently used blocks and conversations.
func (r *Registry) Configure(cfg Config) {
	cfg = cfg.withDefaults()
	r.mu.Lock()
	defer r.mu.Unlock()
	r.ttl = cfg.OrphanTTL
	r.blocks.Resize(cfg.MaxBlocks)
	r.convs.Resize(cfg.MaxConversations)
}

// Observe records that backend produced the block with key k in a response
// to conversation conv.
func (r *Registry) Observe(conv, backend string, k Key) {
	r.mu.Lock()
	defer r.mu.Unlock()
	c := r.conversation(conv)
	if e, ok := r.blocks.Get(k); ok {
		e.origin = backend
		if len(e.holders) == 0 {
			r.setOwner(e, k, c)
			e.born = r.now()
		}
		return
	}
	e := &entry{origin: backend, born: r.now()}
	r.setOwner(e, k, c)
	r.blocks.Add(k, e)
}

// Origin returns the backend that produced the block with key k.
func (r *Registry) Origin(k Key) (string, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	e, ok := r.blocks.Peek(k)
	if !ok {
		return "", false
	}
	return e.origin, true
}

// Request describes one request on its way to a backend.
type Request struct {
	// Conversation scopes the lifecycle; "" is the shared global scope.
	Conversation string
	// Backend is the backend the request goes to.
	Backend string
	// Keys are the keys of every thinking and redacted_thinking block the
	// client sent, before any of them is removed.
	Keys []Key
	// Track applies the lifecycle: confirm the blocks, release what the
	// conversation no longer replays, record the backend. Requests that only
	// read (token counting, side requests without thinking) leave it false.
	Track bool
}

// Admission is what the registry knows of a request's blocks.
type Admission struct {
	// Origins holds, per key, the backend that produced the block, or ""
	// when the registry does not know it.
	Origins []string
	// Mixed reports that the conversation was served by a backend other than
	// the request's before this request.
	Mixed bool
	// Switched reports that this request moves the conversation to a new
	// backend; Previous names the one it leaves.
	Switched bool
	Previous string
}

// Admit looks up the origin of every block of req and, when req.Track is
// set, advances the conversation's lifecycle.
func (r *Registry) Admit(req Request) Admission {
	r.mu.Lock()
	defer r.mu.Unlock()

	a := Admission{Origins: make([]string, len(req.Keys))}
	for i, k := range req.Keys {
		if e, ok := r.blocks.Get(k); ok {
			a.Origins[i] = e.origin
		}
	}

	var c *conversation
	if req.Track {
		c = r.conversation(req.Conversation)
	} else {
		c, _ = r.convs.Peek(req.Conversation)
	}
	if c == nil {
		return a
	}
	a.Mixed = c.servedOtherThan(req.Backend)
	if !req.Track {
		return a
	}
	if len(req.Keys) > 0 {
		r.advance(c, req.Keys)
	}
	if c.last != "" && c.last != req.Backend {
		a.Switched, a.Previous = true, c.last
		r.switches++
	}
	c.last = req.Backend
	c.remember(req.Backend)
	return a
}

// advance applies one request's blocks to c: blocks it replays are
// confirmed, blocks it held but no longer replays are released, and blocks
// its responses produced that it still has not replayed after the orphan TTL
// are dropped.
func (r *Registry) advance(c *conversation, keys []Key) {
	clear(r.present)
	for _, k := range keys {
		r.present[k] = struct{}{}
	}
	for k := range c.held {
		if _, ok := r.present[k]; !ok {
			r.release(c, k)
		}
	}
	now := r.now()
	for k := range c.pending {
		if _, ok := r.present[k]; ok {
			continue
		}
		if e, ok := r.blocks.Peek(k); ok && now.Sub(e.born) > r.ttl {
			r.blocks.Remove(k)
		}
	}
	for k := range r.present {
		if e, ok := r.blocks.Peek(k); ok {
			r.hold(c, k, e)
		}
	}
}

// hold makes c a holder of the block.
func (r *Registry) hold(c *conversation, k Key, e *entry) {
	if _, ok := c.held[k]; ok {
		return
	}
	if e.owner != nil {
		delete(e.owner.pending, k)
		e.owner = nil
	}
	c.held[k] = struct{}{}
	e.holders = append(e.holders, c)
	if len(e.holders) == 1 {
		r.confirmed++
	}
}

// release ends c's hold on the block and forgets the block when nobody else
// holds it.
func (r *Registry) release(c *conversation, k Key) {
	delete(c.held, k)
	e, ok := r.blocks.Peek(k)
	if !ok {
		return
	}
	e.holders = removeHolder(e.holders, c)
	if len(e.holders) == 0 {
		r.confirmed--
		r.blocks.Remove(k)
	}
}

// setOwner records c as the conversation waiting to confirm the block.
func (r *Registry) setOwner(e *entry, k Key, c *conversation) {
	if e.owner != nil && e.owner != c {
		delete(e.owner.pending, k)
	}
	e.owner = c
	c.pending[k] = struct{}{}
}

// evictBlock runs whenever a block leaves the LRU, for whatever reason.
func (r *Registry) evictBlock(k Key, e *entry) {
	if e.owner != nil {
		delete(e.owner.pending, k)
	}
	for _, c := range e.holders {
		delete(c.held, k)
	}
	if len(e.holders) > 0 {
		r.confirmed--
	}
}

// evictConversation runs when a conversation leaves the LRU. Its blocks stay
// (they age out with the block LRU), so a conversation that comes back still
// finds the origins of its history.
func (r *Registry) evictConversation(_ string, c *conversation) {
	for k := range c.held {
		if e, ok := r.blocks.Peek(k); ok {
			e.holders = removeHolder(e.holders, c)
			if len(e.holders) == 0 {
				r.confirmed--
			}
		}
	}
	for k := range c.pending {
		if e, ok := r.blocks.Peek(k); ok && e.owner == c {
			e.owner = nil
		}
	}
}

// conversation returns the state of id, creating it when new.
func (r *Registry) conversation(id string) *conversation {
	if c, ok := r.convs.Get(id); ok {
		return c
	}
	c := &conversation{held: make(map[Key]struct{}), pending: make(map[Key]struct{})}
	r.convs.Add(id, c)
	return c
}

// servedOtherThan reports whether a backend other than b served c.
func (c *conversation) servedOtherThan(b string) bool {
	if c.crowded {
		return true
	}
	for _, s := range c.seen {
		if s != b {
			return true
		}
	}
	return false
}

// remember adds b to the backends that served c.
func (c *conversation) remember(b string) {
	for _, s := range c.seen {
		if s == b {
			return
		}
	}
	if len(c.seen) == maxSeenBackends {
		c.crowded = true
		return
	}
	c.seen = append(c.seen, b)
}

func removeHolder(hs []*conversation, c *conversation) []*conversation {
	for i, h := range hs {
		if h == c {
			hs[i] = hs[len(hs)-1]
			hs[len(hs)-1] = nil
			return hs[:len(hs)-1]
		}
	}
	return hs
}

// Stats is a snapshot of a registry, as served by the admin endpoint.
type Stats struct {
	Blocks        int    `json:"blocks"`
	Confirmed     int    `json:"confirmed"`
	Unconfirmed   int    `json:"unconfirmed"`
	Conversations int    `json:"conversations"`
	Switches      uint64 `json:"switches"`
}

// Stats returns the registry's current counts.
func (r *Registry) Stats() Stats {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := r.blocks.Len()
	return Stats{
		Blocks:        n,
		Confirmed:     r.confirmed,
		Unconfirmed:   n - r.confirmed,
		Conversations: r.convs.Len(),
		Switches:      r.switches,
	}
}
