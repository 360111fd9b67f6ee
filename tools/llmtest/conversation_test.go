package llmtest

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
)

// wantUserID is metadata.user_id for "session-1"; the device id is
// sha256("session-1").
const wantUserID = `"{\"device_id\":\"84097828fc31a8c8d29210df48901a85de7fd013f686b17be77d1be29cb7a98b\",\"account_uuid\":\"\",\"session_id\":\"session-1\"}"`

func TestConversationBody(t *testing.T) {
	tests := []struct {
		name      string
		configure func(c *Conversation)
		thinking  string
	}{
		{"enabled", func(c *Conversation) {},
			`"thinking":{"budget_tokens":31999,"type":"enabled","display":"omitted"},"context_management":{"edits":[{"type":"clear_thinking_20251015","keep":"all"}]},"stream":true}`},
		{"enabled shown", func(c *Conversation) { c.ShowThinking = true },
			`"thinking":{"budget_tokens":31999,"type":"enabled"},"context_management":{"edits":[{"type":"clear_thinking_20251015","keep":"all"}]},"stream":true}`},
		{"adaptive", func(c *Conversation) { c.Thinking = "adaptive" },
			`"thinking":{"type":"adaptive","display":"omitted"},"context_management":{"edits":[{"type":"clear_thinking_20251015","keep":"all"}]},"output_config":{"effort":"high"},"stream":true}`},
		{"adaptive shown", func(c *Conversation) { c.Thinking, c.ShowThinking = "adaptive", true },
			`"thinking":{"type":"adaptive"},"context_management":{"edits":[{"type":"clear_thinking_20251015","keep":"all"}]},"output_config":{"effort":"high"},"stream":true}`},
		{"disabled, not streaming", func(c *Conversation) { c.Thinking, c.Stream = "disabled", false },
			`"thinking":{"type":"disabled"},"stream":false}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := NewConversation("http://127.0.0.1:1", "session-1")
			tt.configure(c)
			c.Messages = append(c.Messages, json.RawMessage(`{"role":"user","content":"<b>"}`))
			want := `{"model":"claude-sonnet-4-5","messages":[{"role":"user","content":"<b>"}],"system":` + claudeCodeSystem +
				`,"tools":` + claudeCodeTools + `,"metadata":{"user_id":` + wantUserID + `},"max_tokens":32000,` + tt.thinking
			if got := string(c.Body()); got != want {
				t.Errorf("body\n got %s\nwant %s", got, want)
			}
		})
	}
}

func TestConversationZeroValueDefaults(t *testing.T) {
	c := &Conversation{SessionID: "session-1"}
	want := `{"model":"claude-sonnet-4-5","messages":[],"system":` + claudeCodeSystem + `,"tools":` + claudeCodeTools +
		`,"metadata":{"user_id":` + wantUserID + `},"max_tokens":32000,"thinking":{"budget_tokens":31999,"type":"enabled","display":"omitted"},` +
		`"context_management":{"edits":[{"type":"clear_thinking_20251015","keep":"all"}]},"stream":false}`
	if got := string(c.Body()); got != want {
		t.Errorf("body\n got %s\nwant %s", got, want)
	}
}

func TestUserIDEscapesTheSession(t *testing.T) {
	got := userID(`a"b`)
	var v struct {
		SessionID string `json:"session_id"`
		DeviceID  string `json:"device_id"`
	}
	if err := json.Unmarshal([]byte(got), &v); err != nil || v.SessionID != `a"b` || len(v.DeviceID) != 64 {
		t.Errorf("userID = %s (%v)", got, err)
	}
}

func TestConversationHeaders(t *testing.T) {
	up := newUpstream(t, "a", Lenient)
	c := NewConversation(up.URL(), "session-1")
	c.AgentID = "agent-7"
	c.Header.Set("X-Backend", "b")
	c.Header.Set("X-Api-Key", "sk-other")
	must(t)(c.Say("hi"))
	h := up.Requests()[0].Header
	want := map[string]string{
		"Accept":                   "application/json",
		"Accept-Encoding":          "gzip, deflate, br, zstd",
		"Anthropic-Beta":           "claude-code-20250219,interleaved-thinking-2025-05-14,context-management-2025-06-27,thinking-token-count-2026-05-13,advanced-tool-use-2025-11-20",
		"Anthropic-Version":        "2023-06-01",
		"Content-Type":             "application/json",
		"User-Agent":               "claude-cli/2.1.328 (external, sdk-cli)",
		"X-Api-Key":                "sk-other",
		"X-App":                    "cli",
		"X-Claude-Code-Session-Id": "session-1",
		"X-Claude-Code-Agent-Id":   "agent-7",
		"X-Backend":                "b",
		"X-Stainless-Lang":         "js",
		"Anthropic-Dangerous-Direct-Browser-Access": "true",
	}
	for k, v := range want {
		if got := h.Values(k); len(got) != 1 || got[0] != v {
			t.Errorf("%s: %q, want %q", k, got, v)
		}
	}
	if got := h.Get("Authorization"); got != "" {
		t.Errorf("Authorization %q", got)
	}
}

func TestConversationKeepsTheUserMessageOnError(t *testing.T) {
	a := newUpstream(t, "a", Strict)
	b := newUpstream(t, "b", Strict)
	c := NewConversation(a.URL(), "session-1")
	must(t)(c.Say("hi"))
	c.BaseURL = b.URL()
	turn, err := c.Say("elsewhere")
	wantInvalid(t, turn, err, "messages.1.content.0: Invalid `signature` in `thinking` block")
	if turn.Message != nil || len(c.Messages) != 3 {
		t.Fatalf("history has %d messages after a 400", len(c.Messages))
	}
	editContent(t, c, 1, without("thinking"))
	turn = must(t)(c.Send())
	if want := `{"role":"assistant","content":[{"type":"thinking","thinking":"","signature":"` + field(t, c, 3, 0, "signature") +
		`"},{"type":"text","text":"b answer 1."}]}`; string(turn.Message) != want {
		t.Errorf("message\n got %s\nwant %s", turn.Message, want)
	}
}

func TestToolResult(t *testing.T) {
	up := newUpstream(t, "a", Unsigned)
	c := NewConversation(up.URL(), "session-1")
	if _, err := c.ToolResult("x"); err == nil || !strings.Contains(err.Error(), "empty history") {
		t.Errorf("empty history: %v", err)
	}
	must(t)(c.Say("hi"))
	if _, err := c.ToolResult("x"); err == nil || !strings.Contains(err.Error(), "no tool_use") {
		t.Errorf("no tool_use: %v", err)
	}
	c.Messages = append(c.Messages, json.RawMessage(`{"role":"user","content":"x"}`),
		json.RawMessage(`{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{}},{"type":"tool_use","id":"t2","name":"Bash","input":{}}]}`))
	must(t)(c.ToolResult(`<"out">`))
	want := `{"role":"user","content":[{"tool_use_id":"t1","type":"tool_result","content":"<\"out\">","is_error":false},{"tool_use_id":"t2","type":"tool_result","content":"<\"out\">","is_error":false}]}`
	if got := string(c.Messages[4]); got != want {
		t.Errorf("tool result\n got %s\nwant %s", got, want)
	}
	if got := contentTypes(t, c, 5); !slices.Equal(got, []string{"thinking", "text"}) {
		t.Errorf("reply blocks %v", got)
	}
}

func TestConversationTurnErrors(t *testing.T) {
	c := NewConversation("http://127.0.0.1:1", "session-1")
	if _, err := c.Say("nobody listens"); err == nil {
		t.Error("no error from a closed port")
	}
	if got := c.Body(); !bytes.Contains(got, []byte(`"text":"nobody listens"`)) {
		t.Errorf("the user message was not kept: %s", got)
	}
	if _, err := decodeBody([]byte("x"), "br"); err == nil || err.Error() != `unsupported Content-Encoding "br"` {
		t.Errorf("br: %v", err)
	}
	if got, err := decodeBody([]byte("x"), "identity"); err != nil || string(got) != "x" {
		t.Errorf("identity: %q %v", got, err)
	}
	if _, err := decodeBody([]byte("x"), "gzip"); err == nil {
		t.Error("no error for a broken gzip body")
	}
}

func TestConversationStreamErrorEvent(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream; charset=utf-8")
		io.WriteString(w, "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{}}\n\n"+
			"event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}\n\n")
	}))
	defer srv.Close()
	c := NewConversation(srv.URL, "session-1")
	turn, err := c.Say("hi")
	if err != nil || turn.Status != http.StatusOK || turn.ErrorType != "overloaded_error" || turn.ErrorMessage != "Overloaded" {
		t.Fatalf("turn %+v, %v", turn, err)
	}
	if turn.Message != nil || len(c.Messages) != 1 {
		t.Errorf("an error event appended %s", turn.Message)
	}
}

