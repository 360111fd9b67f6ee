package responses

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/claudecode"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/dialecttest"
)

// wellFormed checks a Messages stream's order: one message_start first,
// blocks opened in order of index, each delta and stop of the open block,
// nothing after message_stop or an error, every data JSON and UTF-8 (the
// SDKs decode strictly).
func wellFormed(stream string) error {
	if !utf8.ValidString(stream) {
		return fmt.Errorf("not UTF-8: %q", stream)
	}
	open, next, ended, started := -1, 0, false, false
	for _, ev := range strings.Split(strings.TrimSpace(stream), "\n\n") {
		if ev == "" {
			continue
		}
		if ended {
			return fmt.Errorf("an event after the end: %q", ev)
		}
		_, data, ok := strings.Cut(ev, "\ndata: ")
		var d struct {
			Type  string
			Index *int
		}
		if !ok || json.Unmarshal([]byte(data), &d) != nil || !json.Valid([]byte(data)) {
			return fmt.Errorf("not an event: %q", ev)
		}
		if d.Type != "message_start" && d.Type != "error" && !started {
			return fmt.Errorf("%s before message_start", d.Type)
		}
		switch d.Type {
		case "message_start":
			if started {
				return fmt.Errorf("two message_start")
			}
			started = true
		case "content_block_start":
			if open >= 0 || d.Index == nil || *d.Index != next {
				return fmt.Errorf("block %v started while %d is open, next %d", d.Index, open, next)
			}
			open, next = next, next+1
		case "content_block_delta", "content_block_stop":
			if d.Index == nil || *d.Index != open {
				return fmt.Errorf("%s of %v while %d is open", d.Type, d.Index, open)
			}
			if d.Type == "content_block_stop" {
				open = -1
			}
		case "message_delta":
			if open >= 0 {
				return fmt.Errorf("message_delta with block %d open", open)
			}
		case "message_stop", "error":
			ended = true
		}
	}
	return nil
}

// FuzzStream: any sequence of events (one per line) gives a well-formed
// Messages stream that ends, and the same as a whole answer valid JSON.
func FuzzStream(f *testing.F) {
	for _, call := range []bool{true, false} {
		f.Add(strings.Join(apiEvents(call), "\n"))
	}
	f.Add(`{"type":"response.output_item.added","item":{"type":"function_call","call_id":"functions.x:0","name":"x"}}` + "\n" +
		`{"type":"response.function_call_arguments.delta","delta":"[1,"}` + "\n" + `{"type":"response.reasoning_text.delta","delta":"\ud800"}`)
	f.Fuzz(func(t *testing.T, events string) {
		out := streamed(strings.Split(events, "\n"))
		if err := wellFormed(out); err != nil {
			t.Fatalf("%v\nout of %q:\n%s", err, events, out)
		}
		if !strings.HasSuffix(out, "event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n") && !strings.Contains(out, "event: error\n") {
			t.Fatalf("the stream did not end out of %q:\n%s", events, out)
		}
		for _, e := range strings.Split(events, "\n") {
			if body, err := TranslateAnswer([]byte(e), AnswerOptions{Model: "m", Signer: testSigner}); err == nil && (!json.Valid(body) || !utf8.Valid(body)) {
				t.Fatalf("invalid JSON out of %q: %s", e, body)
			}
		}
	})
}

// FuzzTranslateRequest: any request translates to valid JSON written into
// the room it asked for, or an error.
func FuzzTranslateRequest(f *testing.F) {
	f.Add(`{"model":"m","system":"s","messages":[{"role":"user","content":"hi"},{"role":"assistant","content":[{"type":"thinking","thinking":"","signature":"llmthinking.v1.reasoning.responses.tAAAAAAAAAAAAAAAAAAAAAA.4.rs_1.s.x"},{"type":"text","text":"t"},{"type":"tool_use","id":"call_1","name":"n","input":{"a":1}}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"call_1","content":[{"type":"text","text":"r"},{"type":"image","source":{"type":"base64","media_type":"image/png","data":"AA"}}]},{"type":"tool_result","tool_use_id":"zz","content":"o"}]}],"tools":[{"name":"n","input_schema":{"type":"object"}}],"tool_choice":{"type":"tool","name":"n"},"thinking":{"type":"enabled","budget_tokens":3000},"max_tokens":9}`)
	f.Add(`{"model":"m","messages":[{"role":"assistant","content":[{"type":"tool_use","id":"toolu_1","name":"Read","input":{}}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","is_error":true,"content":[{"type":"document","source":{"type":"base64","media_type":"application/pdf","data":"JVBE"}},{"type":"document","source":{"type":"content","content":[{"type":"text","text":"a"}]}},{"type":"document","source":{"type":"url","url":"https://x"}},{"type":"image","source":{"type":"file","file_id":"f"}},{"type":"text","text":"t"}]}]}],"max_tokens":1}`)
	f.Fuzz(func(t *testing.T, body string) {
		dialecttest.InRoom(t, []byte(body), translateInto)
	})
}

// TestTranslationWritesOnlyWhereItAskedRoom: for random requests of every
// shape, the translation is valid JSON, written into the memory Grow gave.
func TestTranslationWritesOnlyWhereItAskedRoom(t *testing.T) {
	dialecttest.RandomRequestsInRoom(t, claudecode.RandomRequest, 5, 6, translateInto)
}
