package llmtest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"testing"
)

func TestAnswerAs(t *testing.T) {
	for _, stream := range []bool{true, false} {
		t.Run(fmt.Sprint("stream=", stream), func(t *testing.T) {
			up := newUpstream(t, "g", Lenient)
			up.AnswerAs("glm-4.6")
			c := NewConversation(up.URL(), "session-1")
			c.Stream = stream
			turn := must(t)(c.Say("hi"))
			if turn.Model != "glm-4.6" || c.RecordedModel(1) != "glm-4.6" || c.RecordedModel(0) != "" {
				t.Errorf("Model %q, recorded %q and %q", turn.Model, c.RecordedModel(0), c.RecordedModel(1))
			}
			named := []byte(`"model":"glm-4.6"`)
			if n := bytes.Count(turn.Body, named); n != 1 {
				t.Errorf("the answer names glm-4.6 %d times:\n%s", n, turn.Body)
			}
			if !bytes.HasPrefix(up.Requests()[0].Body, []byte(`{"model":"claude-sonnet-4-5",`)) {
				t.Errorf("request %s", up.Requests()[0].Body)
			}
			up.AnswerAs("")
			if turn := must(t)(c.Say("again")); turn.Model != "claude-sonnet-4-5" || c.RecordedModel(3) != "claude-sonnet-4-5" {
				t.Errorf("after AnswerAs(\"\"): Model %q, recorded %q", turn.Model, c.RecordedModel(3))
			}
		})
	}
}

func TestModelBoundThinking(t *testing.T) {
	for _, tt := range []struct {
		name     string
		answerAs string
		bound    bool
		dropped  bool
	}{
		{"bound, another model", "glm-4.6", true, true},
		{"bound, the model asked for", "", true, false},
		{"not bound", "glm-4.6", false, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			up := newUpstream(t, "g", Lenient)
			up.AnswerAs(tt.answerAs)
			c := NewConversation(up.URL(), "session-1")
			c.ModelBoundThinking = tt.bound
			must(t)(c.Say("[tool] hi"))
			must(t)(c.ToolResult("done"))
			answered := c.Messages[1]
			var req struct {
				Messages []json.RawMessage `json:"messages"`
			}
			if err := json.Unmarshal(up.Requests()[1].Body, &req); err != nil {
				t.Fatal(err)
			}
			want := string(answered)
			if tt.dropped {
				want = `{"role":"assistant","content":[{"type":"tool_use","id":"toolu_g_1","name":"Bash","input":{"command":"echo g"}}]}`
			}
			if got := string(req.Messages[1]); got != want {
				t.Errorf("replayed\n got %s\nwant %s", got, want)
			}
			if !bytes.Equal(c.Messages[1], answered) {
				t.Errorf("the history changed: %s", c.Messages[1])
			}
		})
	}
}

func TestWithoutThinkingKeepsOtherBytes(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{`{"role":"assistant","content":[{"type":"text","text":"<a>"}]}`, `{"role":"assistant","content":[{"type":"text","text":"<a>"}]}`},
		{`{"content":[{"type":"redacted_thinking","data":"d"},{"type":"text", "text":"\u003ca>"},{"type":"thinking","thinking":"","signature":"s"}],"role":"assistant"}`,
			`{"role":"assistant","content":[{"type":"text", "text":"\u003ca>"}]}`},
		{`not json`, `not json`},
	} {
		if got := string(withoutThinking(json.RawMessage(tt.in))); got != tt.want {
			t.Errorf("withoutThinking(%s)\n got %s\nwant %s", tt.in, got, tt.want)
		}
	}
}
