package llmtest

import "encoding/json"

// ThinkingBlocks returns the thinking and redacted_thinking blocks of the
// assistant messages in msgs, in order, as the exact bytes that stand for
// them, so that a test can tell whether a block reached a backend unchanged.
// Messages that are not JSON objects with a content array are passed over.
func ThinkingBlocks(msgs []json.RawMessage) []json.RawMessage {
	var out []json.RawMessage
	for _, raw := range msgs {
		var m struct {
			Role    string            `json:"role"`
			Content []json.RawMessage `json:"content"`
		}
		if json.Unmarshal(raw, &m) != nil || m.Role != "assistant" {
			continue
		}
		for _, b := range m.Content {
			var typed struct {
				Type string `json:"type"`
			}
			json.Unmarshal(b, &typed)
			if isThinking(typed.Type) {
				out = append(out, b)
			}
		}
	}
	return out
}

// RequestThinkingBlocks is ThinkingBlocks of a request body's messages.
func RequestThinkingBlocks(body []byte) ([]json.RawMessage, error) {
	var req struct {
		Messages []json.RawMessage `json:"messages"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		return nil, err
	}
	return ThinkingBlocks(req.Messages), nil
}
