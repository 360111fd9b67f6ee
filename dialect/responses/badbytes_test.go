package responses

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestBadBytesTheSameBothWays: a response whose text or reasoning is not
// UTF-8, whose reasoning holds a NUL, whose arguments nest deeper than 64
// levels, gives the same message whole and streamed, valid for a strict
// decoder; one with a raw control character (no JSON) is refused both
// ways, never passed over.
func TestBadBytesTheSameBothWays(t *testing.T) {
	deep := strings.Repeat(`{\"a\":`, 100) + "1" + strings.Repeat("}", 100)
	for name, tc := range map[string]struct{ item, delta string }{
		"text not UTF-8": {`{"id":"msg_1","type":"message","status":"completed","content":[{"type":"output_text","annotations":[],"text":"bad ` + "\xff" + ` b"}],"role":"assistant"}`,
			`{"type":"response.output_text.delta","item_id":"msg_1","output_index":0,"content_index":0,"delta":"bad ` + "\xff" + ` b"}`},
		"reasoning not UTF-8": {`{"id":"rs_1","type":"reasoning","summary":[{"type":"summary_text","text":"a ` + "\xfe" + `"}],"encrypted_content":"gAAAAABenc-1=="}`,
			`{"type":"response.reasoning_summary_text.delta","item_id":"rs_1","output_index":0,"summary_index":0,"delta":"a ` + "\xfe" + `"}`},
		"NUL in reasoning": {`{"id":"rs_1","type":"reasoning","summary":[{"type":"summary_text","text":"a\u0000b"}],"encrypted_content":"gAAAAABenc-1=="}`,
			`{"type":"response.reasoning_summary_text.delta","item_id":"rs_1","output_index":0,"summary_index":0,"delta":"a\u0000b"}`},
		"arguments 100 deep": {`{"id":"fc_1","type":"function_call","status":"completed","arguments":"` + deep + `","call_id":"call_abc","name":"Bash"}`,
			`{"type":"response.function_call_arguments.delta","item_id":"fc_1","output_index":0,"delta":"` + deep + `"}`},
		"raw NUL (not JSON)": {`{"id":"rs_1","type":"reasoning","summary":[{"type":"summary_text","text":"a` + "\x00" + `b"}],"encrypted_content":"gAAAAABenc-1=="}`,
			`{"type":"response.reasoning_summary_text.delta","item_id":"rs_1","output_index":0,"summary_index":0,"delta":"a` + "\x00" + `b"}`},
	} {
		t.Run(name, func(t *testing.T) {
			opts := AnswerOptions{Model: "m", Signer: testSigner}
			whole, err := TranslateAnswer([]byte(`{"id":"resp_1","object":"response","status":"completed","model":"gpt-5","output":[`+tc.item+`],"usage":{"input_tokens":1,"output_tokens":1}}`), opts)
			added := strings.NewReplacer(`"status":"completed",`, "", `"text":"a `+"\xfe"+`"`, `"text":""`).Replace(tc.item)
			s := NewStream(opts)
			var ev []byte
			for _, e := range []string{
				`{"type":"response.created","response":{"id":"resp_1","status":"in_progress","output":[]}}`,
				`{"type":"response.output_item.added","output_index":0,"item":` + emptied(added) + `}`,
				tc.delta,
				`{"type":"response.output_item.done","output_index":0,"item":` + tc.item + `}`,
				`{"type":"response.completed","response":{"id":"resp_1","status":"completed","output":[],"usage":{"input_tokens":1,"output_tokens":1}}}`,
			} {
				ev = s.Chunk(ev, []byte(e))
			}
			ev = s.End(ev)
			if !utf8.Valid(ev) || !utf8.Valid(whole) {
				t.Fatalf("not UTF-8:\n%q\n%q", whole, ev)
			}
			got := accumulate(t, string(ev))
			failed := got == nil || strings.Contains(string(ev), "event: error")
			if (err != nil) != failed {
				t.Fatalf("whole: %v; streamed:\n%s", err, ev)
			}
			if err != nil {
				return
			}
			var w map[string]any
			if err := json.Unmarshal(whole, &w); err != nil {
				t.Fatal(err)
			}
			a, _ := json.Marshal(w["content"])
			b, _ := json.Marshal(got["content"])
			if string(a) != string(b) {
				t.Errorf("\n whole    %.400v\n streamed %.400v", w["content"], got["content"])
			}
		})
	}
}

// emptied returns an output item as output_item.added gives it: without
// its summary's or content's text, its arguments.
func emptied(item string) string {
	var m map[string]any
	if json.Unmarshal([]byte(strings.ToValidUTF8(item, "?")), &m) != nil {
		return item
	}
	delete(m, "summary")
	delete(m, "content")
	delete(m, "arguments")
	delete(m, "encrypted_content")
	b, _ := json.Marshal(m)
	return string(b)
}

