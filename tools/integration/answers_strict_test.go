package integration

import (
	"encoding/json"
	"net/http"
	"os"
	"strings"
	"testing"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/claudecode"
)

// claudeCodeCapture reads a request Claude Code 2.1.328 sent (see
// testdata/claude-code-2.1.328) as its top-level members.
func claudeCodeCapture(t *testing.T, name string) map[string]json.RawMessage {
	t.Helper()
	b, err := os.ReadFile("../../testdata/claude-code-2.1.328/" + name)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// claudeCodeHeaders are the headers of Claude Code's first captured
// request, but its length and encodings.
func claudeCodeHeaders(t *testing.T) http.Header {
	t.Helper()
	b, err := os.ReadFile("../../testdata/claude-code-2.1.328/capture-headers.json")
	if err != nil {
		t.Fatal(err)
	}
	var caps []struct {
		Headers http.Header `json:"headers"`
	}
	if err := json.Unmarshal(b, &caps); err != nil || len(caps) == 0 {
		t.Fatalf("capture-headers.json: %v", err)
	}
	h := caps[0].Headers.Clone()
	h.Del("Content-Length")
	h.Del("Accept-Encoding")
	return h
}

// messagesAnswer reads a Messages answer, JSON or a stream, strictly, and
// returns its blocks and stop reason: a stream begins with message_start,
// opens and closes its blocks in turn, and ends with message_delta and
// message_stop, without an error; an answer has a model, a stop reason and
// blocks the client can send back (no empty text, a signature on every
// thinking block). name says which answer, in the failure.
func messagesAnswer(t *testing.T, name string, stream bool, body []byte) ([]contentBlock, string) {
	t.Helper()
	blocks, stop := readMessagesAnswer(t, name, stream, body)
	for _, c := range blocks {
		if c.Type == "text" && strings.TrimSpace(c.Text) == "" || c.Type == "thinking" && c.Signature == "" {
			t.Fatalf("%s: a block the API would refuse back: %+v", name, c)
		}
	}
	return blocks, stop
}

// readMessagesAnswer reads the answer for messagesAnswer.
func readMessagesAnswer(t *testing.T, name string, stream bool, body []byte) ([]contentBlock, string) {
	t.Helper()
	if !stream {
		var m struct {
			Type, Role, Model string
			Content           []contentBlock
			StopReason        string `json:"stop_reason"`
		}
		if err := json.Unmarshal(body, &m); err != nil || m.Type != "message" || m.Role != "assistant" || m.Model == "" || len(m.Content) == 0 || m.StopReason == "" {
			t.Fatalf("%s: not a Messages answer (%v): %s", name, err, body)
		}
		return m.Content, m.StopReason
	}
	events := claudecode.Events(body)
	var blocks []contentBlock
	var stop string
	open := false
	for i, ev := range events {
		var d struct {
			Type         string
			ContentBlock contentBlock `json:"content_block"`
			Delta        struct {
				Type, Text, Thinking, Signature string
				PartialJSON                     string `json:"partial_json"`
				StopReason                      string `json:"stop_reason"`
			}
		}
		if err := json.Unmarshal(ev.Data, &d); err != nil || d.Type != ev.Name {
			t.Fatalf("%s: event %d is not a Messages event: %s %s", name, i, ev.Name, ev.Data)
		}
		switch {
		case i == 0 && ev.Name != "message_start", ev.Name == "error":
			t.Fatalf("%s: the stream went %s at event %d: %s", name, ev.Name, i, body)
		case ev.Name == "content_block_start" && !open:
			blocks, open = append(blocks, d.ContentBlock), true
		case ev.Name == "content_block_delta" && open:
			b := &blocks[len(blocks)-1]
			b.Text += d.Delta.Text
			b.Thinking += d.Delta.Thinking
			b.Signature += d.Delta.Signature
		case ev.Name == "content_block_stop" && open:
			open = false
		case ev.Name == "message_delta" && !open:
			stop = d.Delta.StopReason
		case ev.Name == "message_start", ev.Name == "ping", ev.Name == "message_stop" && i == len(events)-1 && stop != "":
		default:
			t.Fatalf("%s: event %d (%s) out of place: %s", name, i, ev.Name, body)
		}
	}
	if len(events) == 0 || events[len(events)-1].Name != "message_stop" || len(blocks) == 0 {
		t.Fatalf("%s: the stream did not end with its message: %s", name, body)
	}
	return blocks, stop
}
