package llmtest

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/claudecode"
)

// respEvent is the part of a stream event the tests read.
type respEvent struct {
	name      string
	Type      string          `json:"type"`
	Sequence  *int            `json:"sequence_number"`
	Delta     string          `json:"delta"`
	Text      string          `json:"text"`
	Arguments string          `json:"arguments"`
	Item      respItemOut     `json:"item"`
	Response  json.RawMessage `json:"response"`
	Code      string          `json:"code"`
}

// streamed sends body as a stream and returns its events, checking the
// framing: each event named as its type, numbered from 0.
func streamed(t *testing.T, u *ResponsesUpstream, body []byte) []respEvent {
	t.Helper()
	status, h, b := post(t, u, "k", body)
	if status != http.StatusOK || h.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("status %d, %s: %s", status, h.Get("Content-Type"), b)
	}
	var out []respEvent
	for i, e := range claudecode.Events(b) {
		var ev respEvent
		if err := json.Unmarshal(e.Data, &ev); err != nil {
			t.Fatalf("event %d: %v: %s", i, err, e.Data)
		}
		ev.name = e.Name
		if ev.name != ev.Type || ev.Sequence == nil || *ev.Sequence != i {
			t.Errorf("event %d is %q, type %q, sequence %v", i, ev.name, ev.Type, ev.Sequence)
		}
		out = append(out, ev)
	}
	return out
}

func repeat(s string, n int) []string { return slices.Repeat([]string{s}, n) }

func TestResponsesStreamsInTheDocumentedOrder(t *testing.T) {
	u := newResponses(t, "oa")
	events := streamed(t, u, respBody(map[string]any{"stream": true}, userSays("hi")))
	summary, text := u.Summary(1), "oa answer 1."
	want := slices.Concat([]string{"response.created", "response.in_progress", "response.output_item.added", "response.reasoning_summary_part.added"},
		repeat("response.reasoning_summary_text.delta", len(pieces(summary, 6))),
		[]string{"response.reasoning_summary_text.done", "response.reasoning_summary_part.done", "response.output_item.done",
			"response.output_item.added", "response.content_part.added"},
		repeat("response.output_text.delta", len(pieces(text, 5))),
		[]string{"response.output_text.done", "response.content_part.done", "response.output_item.done", "response.completed"})
	var types []string
	var gotSummary, gotText strings.Builder
	for _, ev := range events {
		types = append(types, ev.Type)
		switch ev.Type {
		case "response.reasoning_summary_text.delta":
			gotSummary.WriteString(ev.Delta)
		case "response.output_text.delta":
			gotText.WriteString(ev.Delta)
		}
	}
	if !slices.Equal(types, want) {
		t.Fatalf("events\n got %v\nwant %v", types, want)
	}
	if gotSummary.String() != summary || gotText.String() != text {
		t.Errorf("deltas %q %q", gotSummary.String(), gotText.String())
	}
	added, done := events[2].Item, events[len(pieces(summary, 6))+6].Item
	if added.Encrypted != "" || len(added.Summary) != 0 || done.Encrypted == "" || done.Summary[0].Text != summary {
		t.Errorf("reasoning added %+v, done %+v", added, done)
	}
	var final respAnswer
	json.Unmarshal(events[len(events)-1].Response, &final)
	var items []respItemOut
	for _, raw := range final.Output {
		var it respItemOut
		json.Unmarshal(raw, &it)
		items = append(items, it)
	}
	if final.Status != "completed" || len(items) != 2 || items[0].Encrypted != done.Encrypted || items[1].Content[0].Text != text || final.Usage.OutputTokens != 50 {
		t.Errorf("completed %s", events[len(events)-1].Response)
	}
	var started respAnswer
	json.Unmarshal(events[0].Response, &started)
	if started.Status != "in_progress" || len(started.Output) != 0 {
		t.Errorf("created %s", events[0].Response)
	}
}

func TestResponsesStreamsFunctionCalls(t *testing.T) {
	u := newResponses(t, "oa")
	events := streamed(t, u, respBody(map[string]any{"stream": true, "reasoning": nil}, userSays("[tool][parallel] go")))
	var types []string
	for _, ev := range events {
		types = append(types, ev.Type)
	}
	call := []string{"response.output_item.added", "response.function_call_arguments.delta", "response.function_call_arguments.delta",
		"response.function_call_arguments.done", "response.output_item.done"}
	want := slices.Concat([]string{"response.created", "response.in_progress", "response.output_item.added", "response.output_item.done"},
		call, call, []string{"response.completed"})
	if !slices.Equal(types, want) {
		t.Fatalf("events\n got %v\nwant %v", types, want)
	}
	for k, args := range []string{`{"command":"ls"}`, `{"command":"pwd"}`} {
		at := 4 + 5*k
		if events[at].Item.Arguments != "" || events[at].Item.CallID != "call_oa_1_"+string(rune('0'+k)) ||
			events[at+1].Delta+events[at+2].Delta != args || events[at+1].Delta == "" || events[at+3].Arguments != args || events[at+4].Item.Arguments != args {
			t.Errorf("call %d: %+v", k, events[at:at+5])
		}
	}
}

func TestResponsesStreamFailsAfterScriptedEvents(t *testing.T) {
	u := newResponses(t, "oa")
	u.FailStreamAfter(4, ResponsesFailedEvent("server_error", "The model failed."))
	events := streamed(t, u, respBody(map[string]any{"stream": true}, userSays("hi")))
	last := events[len(events)-1]
	var failed struct {
		ID     string            `json:"id"`
		Status string            `json:"status"`
		Output []json.RawMessage `json:"output"`
		Error  struct {
			Code, Message string
		} `json:"error"`
	}
	json.Unmarshal(last.Response, &failed)
	if len(events) != 5 || last.Type != "response.failed" || failed.ID != "resp_oa_1" || failed.Status != "failed" ||
		failed.Error.Code != "server_error" || failed.Error.Message != "The model failed." || len(failed.Output) != 0 {
		t.Fatalf("%d events, last %+v %s", len(events), last, last.Response)
	}

	// Once: the next stream completes.
	if events = streamed(t, u, respBody(map[string]any{"stream": true}, userSays("hi"))); events[len(events)-1].Type != "response.completed" {
		t.Fatalf("the fault applied twice")
	}

	u.FailStreamAfter(0, ResponsesErrorEvent("rate_limit_exceeded", "Slow down."))
	events = streamed(t, u, respBody(map[string]any{"stream": true}, userSays("hi")))
	if len(events) != 1 || events[0].Type != "error" || events[0].Code != "rate_limit_exceeded" {
		t.Fatalf("error event %+v", events)
	}
}
