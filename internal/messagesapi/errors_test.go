package messagesapi

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/jsonscan"
)

func TestErrorMessage(t *testing.T) {
	if got := ErrorMessage(503, ""); got != "upstream answered 503 Service Unavailable" {
		t.Errorf("no message: %q", got)
	}
	if got := ErrorMessage(400, "bad"); got != "bad" {
		t.Errorf("a short message is kept: %q", got)
	}
	long := strings.Repeat("é", 3000)
	got := ErrorMessage(500, long)
	if !utf8.ValidString(got) || !strings.HasSuffix(got, "…") || len(got) > maxErrorMessage+len("…") {
		t.Errorf("a long message is cut between characters: %d bytes, valid %v", len(got), utf8.ValidString(got))
	}
}

// TestDetailMessage: FastAPI's validation errors read as the Messages
// API writes its own.
func TestDetailMessage(t *testing.T) {
	for _, tc := range []struct{ detail, want string }{
		{`[{"type":"literal_error","loc":["body","thinking","type"],"msg":"Input should be 'enabled' or 'disabled'","input":"adaptive","ctx":{"expected":"'enabled' or 'disabled'"}}]`,
			"thinking.type: Input should be 'enabled' or 'disabled'"},
		{`[{"loc":["body","messages",1,"content"],"msg":"Field required"},{"loc":["query","beta"],"msg":"bad"}]`,
			"messages.1.content: Field required; query.beta: bad"},
		{`[{"loc":[],"msg":"Invalid JSON"}]`, "Invalid JSON"},
		{`"Not Found"`, "Not Found"},
		{`{"msg":"x"}`, ""},
		{`[{"loc":["body"]}]`, ""},
	} {
		if got := DetailMessage(jsonscan.Value(tc.detail)); got != tc.want {
			t.Errorf("DetailMessage(%s) = %q, want %q", tc.detail, got, tc.want)
		}
	}
}
