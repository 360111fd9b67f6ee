package integration

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/llmtest"
)

// thinkingBlocks returns the raw bytes of every thinking and
// redacted_thinking block in the assistant messages of a request body,
// exactly as they appear in it.
func thinkingBlocks(t *testing.T, body []byte) []json.RawMessage {
	t.Helper()
	var req struct {
		Messages []json.RawMessage `json:"messages"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		t.Fatalf("request body is not JSON: %v", err)
	}
	return blocksOfMessages(t, req.Messages)
}

// historyBlocks returns the thinking blocks of a conversation's history, as
// the client replays them.
func historyBlocks(t *testing.T, c *llmtest.Conversation) []json.RawMessage {
	t.Helper()
	return blocksOfMessages(t, c.Messages)
}

func blocksOfMessages(t *testing.T, msgs []json.RawMessage) []json.RawMessage {
	t.Helper()
	var out []json.RawMessage
	for _, raw := range msgs {
		var m struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		}
		if err := json.Unmarshal(raw, &m); err != nil {
			t.Fatalf("message is not JSON: %v", err)
		}
		var content []json.RawMessage
		if m.Role != "assistant" || json.Unmarshal(m.Content, &content) != nil {
			continue
		}
		for _, b := range content {
			var typed struct {
				Type string `json:"type"`
			}
			json.Unmarshal(b, &typed)
			if typed.Type == "thinking" || typed.Type == "redacted_thinking" {
				out = append(out, b)
			}
		}
	}
	return out
}

// assertBlocks checks that the upstream received exactly want, byte for
// byte and in order.
func assertBlocks(t *testing.T, got, want []json.RawMessage) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("upstream received %d thinking blocks, want %d:\n got %s\nwant %s", len(got), len(want), got, want)
	}
	for i := range want {
		if !bytes.Equal(got[i], want[i]) {
			t.Fatalf("thinking block %d changed on its way:\n got %s\nwant %s", i, got[i], want[i])
		}
	}
}

// topLevel returns the top-level members of a request body.
func topLevel(t *testing.T, body []byte) map[string]json.RawMessage {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal(body, &m); err != nil {
		t.Fatalf("request body is not JSON: %v", err)
	}
	return m
}