// TestToolCallBytesNotUTF8: a call's name, and its arguments after their
// first fragment, which pass on as the upstream wrote them, reach the
// client with each byte that is not UTF-8 as U+FFFD, whole and streamed:
// JSON.parse and Python's json, which the SDKs read with, refuse such
// bytes.
func TestToolCallBytesNotUTF8(t *testing.T) {
	bad := "\xb6"
	item := `{"id":"fc_1","type":"function_call","status":"completed","arguments":"{\"a\":\"` + bad + `\"}","call_id":"call_abc","name":"B` + bad + `"}`
	whole, err := TranslateAnswer([]byte(`{"id":"resp_1","object":"response","status":"completed","model":"gpt-5","output":[`+item+`],"usage":{"input_tokens":1,"output_tokens":1}}`),
		AnswerOptions{Model: "m", Signer: testSigner})
	if err != nil {
		t.Fatal(err)
	}
	stream := streamed([]string{
		`{"type":"response.created","response":{"id":"resp_1","status":"in_progress","output":[]}}`,
		`{"type":"response.output_item.added","output_index":0,"item":{"id":"fc_1","type":"function_call","call_id":"call_abc","name":"B` + bad + `"}}`,
		`{"type":"response.function_call_arguments.delta","item_id":"fc_1","output_index":0,"delta":"{\"a\":"}`,
		`{"type":"response.function_call_arguments.delta","item_id":"fc_1","output_index":0,"delta":"\"` + bad + `\"}"}`,
		`{"type":"response.output_item.done","output_index":0,"item":` + item + `}`,
		`{"type":"response.completed","response":{"id":"resp_1","status":"completed","output":[],"usage":{"input_tokens":1,"output_tokens":1}}}`,
	})
	if !utf8.Valid(whole) || !utf8.ValidString(stream) {
		t.Fatalf("not UTF-8:\n%q\n%q", whole, stream)
	}
	var w map[string]any
	if err := json.Unmarshal(whole, &w); err != nil {
		t.Fatal(err)
	}
	want, _ := json.Marshal([]any{map[string]any{"type": "tool_use", "id": "call_abc", "name": "B\uFFFD", "input": map[string]any{"a": "\uFFFD"}}})
	for how, content := range map[string]any{"whole": w["content"], "streamed": accumulate(t, stream)["content"]} {
		if got, _ := json.Marshal(content); string(got) != string(want) {
			t.Errorf("%s: %s, want %s", how, got, want)
		}
	}
}

// TestTextThatIsNoValidString: an item's text that is no string (none, a
// number) is passed over, streamed as whole; a string that is not valid
// JSON (a raw control character) fails the stream, and nothing follows the
// error. FuzzStream found a summary part with no text failing the stream
// in the middle of its item, which went on with a signature and a block
// stop after the error event.
func TestTextThatIsNoValidString(t *testing.T) {
	completed := `{"type":"response.completed","response":{"id":"resp_1","status":"completed","output":[],"usage":{"input_tokens":1,"output_tokens":1}}}`
	for name, tt := range map[string]struct {
		item  string
		fails bool
	}{
		"summary part with no text":   {`{"type":"reasoning","summary":[{"text":"a"},""],"encrypted_content":"x"}`, false},
		"summary text a number":       {`{"type":"reasoning","summary":[{"text":12345}],"encrypted_content":"x"}`, false},
		"message text a number":       {`{"type":"message","content":[{"type":"output_text","text":12345},{"type":"output_text","text":"b"}]}`, false},
		"summary text, a raw control": {`{"type":"reasoning","summary":[{"text":"a"},{"text":"b` + "\x01" + `"}],"encrypted_content":"x"}`, true},
		"message text, a raw control": {`{"type":"message","content":[{"type":"output_text","text":"a` + "\x01" + `"},{"type":"output_text","text":"b"}]}`, true},
		"content text, a raw control": {`{"type":"reasoning","content":[{"type":"reasoning_text","text":"a` + "\x01" + `"},{"type":"reasoning_text","text":"b"}]}`, true},
	} {
		t.Run(name, func(t *testing.T) {
			stream := streamed([]string{`{"type":"response.output_item.done","output_index":0,"item":` + tt.item + `}`, completed})
			if err := wellFormed(stream); err != nil {
				t.Fatalf("%v:\n%s", err, stream)
			}
			if failed := strings.Contains(stream, "event: error\n"); failed != tt.fails {
				t.Fatalf("failed %v:\n%s", failed, stream)
			}
			if tt.fails {
				return
			}
			whole, err := TranslateAnswer([]byte(`{"id":"resp_1","status":"completed","output":[`+tt.item+`]}`), AnswerOptions{Model: "m", Signer: testSigner})
			if err != nil {
				t.Fatal(err)
			}
			var w map[string]any
			if err := json.Unmarshal(whole, &w); err != nil {
				t.Fatal(err)
			}
			a, _ := json.Marshal(w["content"])
			b, _ := json.Marshal(accumulate(t, stream)["content"])
			if string(a) != string(b) {
				t.Errorf("\n whole    %s\n streamed %s", a, b)
			}
		})
	}
}
