package chatcompletions

import "github.com/tidwall/gjson"

// Bytes per token and tokens per image of the estimate.
const (
	bytesPerToken  = 4
	tokensPerImage = 1600
)

// EstimateTokens estimates the input tokens of a Messages request: the
// bytes of its text (system prompt, messages' text, reasoning, tool inputs
// and results, tool definitions) over four, plus a flat count per image.
// It is an estimate, not a tokenizer's count: chat-completions servers
// have no count_tokens endpoint, and Claude Code only needs the order of
// magnitude for its context meter.
func EstimateTokens(body []byte) int {
	root := gjson.ParseBytes(body)
	return estimate(root, root.Get("messages").Array())
}

// estimate is EstimateTokens of a parsed request and its messages.
func estimate(root gjson.Result, messages []gjson.Result) int {
	n := len(root.Get("system").Raw) + len(root.Get("tools").Raw)
	images := 0
	for _, m := range messages {
		c := m.Get("content")
		if c.Type == gjson.String {
			n += len(c.Str)
			continue
		}
		for _, b := range c.Array() {
			switch b.Get("type").Str {
			case "text":
				n += len(b.Get("text").Str)
			case "thinking":
				n += len(b.Get("thinking").Str)
			case "tool_use":
				n += len(b.Get("input").Raw) + len(b.Get("name").Str)
			case "tool_result":
				n += len(b.Get("content").Raw)
			case "image":
				images++
			}
		}
	}
	return max(1, n/bytesPerToken+images*tokensPerImage)
}
