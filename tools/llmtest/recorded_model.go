package llmtest

import (
	"encoding/json"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/claudecode"
)

// Claude Code records the model an answer names with the assistant message
// and, continuing under another model, drops the thinking of every message
// recorded under a model it does not ask for now. A backend that answers
// under its own name (a gateway mapping claude-* to glm-*) so loses its
// reasoning on every turn; ModelBoundThinking plays that.

// record remembers model as the one history message i was answered under.
func (c *Conversation) record(i int, model string) {
	for len(c.models) <= i {
		c.models = append(c.models, "")
	}
	c.models[i] = model
}

// RecordedModel returns the model the answer that became history message i
// named, or "" for a message the Conversation did not receive as an answer.
// Models are kept by position: a test that rewrites Messages keeps them
// only as long as it keeps the positions.
func (c *Conversation) RecordedModel(i int) string {
	if i < 0 || i >= len(c.models) {
		return ""
	}
	return c.models[i]
}

// answeredByOther reports whether history message i was recorded under
// another model than model.
func (c *Conversation) answeredByOther(i int, model string) bool {
	recorded := c.RecordedModel(i)
	return recorded != "" && recorded != model
}

// withoutThinking returns the message raw without its thinking and
// redacted_thinking blocks, every other block's bytes as they were, or raw
// itself when it holds none.
func withoutThinking(raw json.RawMessage) json.RawMessage {
	var m struct {
		Role    string            `json:"role"`
		Content []json.RawMessage `json:"content"`
	}
	if json.Unmarshal(raw, &m) != nil {
		return raw
	}
	out := claudecode.AppendString([]byte(`{"role":`), m.Role)
	out = append(out, `,"content":[`...)
	kept := 0
	for _, b := range m.Content {
		var typed struct {
			Type string `json:"type"`
		}
		json.Unmarshal(b, &typed)
		if isThinking(typed.Type) {
			continue
		}
		if kept > 0 {
			out = append(out, ',')
		}
		out = append(out, b...)
		kept++
	}
	if kept == len(m.Content) {
		return raw
	}
	return append(out, "]}"...)
}
