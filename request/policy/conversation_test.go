package policy

import (
	"net/http"
	"strings"
	"testing"
)

// TestConversation: the scope is the hash of the session the headers or the
// metadata name, never the session itself.
func TestConversation(t *testing.T) {
	long := strings.Repeat("s", 500)
	tests := []struct {
		name   string
		header map[string]string
		userID string
		want   string
	}{
		{"session header", map[string]string{"X-Claude-Code-Session-Id": "6ce030ee"}, `{"session_id":"other"}`, hashedID("6ce030ee")},
		{"subagent", map[string]string{"X-Claude-Code-Session-Id": "6ce030ee", "X-Claude-Code-Agent-Id": "agent-7"}, "", hashedID("6ce030ee/agent/agent-7")},
		{"metadata as JSON (2.1.x)", nil, `{"device_id":"0e7a","account_uuid":"","session_id":"9531fddd-89ef"}`, hashedID("9531fddd-89ef")},
		{"metadata as JSON, escaped and repeated keys", nil, `{"session_id":"old","\u0073ession_id":"new\u002d1"}`, hashedID("new-1")},
		{"metadata as broken JSON", nil, `{"session_id":"x"`, ""},
		{"metadata, older format", nil, "user_0e7a2889_account_42_session_8765e172-ade6", hashedID("8765e172-ade6")},
		{"nothing", nil, "", ""},
		{"unrelated user id", nil, "alice", ""},
		{"hostile length", map[string]string{"X-Claude-Code-Session-Id": long}, "", "sha256:"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := http.Header{}
			for k, v := range tt.header {
				h.Set(k, v)
			}
			got := Conversation(h, func() string { return tt.userID })
			if tt.want == "sha256:" {
				if !strings.HasPrefix(got, "sha256:") || len(got) > MaxID {
					t.Fatalf("long id kept as %q", got)
				}
				return
			}
			if got != tt.want {
				t.Fatalf("conversation %q, want %q", got, tt.want)
			}
		})
	}
}

func TestConversationReadsTheBodyOnlyWithoutHeader(t *testing.T) {
	h := http.Header{}
	h.Set("X-Claude-Code-Session-Id", "s")
	Conversation(h, func() string {
		t.Fatal("metadata read although the header names the session")
		return ""
	})
}
