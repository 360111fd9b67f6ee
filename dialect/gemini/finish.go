package gemini

import (
	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/jsonscan"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/messagesapi"
)

// stopReason maps Gemini's finishReason to the Messages stop_reason. Gemini
// says STOP after function calls too: an answer that made calls stops for
// them. blocked says the prompt was blocked (no candidate).
func stopReason(finish []byte, calls int, blocked bool) string {
	switch string(finish) {
	case "MAX_TOKENS":
		return "max_tokens"
	case "SAFETY", "RECITATION", "LANGUAGE", "BLOCKLIST", "PROHIBITED_CONTENT", "SPII",
		"IMAGE_SAFETY", "IMAGE_PROHIBITED_CONTENT", "IMAGE_RECITATION":
		return "refusal"
	}
	switch {
	case blocked:
		return "refusal"
	case calls > 0:
		return "tool_use"
	}
	return "end_turn"
}

// usage is Gemini's usageMetadata, the last one seen.
type usage struct {
	prompt, candidates, thoughts, cached int64
	seen                                 bool
}

// read takes the counts of a usageMetadata object.
func (u *usage) read(v jsonscan.Value) {
	if v.Kind() != jsonscan.Object {
		return
	}
	u.seen = true
	u.prompt = v.Get("promptTokenCount").Int()
	u.candidates = v.Get("candidatesTokenCount").Int()
	u.thoughts = v.Get("thoughtsTokenCount").Int()
	u.cached = v.Get("cachedContentTokenCount").Int()
}

// messages returns the Messages usage: the input less what was read from
// the cache, the output with the thoughts; estimate stands in for an input
// Gemini did not report.
func (u usage) messages(estimate int) messagesapi.Usage {
	prompt := max(u.prompt, 0)
	if !u.seen || prompt == 0 {
		prompt = int64(estimate)
	}
	cached := min(max(u.cached, 0), prompt)
	return messagesapi.Usage{Input: int(prompt - cached), Output: int(max(u.candidates, 0) + max(u.thoughts, 0)), CacheRead: int(cached)}
}
