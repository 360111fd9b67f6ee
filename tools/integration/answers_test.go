package integration

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"testing"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/claudecode"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/tools/llmtest"
)

// Helpers for the tests of rewritten answers (think tags, the model named):
// what the upstream wrote is compared with what the client got.

// requestMessages returns the messages of a request body, exactly as they
// appear in it.
func requestMessages(t *testing.T, body []byte) []json.RawMessage {
	t.Helper()
	var req struct {
		Messages []json.RawMessage `json:"messages"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		t.Fatalf("request body is not JSON: %v", err)
	}
	return req.Messages
}

// assertMessages checks that the messages of a request body at the given
// positions are exactly want, byte for byte.
func assertMessages(t *testing.T, body []byte, want map[int]string) {
	t.Helper()
	msgs := requestMessages(t, body)
	for _, i := range slices.Sorted(maps.Keys(want)) {
		if i >= len(msgs) {
			t.Fatalf("the request holds %d messages, want message %d:\n%s", len(msgs), i, body)
		}
		if string(msgs[i]) != want[i] {
			t.Errorf("message %d reached the upstream as\n got %s\nwant %s", i, msgs[i], want[i])
		}
	}
}

// streamShape lists the events of a stream, content events with their index
// and block or delta type, runs of equal entries as one: the framing a
// client follows, without the texts.
func streamShape(t *testing.T, stream []byte) []string {
	t.Helper()
	var out []string
	for _, ev := range claudecode.Events(stream) {
		var e struct {
			Type         string `json:"type"`
			Index        int    `json:"index"`
			ContentBlock struct {
				Type string `json:"type"`
			} `json:"content_block"`
			Delta struct {
				Type string `json:"type"`
			} `json:"delta"`
		}
		if err := json.Unmarshal(ev.Data, &e); err != nil {
			t.Fatalf("event %q: %v", ev.Data, err)
		}
		if ev.Name != e.Type {
			t.Errorf("event %q carries %q", ev.Name, e.Type)
		}
		s := e.Type
		switch e.Type {
		case "content_block_start":
			s = fmt.Sprintf("start %d %s", e.Index, e.ContentBlock.Type)
		case "content_block_delta":
			s = fmt.Sprintf("delta %d %s", e.Index, e.Delta.Type)
		case "content_block_stop":
			s = fmt.Sprintf("stop %d", e.Index)
		}
		if len(out) == 0 || out[len(out)-1] != s {
			out = append(out, s)
		}
	}
	return out
}

// messageEvents returns the data of a stream's events that are not about
// content blocks (message_start, ping, message_delta, message_stop), in
// order.
func messageEvents(stream []byte) []string {
	var out []string
	for _, ev := range claudecode.Events(stream) {
		switch ev.Name {
		case "content_block_start", "content_block_delta", "content_block_stop":
		default:
			out = append(out, ev.Name+" "+string(ev.Data))
		}
	}
	return out
}

// answeredWith checks that u received exactly as many requests as want
// has statuses and answered them so, in order (a replay after a refusal
// would add one), and returns them.
func answeredWith(t *testing.T, u *llmtest.Upstream, want ...int) []llmtest.Received {
	t.Helper()
	reqs := u.Requests()
	got := make([]int, len(reqs))
	for i, r := range reqs {
		got[i] = r.Status
	}
	if !slices.Equal(got, want) {
		var msgs []string
		for _, r := range reqs {
			msgs = append(msgs, r.ErrorMessage)
		}
		t.Fatalf("the upstream answered %v %q, want %v", got, msgs, want)
	}
	return reqs
}
