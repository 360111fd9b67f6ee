package llmtest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/claudecode"
)

// newUpstream starts an Upstream that is closed when the test ends.
func newUpstream(t *testing.T, name string, f Flavor) *Upstream {
	t.Helper()
	u := NewUpstream(name, f)
	t.Cleanup(u.Close)
	return u
}

// must returns a check that fails the test unless a request got a 200;
// it takes a Conversation method's results as they are.
func must(t *testing.T) func(*Turn, error) *Turn {
	return func(turn *Turn, err error) *Turn {
		t.Helper()
		return mustOK(t, turn, err)
	}
}

// mustOK fails the test unless the request got a 200.
func mustOK(t *testing.T, turn *Turn, err error) *Turn {
	t.Helper()
	if err != nil {
		t.Fatalf("request failed: %v", err)
	}
	if turn.Status != http.StatusOK || turn.ErrorType != "" {
		t.Fatalf("status %d, %s: %s", turn.Status, turn.ErrorType, turn.ErrorMessage)
	}
	return turn
}

// errorBody is the exact envelope an Upstream answers with.
func errorBody(errType, message, requestID string) string {
	msg, _ := json.Marshal(message)
	return fmt.Sprintf(`{"type":"error","error":{"type":%q,"message":%s},"request_id":%q}`, errType, msg, requestID)
}

// wantInvalid fails the test unless turn is the 400 invalid_request_error
// with exactly message.
func wantInvalid(t *testing.T, turn *Turn, err error, message string) {
	t.Helper()
	if err != nil {
		t.Fatalf("request failed: %v", err)
	}
	if turn.Status != http.StatusBadRequest {
		t.Fatalf("status %d, want 400 %q", turn.Status, message)
	}
	if got := turn.Header.Get("Content-Type"); got != "application/json" {
		t.Errorf("Content-Type %q", got)
	}
	want := errorBody("invalid_request_error", message, turn.Header.Get("Request-Id"))
	if string(turn.Body) != want {
		t.Errorf("body\n got %s\nwant %s", turn.Body, want)
	}
	if turn.ErrorType != "invalid_request_error" || turn.ErrorMessage != message {
		t.Errorf("Turn error %q %q", turn.ErrorType, turn.ErrorMessage)
	}
}

// editContent rewrites the content blocks of history message i, keeping the
// bytes of every block it does not touch.
func editContent(t *testing.T, c *Conversation, i int, edit func([]json.RawMessage) []json.RawMessage) {
	t.Helper()
	var m struct {
		Role    string            `json:"role"`
		Content []json.RawMessage `json:"content"`
	}
	if err := json.Unmarshal(c.Messages[i], &m); err != nil {
		t.Fatalf("message %d: %v", i, err)
	}
	raw := claudecode.AppendString([]byte(`{"role":`), m.Role)
	raw = append(raw, `,"content":[`...)
	for k, b := range edit(m.Content) {
		if k > 0 {
			raw = append(raw, ',')
		}
		raw = append(raw, b...)
	}
	c.Messages[i] = append(raw, "]}"...)
}

func blockType(raw json.RawMessage) string {
	var b struct {
		Type string `json:"type"`
	}
	json.Unmarshal(raw, &b)
	return b.Type
}

// without drops the blocks of the given types.
func without(types ...string) func([]json.RawMessage) []json.RawMessage {
	return func(blocks []json.RawMessage) []json.RawMessage {
		var out []json.RawMessage
		for _, b := range blocks {
			if !strings.Contains(" "+strings.Join(types, " ")+" ", " "+blockType(b)+" ") {
				out = append(out, b)
			}
		}
		return out
	}
}

// contentTypes lists the block types of history message i.
func contentTypes(t *testing.T, c *Conversation, i int) []string {
	t.Helper()
	var m struct {
		Content []json.RawMessage `json:"content"`
	}
	if err := json.Unmarshal(c.Messages[i], &m); err != nil {
		t.Fatalf("message %d: %v", i, err)
	}
	var types []string
	for _, b := range m.Content {
		types = append(types, blockType(b))
	}
	return types
}

// field returns a string field of block j of history message i.
func field(t *testing.T, c *Conversation, i, j int, key string) string {
	t.Helper()
	var m struct {
		Content []map[string]any `json:"content"`
	}
	if err := json.Unmarshal(c.Messages[i], &m); err != nil {
		t.Fatalf("message %d: %v", i, err)
	}
	s, _ := m.Content[j][key].(string)
	return s
}
