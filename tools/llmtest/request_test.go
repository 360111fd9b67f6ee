package llmtest

import "testing"

func TestScriptText(t *testing.T) {
	tests := []struct {
		name, body, want string
	}{
		{"string content", `{"messages":[{"role":"user","content":"x [tool]"}]}`, "x [tool]"},
		{"text blocks", `{"messages":[{"role":"user","content":[{"type":"text","text":"a"},{"type":"image"},{"type":"text","text":"b"}]}]}`, "a\n\nb\n"},
		{"tool_result string", `{"messages":[{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":"[redacted]"}]}]}`, "[redacted]\n"},
		{"tool_result blocks", `{"messages":[{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":[{"type":"text","text":"[tool]"},{"type":"image"}]}]}]}`, "[tool]\n"},
		{"only the last message", `{"messages":[{"role":"user","content":"[tool]"},{"role":"assistant","content":"ok"}]}`, "ok"},
		{"a trailing system message is not a turn", `{"messages":[{"role":"user","content":"x [tool]"},{"role":"system","content":"env"}]}`, "x [tool]"},
		{"no messages", `{"messages":[]}`, ""},
	}
	for _, tt := range tests {
		req, msg := parseRequest([]byte(tt.body))
		if msg != "" {
			t.Fatalf("%s: %s", tt.name, msg)
		}
		if got := req.scriptText(); got != tt.want {
			t.Errorf("%s: %q, want %q", tt.name, got, tt.want)
		}
	}
}

func TestParseRequestIgnoresWhatItDoesNotKnow(t *testing.T) {
	req, msg := parseRequest([]byte(`{"model":7,"stream":"yes","thinking":[],"context_management":{"edits":"x"},"messages":[{"role":"user","content":{}},{"role":"user","content":[1]},{"role":"assistant","content":[{"type":"thinking","signature":null}]}]}`))
	if msg != "" {
		t.Fatal(msg)
	}
	if req.model != "" || req.stream || req.thinkingOn() || len(req.contextEditTypes) != 0 || len(req.messages) != 3 {
		t.Errorf("request %+v", req)
	}
	if !req.messages[0].empty() || req.messages[1].empty() || req.messages[1].blocks[0].typ != "" {
		t.Errorf("messages %+v", req.messages)
	}
	b := req.messages[2].blocks[0]
	if _, ok := b.str("signature"); ok || !b.has("signature") || b.has("thinking") {
		t.Errorf("block %+v", b)
	}
}
