package policy

import (
	"strings"
	"testing"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/block"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/state/registry"
)

// TestCapabilityRefusals matches each refusal the policy learns from, as
// the server it comes from words it, and leaves every other 400 alone.
func TestCapabilityRefusals(t *testing.T) {
	for _, tc := range []struct {
		server, msg string
		facts       registry.Capability
	}{
		{"Ollama", `"llama3.2" does not support thinking`, registry.CannotThink},
		{"a server with no thinking model", "thinking is not supported for this model", registry.CannotThink},
		{"a pydantic server without thinking", "thinking: Extra inputs are not permitted", registry.CannotThink},
		{"a pydantic server without display", "thinking.display: Extra inputs are not permitted", registry.NoThinkingDisplay},
		{"a server without context management", "context_management: Extra inputs are not permitted", registry.NoContextManagement},
		{"a server with other context edits", "context_management.edits.0.type: Input tag 'clear_thinking_20251015' found using 'type' does not match any of the expected tags: 'clear_tool_uses_20250919'", registry.NoClearThinking},
		{"a server without adaptive thinking", "thinking.type: Input tag 'adaptive' found using 'type' does not match any of the expected tags: 'enabled', 'disabled'", registry.NoAdaptiveThinking},
		{"a Qwen server without adaptive thinking", "Only 'enabled' and 'disabled' are supported for thinking; 'adaptive' is not supported.", registry.NoAdaptiveThinking},
		{"an older Claude model", "adaptive thinking is not supported on this model", registry.NoAdaptiveThinking},
		{"OpenAI, an organization that is not verified", "Your organization must be verified to generate reasoning summaries. Please go to: https://platform.openai.com/settings/organization/general and click on Verify Organization. If you just verified, it can take up to 15 minutes for access to propagate.", registry.NoReasoningSummary},
		{"a Gemini model without thinkingLevel", "Thinking level is not supported for this model.", registry.NoThinkingLevel},
		{"a Gemini 2.0 model", "thinking_config is not supported.", registry.CannotThink},
		{"OpenAI's reasoning models", "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.", registry.MaxCompletionTokens},
		{"GLM-5.3", "该模型始终思考，不支持关闭思考；请使用 low、high 或 max。", registry.AlwaysThinks},
		{"a model without effort none", "Unsupported value: 'reasoning_effort' does not support 'none' with this model. Supported values are: 'minimal', 'low', 'medium', and 'high'.", registry.AlwaysThinks},
		{"a FastAPI server without adaptive thinking", "thinking.type: Input should be 'enabled' or 'disabled'", registry.NoAdaptiveThinking},
		{"the newest Claude models", "\"thinking.type.enabled\" is not supported for this model. Use \"thinking.type.adaptive\" and \"output_config.effort\" to control thinking behavior.", registry.NoEnabledThinking},
		{"MiniMax M3", `invalid params, invalid thinking.type: "enabled" (allowed: adaptive, disabled) (2013)`, registry.NoEnabledThinking},
		{"Kimi", "thinking is enabled but reasoning_content is missing in assistant tool call message at index 3", registry.ThinkingBackOnToolCalls},
		{"a Kimi-like server that names no tool call", "thinking is enabled but reasoning_content is missing in assistant message at index 3", registry.ThinkingBackEverywhere},
		{"DeepSeek V4 on its Anthropic endpoint", "The `content[].thinking` in the thinking mode must be passed back to the API.", registry.ThinkingBackEverywhere},
		{"DeepSeek V4 on chat completions", "The `reasoning_content` in the thinking mode must be passed back to the API.", registry.ThinkingBackEverywhere},
		{"an older DeepSeek server", "Missing `reasoning_content` field in the assistant message at message index 1", registry.ThinkingBackEverywhere},
	} {
		if got := refusalFacts(newEvidence(tc.msg, nil, nil)); got != tc.facts {
			t.Errorf("%s: %q learns %v, want %v", tc.server, tc.msg, got, tc.facts)
		}
		// As an Anthropic envelope, and as another gateway wraps it.
		for _, body := range [][]byte{
			envelope("invalid_request_error", tc.msg),
			[]byte(`{"error":{"message":` + quote(tc.msg) + `,"type":"None","param":"None","code":"400"}}`),
		} {
			if got, ok := RefusalMessage(body); !ok || got != tc.msg {
				t.Errorf("%s: %s is not taken for a refusal", tc.server, body)
			}
		}
	}
	for _, msg := range []string{
		"max_tokens: Extra inputs are not permitted",
		"model: field required",
		"messages.0.content: Input should be a valid list",
	} {
		if refusalFacts(newEvidence(msg, nil, nil)) != 0 {
			t.Errorf("%q learns %v", msg, refusalFacts(newEvidence(msg, nil, nil)))
		}
		if _, ok := RefusalMessage([]byte(`{"error":{"message":` + quote(msg) + `}}`)); ok {
			t.Errorf("%q in a foreign envelope is taken for a thinking refusal", msg)
		}
	}
	// A clear_thinking edit sent with thinking off is the request's fault,
	// not the backend's: replayed, never learned.
	if msg := "`clear_thinking_20251015` strategy requires `thinking` to be enabled"; refusalFacts(newEvidence(msg, nil, nil)) != 0 {
		t.Errorf("%q learns %v", msg, refusalFacts(newEvidence(msg, nil, nil)))
	}
}

