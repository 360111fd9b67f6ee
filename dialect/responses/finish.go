package responses

import (
	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/jsonscan"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/messagesapi"
)

// stopReason returns the Messages stop reason of a response: tool_use
// when it called tools, max_tokens or refusal when it is incomplete for
// its output limit or a content filter, else end_turn.
func stopReason(resp jsonscan.Value, calls int) string {
	if resp.Get("status").Is("incomplete") {
		switch reason := resp.Get("incomplete_details", "reason"); {
		case reason.Is("max_output_tokens"):
			return "max_tokens"
		case reason.Is("content_filter"):
			return "refusal"
		}
	}
	if calls > 0 {
		return "tool_use"
	}
	return "end_turn"
}

// usageOf returns the Messages usage of a response's usage: the input
// less what was read from the cache, that as cache_read_input_tokens, the
// output (reasoning included, as OpenAI counts it); estimate when the
// upstream counted no input.
func usageOf(u jsonscan.Value, estimate int) messagesapi.Usage {
	in := int(u.Get("input_tokens").Int())
	cached := int(u.Get("input_tokens_details", "cached_tokens").Int())
	cached = min(max(cached, 0), max(in, 0))
	out := messagesapi.Usage{Input: in - cached, CacheRead: cached, Output: int(u.Get("output_tokens").Int())}
	if in <= 0 {
		out.Input, out.CacheRead = estimate, 0
	}
	return out
}

// messageID returns the id of the message of a response id: its own, when
// it can be one.
func messageID(id jsonscan.Value) []byte {
	if id.Kind() == jsonscan.String && plainID(id[1:len(id)-1]) {
		return id[1 : len(id)-1]
	}
	return []byte("responses")
}
