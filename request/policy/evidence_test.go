package policy

import (
	"net/http"
	"strings"
	"testing"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/state/registry"
)

// TestEvidenceIsTheServersOwnWords: a wording counts where the server says
// it, never where it quotes back what the request carried.
func TestEvidenceIsTheServersOwnWords(t *testing.T) {
	const plain = `{"model":"m","messages":[{"role":"user","content":"hi"}],"thinking":{"type":"adaptive"},"context_management":{"edits":[{"type":"clear_thinking_20251015"}]}}`
	withType := func(typ string) string {
		return `{"model":"m","messages":[{"role":"user","content":[{"type":` + quoteJSON(typ) + `,"text":"x"}]}]}`
	}
	withKey := func(key string) string {
		return `{"model":"m","messages":[{"role":"user","content":[{"type":"thinking","thinking":"","signature":"s",` + quoteJSON(key) + `:1}]}]}`
	}
	for _, tc := range []struct {
		name, msg, body string
		header          http.Header
		want            registry.Capability
	}{
		// What servers say of themselves, with the request's own values
		// quoted inside their sentences.
		{"Ollama names the model", `"llama3.2" does not support thinking`, `{"model":"llama3.2","messages":[]}`, nil, registry.CannotThink},
		{"the tag the request sent", "thinking.type: Input tag 'adaptive' found using 'type' does not match any of the expected tags: 'enabled', 'disabled'", plain, nil, registry.NoAdaptiveThinking},
		{"the edit the request sent", "context_management.edits.0.type: Input tag 'clear_thinking_20251015' found using 'type' does not match any of the expected tags", plain, nil, registry.NoClearThinking},
		{"a field the server does not know", "context_management: Extra inputs are not permitted", plain, nil, registry.NoContextManagement},
		{"FastAPI's detail", "thinking.type: Input should be 'enabled' or 'disabled'", plain, nil, registry.NoAdaptiveThinking},
		{"a conversation about this very gateway", `"qwen3" does not support thinking`,
			`{"model":"qwen3","messages":[{"role":"user","content":"why does the log say \"llama3.2\" does not support thinking?"}]}`, nil, registry.CannotThink},

		// What a client wrote and the server quoted back.
		{"a block type", "messages.0.content.0: Input tag 'x does not support thinking' found using 'type' does not match any of the expected tags: 'text', 'image'",
			withType("x does not support thinking"), nil, 0},
		{"a block type that is the wording", "messages.0.content.0: Input tag 'reasoning_content is missing' found using 'type' does not match any of the expected tags",
			withType("reasoning_content is missing"), nil, 0},
		{"a tool's type", "tools.0: Input tag '\"thinking.type.enabled\" is not supported' found using 'type' does not match any of the expected tags: 'custom'",
			`{"tools":[{"type":"\"thinking.type.enabled\" is not supported","name":"t"}]}`, nil, 0},
		{"a field of a block of the client's", "messages.0.content.0.thinking.does not support thinking: Extra inputs are not permitted",
			withKey("does not support thinking"), nil, 0},
		{"a field named as the config, deeper down", "messages.0.content.0.text.thinking: Extra inputs are not permitted",
			`{"messages":[{"role":"user","content":[{"type":"text","text":"x","thinking":1}]}]}`, nil, 0},
		{"a beta header", "Unexpected value(s) `Only 'enabled' and 'disabled' are supported for thinking; 'adaptive' is not supported` for the `anthropic-beta` header.",
			plain, http.Header{"Anthropic-Beta": {"Only 'enabled' and 'disabled' are supported for thinking; 'adaptive' is not supported"}}, 0},
		{"a quotation cut short", "messages.0.content.0: Input tag 'x: thinking is not supported, and more...' found using 'type'",
			withType("x: thinking is not supported, and more " + strings.Repeat("y", 300)), nil, 0},
		{"an escaped value", "messages.0.content.0: Input tag 'a\"b does not support thinking' found using 'type'",
			withType(`a"b does not support thinking`), nil, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := refusalFacts(newEvidence(tc.msg, []byte(tc.body), tc.header)); got != tc.want {
				t.Errorf("learned %v, want %v", got, tc.want)
			}
		})
	}
}

// quoteJSON writes s as a JSON string.
func quoteJSON(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + `"`
}

// TestAReplayRefusedAgainConfirmsNothing: the facts a refusal says apply
// to its replay only, and to other requests once Confirm records them.
func TestAReplayRefusedAgainConfirmsNothing(t *testing.T) {
	p := newPolicy()
	req := Request{Body: loopBody("m", "g1"), Header: session("s1"), Backend: "b"}
	first := p.Plan(req)
	replay := p.Replay(req, Refusal{Backend: "b", Message: "context_management: Extra inputs are not permitted", Sent: first.Body})
	if replay.Learned.Facts != registry.NoContextManagement || strings.Contains(string(replay.Body), "context_management") {
		t.Fatalf("the replay: %+v\n%s", replay.Learned, replay.Body)
	}
	// The replay was refused too: nothing is confirmed.
	other := p.Plan(Request{Body: loopBody("m", "g2"), Header: session("s2"), Backend: "b"})
	if !strings.Contains(string(other.Body), "context_management") || other.Facts != 0 {
		t.Fatalf("another client's request changed: %v\n%s", other.Facts, other.Body)
	}
	if got := p.Registry.Capabilities("b", "m"); got != 0 {
		t.Fatalf("the registry learned %v", got)
	}
}
