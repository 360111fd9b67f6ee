package chatcompletions

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/claudecode"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/messagesapi"
)

// fillers returns the reasoning_content of each assistant message of a
// translated request, and the messages as written.
func fillers(t *testing.T, body []byte) ([]string, []json.RawMessage) {
	t.Helper()
	var req struct{ Messages []json.RawMessage }
	if err := json.Unmarshal(body, &req); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, raw := range req.Messages {
		var m struct {
			Role             string
			ReasoningContent *string `json:"reasoning_content"`
		}
		json.Unmarshal(raw, &m)
		if m.Role == "assistant" && m.ReasoningContent != nil {
			out = append(out, *m.ReasoningContent)
		}
	}
	return out, req.Messages
}

// TestFillersDifferPerMessage measures what a DeepSeek-style server gets
// for a long Claude Code context another backend produced (capture 2 grown
// to 1 MiB of tool-loop turns): a filler on every assistant message, each
// different from the others, each the same on the next request, which
// repeats the whole context grown by one turn: the translation of the
// earlier messages is byte for byte the same, so a prefix cache keeps
// hitting.
func TestFillersDifferPerMessage(t *testing.T) {
	capture, err := os.ReadFile("../../testdata/claude-code-2.1.328/capture-2-tool-result-same-run.json")
	if err != nil {
		t.Fatal(err)
	}
	grown, err := claudecode.GrowHistory(capture, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	longer, err := claudecode.GrowHistory(grown, len(grown)+1)
	if err != nil {
		t.Fatal(err)
	}
	opts := RequestOptions{Reasoning: ReasoningContent}
	first, err := TranslateRequest(grown, opts)
	if err != nil {
		t.Fatal(err)
	}
	next, err := TranslateRequest(longer, opts)
	if err != nil {
		t.Fatal(err)
	}
	fs, msgs := fillers(t, first.Body)
	distinct, size := map[string]bool{}, 0
	for _, f := range fs {
		distinct[f] = true
		size += len(f)
		if !strings.HasPrefix(f, messagesapi.FillerHead) || len(f) > 200 {
			t.Fatalf("filler %q", f)
		}
	}
	if len(fs) < 300 || len(distinct) != len(fs) {
		t.Fatalf("%d fillers, %d distinct", len(fs), len(distinct))
	}
	_, nextMsgs := fillers(t, next.Body)
	// Every message but the last user message is in the next request as
	// it was.
	for i := range msgs[:len(msgs)-1] {
		if !bytes.Equal(msgs[i], nextMsgs[i]) {
			t.Fatalf("message %d changed on the next request:\n %s\n %s", i, msgs[i], nextMsgs[i])
		}
	}
	t.Logf("%d-byte context, %d assistant messages: %d distinct fillers, %d bytes of them (%.1f%% of the %d-byte translation)",
		len(grown), len(fs), len(distinct), size, 100*float64(size)/float64(len(first.Body)), len(first.Body))
}

// TestFillerShapes: what a filler says of a message, escaped.
func TestFillerShapes(t *testing.T) {
	long := strings.Repeat("é", 40)
	for _, tt := range []struct{ content, want string }{
		{`[{"type":"tool_use","id":"toolu_1","name":"Bash","input":{"command":"ls"}}]`, `Step without its reasoning: called Bash {\"command\":\"ls\"} (toolu_1).`},
		{`[{"type":"text","text":"Let me look."},{"type":"tool_use","id":"a","name":"Read","input":{}},{"type":"tool_use","id":"b","name":"Grep","input":{}},{"type":"tool_use","id":"c","name":"Glob","input":{}},{"type":"tool_use","id":"d","name":"Bash","input":{}}]`,
			`Step without its reasoning: called Read {} (a), Grep {} (b), Glob {} (c), and more.`},
		{`[{"type":"text","text":"` + long + `"}]`, `Step without its reasoning: answered \"` + strings.Repeat("é", 24) + `…\".`},
		{`"plain \"quoted\""`, `Step without its reasoning: answered \"plain \"quoted\"\".`},
		{`[]`, `Step without its reasoning: no call, no text.`},
	} {
		var w requestWriter
		w.filler([]byte(tt.content))
		if got := string(w.Out); got != tt.want {
			t.Errorf("%s:\n got %s\nwant %s", tt.content, got, tt.want)
		}
	}
}
