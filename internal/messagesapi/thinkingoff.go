package messagesapi

import "context"

// thinkingOffKey is the context key of WithThinkingOff.
type thinkingOffKey struct{}

// WithThinkingOff returns ctx carrying a request's thinking config that
// llm_thinking took out of its body only for the Messages API's rule on
// tool loops (a loop whose first assistant message lost its leading
// thinking is refused while thinking is on). A transport that speaks
// another API, which has no such rule, translates the request with it:
// the upstream goes on thinking, and its reasoning on being carried.
func WithThinkingOff(ctx context.Context, config []byte) context.Context {
	return context.WithValue(ctx, thinkingOffKey{}, config)
}

// ThinkingOff returns the thinking config WithThinkingOff put in ctx, or
// nil.
func ThinkingOff(ctx context.Context) []byte {
	b, _ := ctx.Value(thinkingOffKey{}).([]byte)
	return b
}
