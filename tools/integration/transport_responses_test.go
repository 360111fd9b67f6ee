package integration

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/tools/llmtest"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/tools/transporttest"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/transport"
)

// TestResponsesRoundTrip: a tool loop through transport responses, the
// first turn whole, the second streamed: the reasoning item rides in the
// thinking block's envelope and goes back before the call it led to,
// which the strict mock checks (its encrypted content, its organization,
// its following item).
func TestResponsesRoundTrip(t *testing.T) {
	up := llmtest.NewResponsesUpstream("oa")
	defer up.Close()
	up.RequireKey("sk-oa")
	r := &transport.Responses{Models: transport.Models{{Match: "claude-*", Model: "gpt-5"}}, APIKey: "sk-oa", SigningKey: "test secret"}
	transporttest.Provision(t, r)

	m, body := startToolLoop(t, r, up.URL()+"/v1/messages?beta=true", up)
	if len(m.Content) != 2 || m.Content[0].Type != "thinking" || m.Content[0].Thinking != up.Summary(1) ||
		!strings.HasPrefix(m.Content[0].Signature, "llmthinking.v1.reasoning.responses.t") ||
		m.Content[1].Type != "tool_use" || m.Content[1].Name != "Bash" || m.StopReason != "tool_use" || m.Model != "claude-sonnet-4-5" {
		t.Fatalf("answer: %s", body)
	}
	got := up.Requests()[0]
	if got.Path != "/v1/responses" || got.RawQuery != "" || got.Header.Get("Authorization") != "Bearer sk-oa" ||
		got.Header.Get("X-Api-Key") != "" || got.Header.Get("Anthropic-Beta") != "" {
		t.Fatalf("upstream got %s?%s with %v", got.Path, got.RawQuery, got.Header)
	}

	resp, body := transporttest.Post(t, r, up.URL()+"/v1/messages", toolLoopResult(m.Content, m.Content[1].ID))
	if resp.StatusCode != 200 || !strings.Contains(body, "event: message_stop") || streamedText(body) != "oa answer 2." {
		t.Fatalf("second turn: %d %s\nupstream: %s", resp.StatusCode, body, up.Requests()[1].ErrorMessage)
	}
	if back := up.ReasoningBack(1); !slices.Equal(back, []string{"rs_oa_1"}) {
		t.Fatalf("reasoning back: %v in %s", back, up.Requests()[1].Body)
	}

	// Without thinking (a title, say), the model still reasons, but its
	// item carries nothing that could go back: no block.
	resp, body = transporttest.Post(t, r, up.URL()+"/v1/messages", `{"model":"claude-haiku-4-5","max_tokens":100,"messages":[{"role":"user","content":"a title"}]}`)
	if err := json.Unmarshal([]byte(body), &m); err != nil || resp.StatusCode != 200 || len(m.Content) != 1 || m.Content[0].Text != "oa answer 3." {
		t.Fatalf("without thinking: %d %s", resp.StatusCode, body)
	}
	if sent := string(up.Requests()[2].Body); strings.Contains(sent, `"reasoning"`) || strings.Contains(sent, `"include"`) {
		t.Fatalf("without thinking, the request asked for reasoning: %s", sent)
	}
}

// streamedText returns the text of a Messages stream's text deltas.
func streamedText(stream string) string {
	var text strings.Builder
	for _, line := range strings.Split(stream, "\n") {
		data, ok := strings.CutPrefix(line, "data: ")
		var ev struct {
			Delta struct{ Type, Text string }
		}
		if ok && json.Unmarshal([]byte(data), &ev) == nil && ev.Delta.Type == "text_delta" {
			text.WriteString(ev.Delta.Text)
		}
	}
	return text.String()
}
