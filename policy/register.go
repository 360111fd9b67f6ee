package policy

import "github.com/caddy-llm-thinking/caddy-llm-thinking/streaming"

// Register records backend as the producer of blocks, finished in a
// response to conversation.
func (p *Policy) Register(conversation, backend string, blocks []streaming.Block) {
	for _, b := range blocks {
		p.Registry.Observe(conversation, backend, b.Key)
	}
}
