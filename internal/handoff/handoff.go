// Package handoff is what llm_thinking tells the reverse_proxy transports
// of this module about a request it passes on, in the request's context:
// what it took out of the body only for the Messages API's sake, and what
// is known of the target backend's model. A transport that speaks another
// API shapes its translation with it; a request without a hand-off (no
// llm_thinking in front) is translated as it is.
//
// It is the one place the handler and the transports meet: the handler
// passes a request on with Pass, a transport reads it back with From. The
// hand-off also carries the request's account in the memory budget and
// the body the handler read (budget.Carried), so that a transport borrows
// those bytes instead of reading a second copy.
//
// The package holds no state and must never import the transports.
package handoff

import (
	"context"
	"net/http"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/state/budget"
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
	// Memory is the request's account and the body the handler read, set
	// by Pass; nil when no body was carried.
	Memory *budget.Carried
}

// key is the context key of Pass.
type key struct{}

// Pass returns a copy of r to pass on to reverse_proxy, carrying h in its
// context. With a body, it is the copy's body (see budget.Carry), and the
// account t and body are h's Memory.
func Pass(r *http.Request, h Request, t *budget.Ticket, body *budget.Body) *http.Request {
	carried := &h
	r = r.WithContext(context.WithValue(r.Context(), key{}, carried))
	if body != nil {
		carried.Memory = budget.Carry(r, t, body)
	}
	return r
}

// From returns the hand-off Pass put in ctx, or the zero Request.
func From(ctx context.Context) Request {
	if h, ok := ctx.Value(key{}).(*Request); ok {
		return *h
	}
	return Request{}
}