func quote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"', '\\':
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	b.WriteByte('"')
	return b.String()
}

// loopBody is a tool loop on model with thinking on and Claude Code's
// context edit.
func loopBody(model string, sigs ...string) []byte {
	var msgs []string
	msgs = append(msgs, `{"role":"user","content":"do it"}`)
	for i, s := range sigs {
		msgs = append(msgs, `{"role":"assistant","content":[`+thinkingBlock(s)+`,{"type":"tool_use","id":"t`+string(rune('0'+i))+`","name":"Bash","input":{}}]}`,
			`{"role":"user","content":[{"type":"tool_result","tool_use_id":"t`+string(rune('0'+i))+`","content":"ok"}]}`)
	}
	return []byte(`{"model":"` + model + `","messages":[` + strings.Join(msgs, ",") +
		`],"thinking":{"type":"enabled","budget_tokens":2000,"display":"omitted"},"context_management":{"edits":[{"type":"clear_thinking_20251015","keep":"all"}]},"stream":true}`)
}

func TestARefusalOfThinkingIsLearnedOnce(t *testing.T) {
	p := newPolicy()
	req := Request{Body: loopBody("llama3.2", "g1"), Header: session("s1"), Backend: "ollama"}
	first := p.Plan(req)
	if !first.ThinkingCapable || first.Result.Changed() {
		t.Fatalf("before any refusal: %+v", first.Result)
	}
	refusal := Refusal{Backend: "ollama", Message: `"llama3.2" does not support thinking`, Sent: first.Body}
	replay := p.Replay(req, refusal)
	if replay.Learned.Facts != registry.CannotThink || replay.Learned.Backend != "ollama" || replay.Learned.Model != "llama3.2" || replay.Learned.Why != refusal.Message {
		t.Fatalf("learned %+v", replay.Learned)
	}
	for _, gone := range []string{`"thinking":{`, "context_management", `"g1"`} {
		if strings.Contains(string(replay.Body), gone) {
			t.Fatalf("the replay still sends %s:\n%s", gone, replay.Body)
		}
	}
	// Nothing is learned before the replay succeeded: until then, another
	// client's requests go as they did.
	if other := p.Plan(Request{Body: loopBody("llama3.2", "z1"), Header: session("s9"), Backend: "ollama"}); !other.ThinkingCapable || other.Result.Changed() {
		t.Fatalf("before the replay succeeded: capable %v, %+v", other.ThinkingCapable, other.Result)
	}
	if l := p.Confirm(replay.Learned); l.Facts != registry.CannotThink {
		t.Fatalf("confirmed %+v", l)
	}
	// From the next request on, nothing to refuse.
	next := p.Plan(Request{Body: loopBody("llama3.2", "g1", "g2"), Header: session("s1"), Backend: "ollama"})
	if next.ThinkingCapable || !next.Result.DroppedThinkingConfig || next.Result.Stripped != 2 || strings.Contains(string(next.Body), `"thinking":{`) {
		t.Fatalf("the next request: capable %v, %+v\n%s", next.ThinkingCapable, next.Result, next.Body)
	}
	// Another model of the same backend is left alone.
	if other := p.Plan(Request{Body: loopBody("qwen3", "g1"), Header: session("s2"), Backend: "ollama"}); !other.ThinkingCapable || other.Result.Omitted != 0 {
		t.Fatalf("another model: %+v", other.Result)
	}
	// An answer with thinking from that model reverses it.
	if l := p.Register(next.Thread, "ollama", "llama3.2", []block.Observed{{Kind: block.Thinking, Key: keyOf("o1")}}); l.Facts != registry.Thinks {
		t.Fatalf("learned %+v from an answer with thinking", l)
	}
	if again := p.Plan(Request{Body: loopBody("llama3.2", "o1"), Header: session("s3"), Backend: "ollama"}); !again.ThinkingCapable || again.Result.Changed() {
		t.Fatalf("after the model thought: capable %v, %+v", again.ThinkingCapable, again.Result)
	}
	if s := p.Registry.Stats(); s.Retries != 1 || s.Refusals != 0 {
		t.Fatalf("stats %+v: a refusal of the model is not a refusal of blocks", s)
	}
}

