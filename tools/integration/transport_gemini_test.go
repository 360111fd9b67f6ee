package integration

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/tools/llmtest"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/tools/transporttest"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/transport"
)

// TestGeminiRoundTrip: a tool loop through transport gemini, not
// streamed: the call's signature rides in a thinking block before the
// tool_use, and goes back on the call, which Gemini checks.
func TestGeminiRoundTrip(t *testing.T) {
	up := llmtest.NewGeminiUpstream("gem")
	defer up.Close()
	up.RequireKey("gk-test")
	g := &transport.Gemini{Models: transport.Models{{Match: "claude-*", Model: "gemini-3-pro-preview"}}, APIKey: "gk-test", SigningKey: "test secret"}
	transporttest.Provision(t, g)

	m, body := startToolLoop(t, g, up.URL()+"/v1/messages?beta=true", up)
	if len(m.Content) != 3 || m.Content[0].Type != "thinking" || m.Content[0].Thinking != up.Thought(1) ||
		m.Content[1].Type != "thinking" || m.Content[1].Thinking != "" || !strings.HasPrefix(m.Content[1].Signature, "llmthinking.v1.reasoning.gemini.n") ||
		m.Content[2].Type != "tool_use" || m.Content[2].Name != "Bash" || string(m.Content[2].Input) != `{"command":"echo gem 0"}` ||
		m.StopReason != "tool_use" || m.Model != "claude-sonnet-4-5" {
		t.Fatalf("answer: %s", body)
	}
	got := up.Requests()[0]
	if got.Path != "/v1beta/models/gemini-3-pro-preview:generateContent" || got.Header.Get("X-Goog-Api-Key") != "gk-test" || got.Header.Get("X-Api-Key") != "" {
		t.Fatalf("upstream got %s with %v", got.Path, got.Header)
	}

	resp, body := transporttest.Post(t, g, up.URL()+"/v1/messages", toolLoopResult(m.Content, m.Content[2].ID))
	if resp.StatusCode != 200 || !strings.Contains(body, "event: message_stop") || !strings.Contains(body, `"text":"gem an`) {
		t.Fatalf("second turn: %d %s\nupstream: %s", resp.StatusCode, body, up.Requests()[1].ErrorMessage)
	}
	var sent struct {
		Contents []struct {
			Parts []map[string]json.RawMessage `json:"parts"`
		} `json:"contents"`
	}
	if err := json.Unmarshal(up.Requests()[1].Body, &sent); err != nil || len(sent.Contents) != 3 {
		t.Fatalf("second request: %s", up.Requests()[1].Body)
	}
	call := sent.Contents[1].Parts
	var sig string
	json.Unmarshal(call[0]["thoughtSignature"], &sig)
	if len(call) != 1 || call[0]["functionCall"] == nil || up.Signatures()[sig] != "call Bash" {
		t.Fatalf("the call went back as %s", up.Requests()[1].Body)
	}
}