func TestConversationRejectsBrokenResponses(t *testing.T) {
	for _, tt := range []struct {
		name, contentType, body, want string
		status                        int
	}{
		{"stream without message_stop", "text/event-stream", "data: {\"type\":\"ping\"}\n\n", "stream ended without message_stop", 200},
		{"JSON that is not a message", "application/json", `[1]`, "llmtest: message from", 200},
		{"error without envelope", "text/plain", `oops`, "status 502 from", 502},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", tt.contentType)
				w.WriteHeader(tt.status)
				io.WriteString(w, tt.body)
			}))
			defer srv.Close()
			c := NewConversation(srv.URL, "session-1")
			turn, err := c.Say("hi")
			if err == nil || !strings.Contains(err.Error(), tt.want) || turn == nil || string(turn.Raw) != tt.body {
				t.Errorf("turn %+v, error %v, want one containing %q", turn, err, tt.want)
			}
			if len(c.Messages) != 1 {
				t.Errorf("%d messages", len(c.Messages))
			}
		})
	}
}

func TestCacheMarkMovesWithTheLastMessage(t *testing.T) {
	c := NewConversation("http://127.0.0.1:1", "")
	c.Anonymous = true
	c.Messages = []json.RawMessage{json.RawMessage(`{"role":"user","content":[{"type":"text","text":"a"}]}`)}
	first := string(c.Body())
	c.Messages = append(c.Messages, json.RawMessage(`{"role":"assistant","content":[{"type":"text","text":"b"}]}`),
		json.RawMessage(`{"role":"user","content":"not an array"}`))
	second := string(c.Body())
	for _, want := range []string{`"messages":[{"role":"user","content":[{"type":"text","text":"a","cache_control":{"type":"ephemeral"}}]}]`} {
		if !strings.Contains(first, want) {
			t.Errorf("first body lacks %s:\n%s", want, first)
		}
	}
	if strings.Count(second, "cache_control") != 0 || !strings.Contains(second, `{"type":"text","text":"a"}]}`) {
		t.Errorf("the mark did not move on (a last message without blocks keeps none):\n%s", second)
	}
	if strings.Contains(first, "metadata") {
		t.Errorf("an anonymous client sent metadata:\n%s", first)
	}
}
