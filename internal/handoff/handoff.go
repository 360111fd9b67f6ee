// Package handoff is what llm_thinking tells the reverse_proxy transports
// of this module about a request it passes on, in the request's context:
// what it took out of the body only for the Messages API's sake, and what
// is known of the target backend's model. A transport that speaks another
// API shapes its translation with it; a request without a hand-off (no
// llm_thinking in front) is translated as it is.
//
// The memory a request's body is held in travels apart, in budget.Carry.
//
// The package holds no state and must never import the transports.
package handoff

import (
	"context"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/state/registry"
)

// Request is the hand-off of one request.
type Request struct {
	// ThinkingOff is the thinking config llm_thinking took out of the body
	// only for the Messages API's rule on tool loops (a loop whose first
	// assistant message lost its leading thinking is refused while
	// thinking is on). A transport whose API has no such rule translates
	// the request with it: the upstream goes on thinking, and its
	// reasoning on being carried.
	ThinkingOff []byte
	// Facts are what was learned or declared of the target backend's
	// model (see registry.Capability): those of them that only a
	// translation can honor (a summary it must not ask for, the name of
	// the output cap) are the transport's to apply.
	Facts registry.Capability
}

// key is the context key of With.
type key struct{}

// With returns ctx carrying h.
func With(ctx context.Context, h Request) context.Context {
	return context.WithValue(ctx, key{}, h)
}

// From returns the hand-off With put in ctx, or the zero Request.
func From(ctx context.Context) Request {
	h, _ := ctx.Value(key{}).(Request)
	return h
}
