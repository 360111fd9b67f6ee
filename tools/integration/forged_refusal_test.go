package integration

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/tools/llmtest"
)

// learnedWordings are the refusals the gateway learns a model's facts
// from, as the servers word them (see request/policy/capability.go).
var learnedWordings = []string{
	"thinking is enabled but reasoning_content is missing in assistant tool call message at index 1",
	"The `content[].thinking` in the thinking mode must be passed back to the API.",
	"Missing `reasoning_content` field in the assistant message at message index 1",
	`invalid params, invalid thinking.type: "enabled" (allowed: adaptive, disabled) (2013)`,
	`"thinking.type.enabled" is not supported for this model. Use "thinking.type.adaptive" and "output_config.effort" to control thinking behavior.`,
	"adaptive thinking is not supported on this model",
	`"llama3.2" does not support thinking`,
	"thinking is not supported for this model",
	"thinking: Extra inputs are not permitted",
	"thinking.display: Extra inputs are not permitted",
	"context_management: Extra inputs are not permitted",
	"context_management.edits.0.type: Input tag 'clear_thinking_20251015' found using 'type' does not match any of the expected tags",
	"thinking.type: Input tag 'adaptive' found using 'type' does not match any of the expected tags: 'enabled', 'disabled'",
	"Only 'enabled' and 'disabled' are supported for thinking; 'adaptive' is not supported.",
	"thinking.type: Input should be 'enabled' or 'disabled'",
	"Your organization must be verified to generate reasoning summaries. Please go to: https://platform.openai.com/settings/organization/general and click on Verify Organization.",
	"Thinking level is not supported for this model.",
	"thinking_config is not supported.",
	"Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.",
	"该模型始终思考，不支持关闭思考；请使用 low、high 或 max。",
	"Unsupported value: 'reasoning_effort' does not support 'none' with this model. Supported values are: 'minimal', 'low', 'medium', and 'high'.",
}

// TestAClientCannotTeachTheGatewayForOthers: an attacker sends every
// wording the gateway learns from, where the Messages API quotes it back
// (a block type, a tool's type, a system block's type, a field of a
// thinking block, an anthropic-beta value) or not at all (a tool name, a
// system prompt), on the victim's backend and model. The strict mock
// refuses each as the API does, quoting the attacker's text. Nothing is
// learned, and the victim's next request reaches the backend byte for
// byte as the client sent it.
func TestAClientCannotTeachTheGatewayForOthers(t *testing.T) {
	g := newGateway(t, map[string]llmtest.Flavor{"anthropic": llmtest.Strict}, "anthropic")
	anthropic := g.upstreams["anthropic"]
	ok := okTurns(t)
	victim := g.conversation("victim")
	victim.Model = "claude-sonnet-4-5"
	ok(victim.Say("[tool] list the files"))
	ok(victim.ToolResult("a.go b.go"))
	ok(victim.Say("thanks"))

	const prefix = `{"model":"claude-sonnet-4-5","max_tokens":32000,"thinking":{"type":"enabled","budget_tokens":2048},` +
		`"context_management":{"edits":[{"type":"clear_thinking_20251015","keep":"all"}]},"stream":true,`
	user := `{"role":"user","content":"hi"}`
	vectors := map[string]func(w string) (body string, beta string){
		"block type": func(w string) (string, string) {
			return prefix + `"messages":[{"role":"user","content":[{"type":` + jsonString(w) + `,"text":"x"}]}]}`, ""
		},
		"tool type": func(w string) (string, string) {
			return prefix + `"tools":[{"type":` + jsonString(w) + `,"name":"t","input_schema":{}}],"messages":[` + user + `]}`, ""
		},
		"tool name": func(w string) (string, string) {
			return prefix + `"tools":[{"name":` + jsonString(w) + `,"input_schema":{"type":"object"}}],"messages":[` + user + `]}`, ""
		},
		"system block type": func(w string) (string, string) {
			return prefix + `"system":[{"type":` + jsonString(w) + `,"text":"s"}],"messages":[` + user + `]}`, ""
		},
		"system prompt": func(w string) (string, string) {
			return prefix + `"system":` + jsonString(w) + `,"messages":[` + user + `]}`, ""
		},
		"field of a thinking block": func(w string) (string, string) {
			return prefix + `"messages":[` + user + `,{"role":"assistant","content":[{"type":"thinking","thinking":"t","signature":"c2ln",` +
				jsonString(w) + `:1},{"type":"text","text":"x"}]},{"role":"user","content":"go"}]}`, ""
		},
		"anthropic-beta": func(w string) (string, string) {
			return prefix + `"messages":[` + user + `]}`, "interleaved-thinking-2025-05-14," + w
		},
	}
	before := len(anthropic.Requests())
	attacks := 0
	for name, vector := range vectors {
		for _, w := range learnedWordings {
			body, beta := vector(w)
			// Whatever the attacker gets (the safety net may even repair
			// its request), nobody else's requests may change.
			h := claudeCodeHeaders(t)
			h.Set("X-Claude-Code-Session-Id", "attacker-"+name)
			if beta != "" {
				h.Set("Anthropic-Beta", beta)
			}
			g.send(t, "/v1/messages?beta=true", h, []byte(body))
			attacks++
			if s := g.stats(); s.Learned != 0 {
				t.Fatalf("%s %q taught %+v", name, w, s.Capabilities)
			}
		}
	}
	quoted := 0
	for _, r := range anthropic.Requests()[before:] {
		for _, w := range learnedWordings {
			if r.Status == http.StatusBadRequest && strings.Contains(r.ErrorMessage, w) {
				quoted++
				break
			}
		}
	}
	if quoted < attacks/2 {
		t.Fatalf("the mock quoted the wording back in %d of %d refusals: the test no longer tries what it says", quoted, attacks)
	}

	if s := g.stats(); s.Learned != 0 || len(s.Capabilities) != 0 {
		t.Fatalf("learned from the attacker: %+v", s.Capabilities)
	}
	if events := g.logEvents("thinking.capability_learned"); len(events) != 0 {
		t.Fatalf("capability_learned: %v", events)
	}
	ok(victim.Say("[tool] and the tests?"))
	ok(victim.ToolResult("ok"))
	victim.Messages = append(victim.Messages, json.RawMessage(`{"role":"user","content":[{"type":"text","text":"done"}]}`))
	want := victim.Body()
	ok(victim.Send())
	if got := lastRequest(t, anthropic).Body; !bytes.Equal(got, want) {
		t.Fatalf("the victim's request changed on its way:\n sent %s\n  got %s", want, got)
	}
	if !bytes.Contains(want, []byte(`"thinking":{`)) || !bytes.Contains(want, []byte("context_management")) ||
		!bytes.Contains(want, []byte(`"type":"thinking"`)) {
		t.Fatalf("the victim's request does not ask for what an attack would take away:\n%s", want)
	}
}

// jsonString writes s as a JSON string.
func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
