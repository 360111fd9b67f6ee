package policy

import (
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
