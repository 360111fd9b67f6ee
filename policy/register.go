package policy

import (
	"github.com/caddy-llm-thinking/caddy-llm-thinking/registry"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/streaming"
)

// Register records backend as the producer of blocks, finished in a
// response to a request of thread (see Plan.Thread).
func (p *Policy) Register(thread registry.ThreadID, backend string, blocks []streaming.Block) {
	for _, b := range blocks {
		p.Registry.Observe(thread, backend, b.Key)
	}
}
