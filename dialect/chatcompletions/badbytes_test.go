package chatcompletions

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/claudecode"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/messagesapi"
)

// TestBadBytesTheSameBothWays: an answer whose text is not UTF-8, whose
// reasoning holds a NUL, whose arguments nest deeper than 64 levels, gives
// the same message whole and streamed, valid for a strict decoder; one
// with a raw control character (no JSON) is refused both ways.
func TestBadBytesTheSameBothWays(t *testing.T) {
	deep := strings.Repeat(`{\"a\":`, 100) + "1" + strings.Repeat("}", 100)
	for name, msg := range map[string]string{
		"text not UTF-8":      `{"role":"assistant","content":"bad ` + "\xff" + ` b"}`,
		"NUL in reasoning":    `{"role":"assistant","reasoning_content":"a\u0000b","content":"hi"}`,
		"arguments 100 deep":  `{"role":"assistant","content":null,"tool_calls":[{"index":0,"id":"c1","type":"function","function":{"name":"Bash","arguments":"` + deep + `"}}]}`,
		"raw NUL (not JSON)":  `{"role":"assistant","reasoning_content":"a` + "\x00" + `b","content":"hi"}`,
		"reasoning not UTF-8": `{"role":"assistant","reasoning_content":"a ` + "\xfe" + `","content":"hi"}`,
		"name not UTF-8":      `{"role":"assistant","content":null,"tool_calls":[{"index":0,"id":"c1","type":"function","function":{"name":"Ba` + "\xb6" + `","arguments":"{}"}}]}`,
	} {
		t.Run(name, func(t *testing.T) {
			opts := AnswerOptions{Model: "m", Sign: DefaultSign("h:1")}
			whole, err := TranslateAnswer([]byte(`{"id":"x","object":"chat.completion","choices":[{"index":0,"message":`+msg+`,"finish_reason":"stop"}]}`), opts)
			chunk := `{"id":"x","object":"chat.completion.chunk","choices":[{"index":0,"delta":` + msg + `,"finish_reason":null}]}`
			end := `{"id":"x","object":"chat.completion.chunk","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`
			var events bytes.Buffer
			events.ReadFrom(messagesapi.NewReader(strings.NewReader("data: "+chunk+"\n\ndata: "+end+"\n\ndata: [DONE]\n\n"), NewStream(opts)))
			streamed, serr := claudecode.AssembleStream(events.Bytes())
			if (err == nil) != (serr == nil) || !utf8.Valid(events.Bytes()) {
				t.Fatalf("whole: %v, streamed: %v\n%q", err, serr, events.Bytes())
			}
			if err != nil {
				return
			}
			if !utf8.Valid(whole) {
				t.Fatalf("whole: %q", whole)
			}
			var w, s struct{ Content []map[string]any }
			json.Unmarshal(whole, &w)
			json.Unmarshal(streamed, &s)
			if len(w.Content) == 0 || !reflect.DeepEqual(w.Content, s.Content) {
				t.Errorf("\n whole    %.300s\n streamed %.300s", whole, streamed)
			}
		})
	}
}

// TestStreamBytesNotUTF8: what a stream passes on as the upstream wrote it
// (text after the first delta, reasoning, a tool's name, arguments after
// the first fragment) reaches the client with each byte that is not UTF-8
// as U+FFFD, as encoding/json reads it: JSON.parse and Python's json,
// which the SDKs read events with, refuse such bytes.
func TestStreamBytesNotUTF8(t *testing.T) {
	bad := "\xb6"
	for name, tt := range map[string]struct {
		chunks []string
		want   string // the first block, as JSON (\uFFFD for U+FFFD)
	}{
		"text after the first delta": {[]string{delta(`{"content":"hi"}`), delta(`{"content":" a` + bad + `"}`), finish("stop")},
			`{"text":"hi a\uFFFD","type":"text"}`},
		"reasoning": {[]string{delta(`{"reasoning_content":"a` + bad + `"}`), delta(`{"content":"hi"}`), finish("stop")},
			`{"signature":"-","thinking":"a\uFFFD","type":"thinking"}`},
		"a tool's name": {[]string{delta(`{"tool_calls":[{"index":0,"id":"c1","function":{"name":"B` + bad + `","arguments":"{}"}}]}`), finish("tool_calls")},
			`{"id":"c1","input":{},"name":"B\uFFFD","type":"tool_use"}`},
		"arguments after the first fragment": {[]string{delta(`{"tool_calls":[{"index":0,"id":"c1","function":{"name":"B","arguments":"{\"a\":"}}]}`),
			delta(`{"tool_calls":[{"index":0,"function":{"arguments":"\"` + bad + `\"}"}}]}`), finish("tool_calls")},
			`{"id":"c1","input":{"a":"\uFFFD"},"name":"B","type":"tool_use"}`},
	} {
		t.Run(name, func(t *testing.T) {
			out := translate(testOptions(), sse(tt.chunks...))
			a, err := checkStream(out)
			if err != nil {
				t.Fatal(err)
			}
			first := a.Blocks[0]
			if _, ok := first["signature"]; ok {
				first["signature"] = "-"
			}
			var want map[string]any
			if err := json.Unmarshal([]byte(tt.want), &want); err != nil || !reflect.DeepEqual(first, want) {
				t.Fatalf("first block %v, want %s", first, tt.want)
			}
		})
	}
}
