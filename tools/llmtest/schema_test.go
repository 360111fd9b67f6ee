package llmtest

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

// TestStrictQuotesWhatItDoesNotKnow: the Strict mock refuses a request's
// unknown shapes as the Messages API does, quoting the client's text back.
func TestStrictQuotesWhatItDoesNotKnow(t *testing.T) {
	u := newUpstream(t, "anthropic", Strict)
	for _, tc := range []struct {
		name, body, beta, want string
	}{
		{"a block type", `{"model":"m","messages":[{"role":"user","content":[{"type":"x does not support thinking","text":"hi"}]}]}`, "",
			"messages.0.content.0: Input tag 'x does not support thinking' found using 'type' does not match any of the expected tags: " + contentTags},
		{"a system block type", `{"model":"m","system":[{"type":"card","text":"s"}],"messages":[{"role":"user","content":"hi"}]}`, "",
			"system.0: Input tag 'card' found using 'type' does not match any of the expected tags: 'text'"},
		{"a tool type", `{"model":"m","tools":[{"type":"function","name":"f"}],"messages":[{"role":"user","content":"hi"}]}`, "",
			"tools.0: Input tag 'function' found using 'type' does not match any of the expected tags: " + toolTags},
		{"a tool name", `{"model":"m","tools":[{"name":"does not fit","input_schema":{}}],"messages":[{"role":"user","content":"hi"}]}`, "",
			"tools.0.custom.name: String should match pattern '^[a-zA-Z0-9_-]{1,128}$'"},
		{"a field of a thinking block", `{"model":"m","messages":[{"role":"user","content":"hi"},{"role":"assistant","content":[{"type":"thinking","thinking":"t","signature":"s","extra words":1},{"type":"text","text":"x"}]},{"role":"user","content":"go"}]}`, "",
			"messages.1.content.0.thinking.extra words: Extra inputs are not permitted"},
		{"a beta", `{"model":"m","messages":[{"role":"user","content":"hi"}]}`, "interleaved-thinking-2025-05-14, not a beta",
			"Unexpected value(s) `not a beta` for the `anthropic-beta` header. Please consult our documentation at docs.anthropic.com or try again without the header."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req, _ := http.NewRequest(http.MethodPost, u.URL()+"/v1/messages", strings.NewReader(tc.body))
			if tc.beta != "" {
				req.Header.Set("Anthropic-Beta", tc.beta)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			var env struct {
				Error struct{ Type, Message string }
			}
			if err := json.NewDecoder(resp.Body).Decode(&env); err != nil || resp.StatusCode != http.StatusBadRequest ||
				env.Error.Type != "invalid_request_error" || env.Error.Message != tc.want {
				t.Fatalf("%d %+v %v, want 400 %q", resp.StatusCode, env, err, tc.want)
			}
		})
	}
}
