package chatcompletions

// stopReason maps a chat-completions finish_reason to the Messages
// stop_reason. A turn that made tool calls stops for them (some servers
// say "stop"), and one that made none never claims to.
func stopReason(finish []byte, toolCalls bool) string {
	reason := "end_turn"
	switch string(finish) {
	case "length":
		return "max_tokens"
	case "tool_calls", "function_call":
		reason = "tool_use"
	case "content_filter":
		reason = "refusal"
	}
	switch {
	case toolCalls && reason == "end_turn":
		return "tool_use"
	case !toolCalls && reason == "tool_use":
		return "end_turn"
	}
	return reason
}
