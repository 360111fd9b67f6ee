package messagesapi

import (
	"errors"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/jsonscan"
)

// ErrNotMessages says a request body is not a Messages request.
var ErrNotMessages = errors.New("not a Messages request: want a JSON object with a messages array")

// Request is a Messages request as the translations into other APIs read
// it: its top-level members, each a slice of the body, absent when the
// body has none. Each field is the member named alike (ToolChoice is
// tool_choice, OutputConfig output_config).
type Request struct {
	Model, Stream, Messages, System, Tools, ToolChoice, MaxTokens, Temperature,
	TopP, TopK, StopSequences, Metadata, Thinking, OutputConfig jsonscan.Value
}

// requestMembers names the members of Request, in its order.
var requestMembers = []string{"model", "stream", "messages", "system", "tools", "tool_choice", "max_tokens", "temperature",
	"top_p", "top_k", "stop_sequences", "metadata", "thinking", "output_config"}

// ReadRequest reads the members of a Messages request body in one walk
// over it: messages is by far the largest, and is passed over once. A
// body that is not a JSON object with a messages array is
// ErrNotMessages. A request without a thinking config gets thinkingOff
// when that is JSON: the config llm_thinking took out of the body only for
// the Messages API's rule on tool loops (see handoff.Pass), so that the
// request thinks as the client said.
func ReadRequest(body, thinkingOff []byte) (Request, error) {
	if !jsonscan.Valid(body) {
		return Request{}, ErrNotMessages
	}
	root := jsonscan.Parse(body)
	var v [14]jsonscan.Value
	root.Pick(requestMembers, v[:])
	r := Request{v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8], v[9], v[10], v[11], v[12], v[13]}
	if root.Kind() != jsonscan.Object || r.Messages.Kind() != jsonscan.Array {
		return Request{}, ErrNotMessages
	}
	if !r.Thinking.Exists() && jsonscan.Valid(thinkingOff) {
		r.Thinking = jsonscan.Value(thinkingOff)
	}
	return r, nil
}

// InputTokens estimates the request's input tokens (see Estimate).
func (r *Request) InputTokens() int {
	return Estimate(r.System, r.Tools, r.Messages)
}

// CappedMaxTokens returns max_tokens, capped at limit when limit is above
// 0: then a max_tokens above it, of 0 or less, or none is limit. Claude
// Code asks for 32000 and more, more than some servers take.
func (r *Request) CappedMaxTokens(limit int) int64 {
	n := r.MaxTokens.Int()
	if c := int64(limit); c > 0 && (n <= 0 || n > c) {
		n = c
	}
	return n
}
