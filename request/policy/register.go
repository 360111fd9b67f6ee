package policy

import (
	"github.com/caddy-llm-thinking/caddy-llm-thinking/block"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/state/registry"
)

// Register records backend as the producer of blocks, finished in a
// response to a request of thread (see Plan.Thread) for model. A model
// that answers with thinking can think: when that is news (the model is
// not one of Models, or was refused thinking before), Register returns it.
func (p *Policy) Register(thread registry.ThreadID, backend, model string, blocks []block.Observed) Learned {
	for _, b := range blocks {
		p.Registry.Observe(thread, backend, b.Key)
	}
	if len(blocks) == 0 || backend == "" || model == "" {
		return Learned{}
	}
	if p.Models.Capable(model) && p.Registry.Capabilities(backend, BoundedID(model))&registry.CannotThink == 0 {
		return Learned{}
	}
	return p.learn(backend, model, registry.Thinks, "answered with thinking")
}
