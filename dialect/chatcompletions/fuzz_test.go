package chatcompletions

import (
	"bytes"
	"encoding/json"
	"testing"
	"unicode/utf8"
	"unsafe"
)

// FuzzStream feeds any bytes, cut at any point, as an upstream stream: the
// client's stream must keep every rule checkStream checks, whatever came,
// and be the same without fastChunk.
func FuzzStream(f *testing.F) {
	f.Add(sse(delta(`{"reasoning_content":"a"}`), delta(`{"content":"b"}`), finish("stop"), usageChunk, "[DONE]"), 3)
	f.Add(sse(delta(`{"content":"<think>x</think>\n\ny"}`), finish("stop")), 20)
	f.Add(sse(delta(`{"tool_calls":[{"index":0,"id":"c","function":{"name":"B","arguments":"{\"a\":"}}]}`), finish("length")), 40)
	f.Add(sse(delta(`{"reasoning":"r","reasoning_details":[{"type":"reasoning.text","text":"r"}]}`), `{"error":{"message":"x"}}`), 0)
	f.Add("data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":\"ls\"}}]},\"finish_reason\":\"tool_calls\"}]}\r\n\r\n", 9)
	f.Add(sse(serverChunk("reasoning", `"a"`), serverChunk("content", `"\n\nb"`), finish("stop"), usageChunk, "[DONE]"), 7)
	f.Add(sse(serverChunk("content", `"<think>a"`), serverChunk("content", `"</think>b\u00e9"`), finish("stop")), 30)
	f.Add("data:{\"choices\":[{\"delta\":{\"tool_calls\":[{\"function\":{\"arguments\":\"{0\"}}]},\"finish_reason\":\"\"}]}", 100)
	f.Fuzz(func(t *testing.T, in string, cut int) {
		if cut < 0 || cut > len(in) {
			cut = len(in) / 2
		}
		for _, open := range []bool{false, true} {
			opts := testOptions()
			opts.AssumeOpen = open
			out := translate(opts, in[:cut], in[cut:])
			if _, err := checkStream(out); err != nil {
				t.Fatalf("%v\nin  %q\nout %s", err, in, out)
			}
			full := NewStream(opts)
			full.noFast = true
			if want := translateWith(full, in[:cut], in[cut:]); !bytes.Equal(out, want) {
				t.Fatalf("in %q\nwith fastChunk    %s\nwithout fastChunk %s", in, out, want)
			}
		}
	})
}

// FuzzTranslateRequest: any body either is refused or translates to valid
// JSON; FuzzTranslateAnswer likewise for answers.
func FuzzTranslateRequest(f *testing.F) {
	f.Add([]byte(claudeCodeRequest))
	f.Add([]byte(`{"model":"m","messages":[{"role":"assistant","content":[{"type":"tool_use","id":"t","name":"n","input":{}}]}]}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		for _, r := range []Reasoning{ReasoningContent, ReasoningDetails, ReasoningThinkTags} {
			var last []byte
			grow := func(p []byte, n int) ([]byte, error) {
				last = append(make([]byte, 0, len(p)+n), p...)
				return last, nil
			}
			opts := RequestOptions{Reasoning: r, ThinkingSwitch: SwitchReasoningEffort, Grow: grow}
			if r == ReasoningDetails {
				opts.Details, opts.Model = NewDetailsSigner(detailsKey, detailsPeer), "gemini-3"
			}
			tr, err := TranslateRequest(body, opts)
			if err == nil && !json.Valid(tr.Body) {
				t.Fatalf("invalid JSON out of %q: %s", body, tr.Body)
			}
			if err == nil && unsafe.SliceData(tr.Body) != unsafe.SliceData(last) {
				t.Fatalf("wrote past the room it asked for out of %q", body)
			}
		}
	})
}

func FuzzTranslateAnswer(f *testing.F) {
	f.Add([]byte(`{"choices":[{"message":{"content":"<think>a</think>b","tool_calls":[{"id":"c","function":{"name":"B","arguments":"{\"x\":"}}]},"finish_reason":"length"}]}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		out, err := TranslateAnswer(body, testOptions())
		if err == nil && (!json.Valid(out) || !utf8.Valid(out)) {
			t.Fatalf("invalid JSON out of %q: %s", body, out)
		}
	})
}
