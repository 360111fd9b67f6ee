package messagesapi

import "github.com/caddy-llm-thinking/caddy-llm-thinking/internal/jsonscan"

// Effort returns the effort, low, medium or high, of a request that
// thinks: the one output_config gives (adaptive thinking), else one read
// from the thinking config's budget (up to 4096 low, up to 16384 medium),
// else high, the Messages API's default.
func Effort(thinking, outputConfig jsonscan.Value) string {
	switch e := outputConfig.Get("effort").Str(); e {
	case "low", "medium", "high":
		return e
	}
	budget := thinking.Get("budget_tokens").Int()
	switch {
	case budget == 0:
		return "high"
	case budget < 4096:
		return "low"
	case budget < 16384:
		return "medium"
	}
	return "high"
}

// Thinks reports whether a request's thinking config asks for thinking:
// enabled or adaptive.
func Thinks(thinking jsonscan.Value) bool {
	return thinking.Get("type").Is("enabled") || thinking.Get("type").Is("adaptive")
}