func TestARefusedFieldIsLeftOutFromThenOn(t *testing.T) {
	for _, tc := range []struct {
		msg  string
		gone string
		kept []string
	}{
		{"context_management: Extra inputs are not permitted", "context_management", []string{`"thinking":{`, thinkingBlock("a1")}},
		{"context_management.edits.0.type: Input tag 'clear_thinking_20251015' found using 'type' does not match any of the expected tags", "clear_thinking", []string{`"thinking":{`, thinkingBlock("a1")}},
		{"thinking.display: Extra inputs are not permitted", `"display"`, []string{`"thinking":{`, "context_management", thinkingBlock("a1")}},
	} {
		p := newPolicy()
		p.Plan(Request{Body: loopBody("qwen3"), Header: session("s1"), Backend: "vllm"})
		p.Register(0, "vllm", "qwen3", []block.Observed{{Kind: block.Thinking, Key: keyOf("a1")}})
		req := Request{Body: loopBody("qwen3", "a1"), Header: session("s1"), Backend: "vllm"}
		first := p.Plan(req)
		replay := p.Replay(req, Refusal{Backend: "vllm", Message: tc.msg, Sent: first.Body})
		p.Confirm(replay.Learned)
		for _, b := range []Plan{replay, p.Plan(Request{Body: loopBody("qwen3", "a1", "a2"), Header: session("s1"), Backend: "vllm"})} {
			if strings.Contains(string(b.Body), tc.gone) {
				t.Fatalf("%q: %s still sent:\n%s", tc.msg, tc.gone, b.Body)
			}
			for _, k := range tc.kept {
				if !strings.Contains(string(b.Body), k) {
					t.Fatalf("%q: %s lost:\n%s", tc.msg, k, b.Body)
				}
			}
		}
	}
}

func TestAdaptiveThinkingRefusedGoesEnabled(t *testing.T) {
	p := newPolicy()
	adaptiveBody := []byte(`{"model":"glm-4.6","messages":[{"role":"user","content":"hi"}],"thinking":{"type":"adaptive"},"stream":true}`)
	req := Request{Body: adaptiveBody, Header: session("s1"), Backend: "glm"}
	first := p.Plan(req)
	replay := p.Replay(req, Refusal{Backend: "glm", Message: "thinking.type: Input tag 'adaptive' found using 'type' does not match any of the expected tags", Sent: first.Body})
	p.Confirm(replay.Learned)
	if !strings.Contains(string(replay.Body), `"thinking":{"type":"enabled","budget_tokens":31999}`) || replay.Learned.Facts != registry.NoAdaptiveThinking {
		t.Fatalf("replay %+v:\n%s", replay.Learned, replay.Body)
	}
	// Enabled thinking still goes to that model as it was asked.
	enabled := []byte(`{"model":"glm-4.6","messages":[{"role":"user","content":"hi"}],"thinking":{"type":"enabled","budget_tokens":2000},"stream":true}`)
	if pl := p.Plan(Request{Body: enabled, Header: session("s1"), Backend: "glm"}); pl.Result.Changed() {
		t.Fatalf("enabled thinking was changed: %+v\n%s", pl.Result, pl.Body)
	}
}
