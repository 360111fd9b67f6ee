package messagesapi

import "github.com/caddy-llm-thinking/caddy-llm-thinking/internal/jsonscan"

// Bytes per token and tokens per image of the estimate.
const (
	bytesPerToken  = 4
	tokensPerImage = 1600
)

// Estimate estimates the input tokens of a Messages request from its
// system prompt, tools and messages: the bytes of its text (system prompt,
// messages' text, reasoning, tool inputs and results, tool definitions)
// over four, plus a flat count per image. It is an estimate, not a
// tokenizer's count: the upstreams of the translations have no
// count_tokens endpoint, or count no Claude tokens, and Claude Code only
// needs the order of magnitude for its context meter. The lengths of the
// string literals stand for the strings' bytes: escapes count a little
// more, which an estimate can afford.
func Estimate(system, tools, messages jsonscan.Value) int {
	n := len(system) + len(tools)
	images := 0
	var name [32]byte
	for m := range messages.Elements() {
		c := m.Get("content")
		if c.Kind() == jsonscan.String {
			n += len(c) - 2
			continue
		}
		for b := range c.Elements() {
			switch string(b.Get("type").Name(&name)) {
			case "text":
				n += len(b.Get("text"))
			case "thinking":
				n += len(b.Get("thinking"))
			case "tool_use":
				n += len(b.Get("input")) + len(b.Get("name"))
			case "tool_result":
				n += len(b.Get("content"))
			case "image":
				images++
			}
		}
	}
	return max(1, n/bytesPerToken+images*tokensPerImage)
}
