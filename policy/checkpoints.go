package policy

import (
	"net/http"
	"sync"

	"github.com/hashicorp/golang-lru/v2/simplelru"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/thinking"
)

// DefaultCheckpointBudget bounds the memory Checkpoints hold by default.
const DefaultCheckpointBudget = 16 << 20

// maxCheckpoints bounds the conversations Checkpoints remembers, whatever
// their size.
const maxCheckpoints = 4096

// Checkpoints keeps, per conversation, what reading its last request
// learned (see thinking.Checkpoint), so that the next request reads only
// what it adds to the history. Its memory is bounded: the least recently
// used conversations are forgotten first, and forgetting one only costs
// its next request a full read. It is safe for concurrent use.
type Checkpoints struct {
	mu     sync.Mutex
	lru    *simplelru.LRU[string, *held]
	bytes  int
	budget int
}

// held is a checkpoint and the memory it was counted for.
type held struct {
	cp   *thinking.Checkpoint
	size int
}

// NewCheckpoints returns an empty set of checkpoints holding at most about
// budget bytes.
func NewCheckpoints(budget int) *Checkpoints {
	c := &Checkpoints{budget: budget}
	// NewLRU fails only for a non-positive size.
	c.lru, _ = simplelru.NewLRU(maxCheckpoints, func(_ string, h *held) { c.bytes -= h.size })
	return c
}

// take hands conv's checkpoint to one request, which owns it until put; a
// conversation without one, or whose checkpoint another request holds,
// gets an empty one.
func (c *Checkpoints) take(conv string) *thinking.Checkpoint {
	c.mu.Lock()
	defer c.mu.Unlock()
	if h, ok := c.lru.Peek(conv); ok {
		c.lru.Remove(conv)
		return h.cp
	}
	return new(thinking.Checkpoint)
}

// put keeps cp as conv's checkpoint, forgetting the least recently used
// ones while the budget is exceeded.
func (c *Checkpoints) put(conv string, cp *thinking.Checkpoint) {
	c.mu.Lock()
	defer c.mu.Unlock()
	h := &held{cp: cp, size: cp.Size()}
	if h.size > c.budget {
		return
	}
	c.lru.Add(conv, h)
	c.bytes += h.size
	for c.bytes > c.budget {
		c.lru.RemoveOldest()
	}
}

// Held is a conversation's checkpoint held by one request from before its
// body is read, so that the body can be compared with the checkpoint's
// prefix while it arrives (see thinking.ResumeKnown). Plan uses it and
// gives it back; Release gives it back if Plan never ran. The zero of a
// *Held, nil, holds nothing.
type Held struct {
	c    *Checkpoints
	conv string
	cp   *thinking.Checkpoint
	used bool
}

// Hold takes the checkpoint of the conversation the headers name, for a
// request about to read its body; nil when there is none to take.
func (p *Policy) Hold(h http.Header) *Held {
	conv := headerConversation(h)
	if p.Checkpoints == nil || conv == "" {
		return nil
	}
	return &Held{c: p.Checkpoints, conv: conv, cp: p.Checkpoints.take(conv)}
}

// Prefix returns what the held checkpoint expects the body to start with.
func (h *Held) Prefix() []byte {
	if h == nil || h.used {
		return nil
	}
	return h.cp.Prefix()
}

// use hands the checkpoint to Plan, once, for conversation conv.
func (h *Held) use(conv string) (*thinking.Checkpoint, bool) {
	if h == nil || h.used || h.conv != conv {
		return nil, false
	}
	h.used = true
	return h.cp, true
}

// Release gives the checkpoint back unless Plan took it.
func (h *Held) Release() {
	if h == nil || h.used {
		return
	}
	h.used = true
	h.c.put(h.conv, h.cp)
}
