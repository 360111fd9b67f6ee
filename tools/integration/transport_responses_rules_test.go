package integration

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/handoff"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/state/registry"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/tools/llmtest"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/tools/transporttest"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/transport"
)

// TestResponsesNoSummaryForAnUnverifiedOrganization: the strict mock, for
// an organization OpenAI has not verified, refuses a summary; a request
// whose hand-off says no_reasoning_summary (learned or declared) asks for
// none, still for the encrypted reasoning, and is answered; so is one of
// a transport set to reasoning_summary none.
func TestResponsesNoSummaryForAnUnverifiedOrganization(t *testing.T) {
	up := llmtest.NewResponsesUpstream("oa")
	defer up.Close()
	up.UnverifyOrganization("org-oa")
	body := `{"model":"claude-sonnet-4-5","max_tokens":1000,"thinking":{"type":"enabled","budget_tokens":2000},"messages":[{"role":"user","content":"hi"}]}`
	send := func(r *transport.Responses, facts registry.Capability) (*http.Response, string) {
		req, _ := http.NewRequest(http.MethodPost, up.URL()+"/v1/messages", strings.NewReader(body))
		req = handoff.Pass(req, handoff.Request{Facts: facts}, nil, nil)
		resp, err := r.RoundTrip(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp, string(b)
	}
	r := &transport.Responses{SigningKey: "k"}
	transporttest.Provision(t, r)
	resp, got := send(r, 0)
	if resp.StatusCode != http.StatusBadRequest || !strings.Contains(got, "must be verified to generate reasoning summaries") {
		t.Fatalf("with a summary: %d %s", resp.StatusCode, got)
	}
	for name, tc := range map[string]struct {
		r     *transport.Responses
		facts registry.Capability
	}{
		"learned": {r, registry.NoReasoningSummary},
		"none":    {&transport.Responses{SigningKey: "k", ReasoningSummary: "none"}, 0},
	} {
		if tc.r != r {
			transporttest.Provision(t, tc.r)
		}
		resp, got := send(tc.r, tc.facts)
		var m struct {
			Content []struct{ Type, Thinking, Signature string }
		}
		if resp.StatusCode != http.StatusOK || json.Unmarshal([]byte(got), &m) != nil || len(m.Content) != 2 ||
			m.Content[0].Type != "thinking" || m.Content[0].Thinking != "" || !strings.HasPrefix(m.Content[0].Signature, "llmthinking.v1.reasoning.responses.") {
			t.Fatalf("%s: %d %s", name, resp.StatusCode, got)
		}
		sent := string(up.Requests()[len(up.Requests())-1].Body)
		if !strings.Contains(sent, `"reasoning":{"effort":"low"},"include":["reasoning.encrypted_content"]`) {
			t.Errorf("%s: sent %s", name, sent)
		}
	}
}
