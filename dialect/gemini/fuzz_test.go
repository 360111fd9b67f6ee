package gemini

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
	"unicode/utf8"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/claudecode"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/dialecttest"
)

// FuzzTranslateAnswer: any answer translates to valid JSON or an error,
// and the same answer as one event of a stream to valid events.
func FuzzTranslateAnswer(f *testing.F) {
	addAnswers(f)
	f.Add([]byte(`{"error":{"code":503,"message":"x","status":"UNAVAILABLE"}}`))
	f.Add([]byte(`{"promptFeedback":{"blockReason":"SAFETY"}}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		out, err := TranslateAnswer(body, answerOptions())
		if err == nil && (!json.Valid(out) || !utf8.Valid(out)) {
			t.Fatalf("invalid JSON out of %q: %s", body, out)
		}
		if bytes.ContainsAny(body, "\r\n") {
			return
		}
		for _, line := range bytes.Split(streamOf(t, string(body)), []byte("\n")) {
			if data, ok := bytes.CutPrefix(line, []byte("data: ")); ok && (!json.Valid(data) || !utf8.Valid(data)) {
				t.Fatalf("invalid event data out of %q: %s", body, data)
			}
		}
	})
}

// FuzzStreamAndJSONAgree: an answer gives the same message whole and as
// the first event of a stream (the tool_use ids aside, minted at random),
// or an error both ways: a NoAnswer whole is an error event streamed, an
// answer refused whole is refused streamed. A second event ends the
// stream as the end of a whole answer does, when the first did not.
func FuzzStreamAndJSONAgree(f *testing.F) {
	f.Add([]byte(wholeAnswer))
	f.Add([]byte(`{"candidates":[{"content":{"parts":[{"text":"a` + "\x00\xff" + `b","thought":true},{"text":"\\u0000"}]},"finishReason":"STOP"}]}`))
	f.Add([]byte(`{"candidates":[{"finishReason":"MALFORMED_FUNCTION_CALL","finishMessage":"Malformed","index":0}]}`))
	f.Add([]byte(`{"candidates":[{"content":{"parts":[{"functionCall":{"name":"f","args":[{"a":1}]}}]},"finishReason":"STOP"}]}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		if bytes.ContainsAny(body, "\r\n") || bytes.HasPrefix(bytes.TrimSpace(body), []byte("[")) {
			return // an event of one line; the array form is no answer's
		}
		whole, err := TranslateAnswer(body, answerOptions())
		events := streamOf(t, string(body), `{"candidates":[{"finishReason":"STOP"}]}`)
		streamed, serr := claudecode.AssembleStream(events)
		if (err == nil) != (serr == nil) {
			t.Fatalf("%q: whole %v, streamed %v\n%s", body, err, serr, events)
		}
		if err != nil {
			return
		}
		var w, s struct {
			Content    []map[string]any
			StopReason string `json:"stop_reason"`
		}
		if json.Unmarshal(whole, &w) != nil || json.Unmarshal(streamed, &s) != nil {
			t.Fatalf("%q: %s\n%s", body, whole, streamed)
		}
		for _, c := range [][]map[string]any{w.Content, s.Content} {
			for _, b := range c {
				delete(b, "id")
			}
		}
		if !reflect.DeepEqual(w, s) {
			t.Fatalf("%q:\n whole    %s\n streamed %s", body, whole, streamed)
		}
	})
}

// FuzzTranslateRequest: any request translates to valid JSON written into
// the room it asked for, or an error.
func FuzzTranslateRequest(f *testing.F) {
	f.Add([]byte(`{"model":"m","messages":[{"role":"user","content":"hi"},{"role":"assistant","content":[{"type":"thinking","thinking":"","signature":"llmthinking.v1.reasoning.gemini.nAAAAAAAAAAAAAAAAAAAAAA.x"},{"type":"tool_use","id":"toolu_gA","name":"n","input":{}}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_gA","content":[{"type":"text","text":"r"},{"type":"image","source":{"type":"base64","media_type":"image/png","data":"AA"}}]},{"type":"tool_result","tool_use_id":"zz","content":"o"}]}],"tools":[{"name":"n","input_schema":{"$schema":"x","type":"object"}}],"tool_choice":{"type":"tool","name":"n"},"thinking":{"type":"enabled","budget_tokens":3000},"max_tokens":9,"stop_sequences":["s"],"top_k":3}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		dialecttest.InRoom(t, body, translateInto)
	})
}

// TestTranslationWritesOnlyWhereItAskedRoom: for random requests of every
// shape, the translation is valid JSON, written into the memory Grow gave,
// asked for exactly.
func TestTranslationWritesOnlyWhereItAskedRoom(t *testing.T) {
	dialecttest.RandomRequestsInRoom(t, claudecode.RandomRequest, 3, 4, translateInto)
}
