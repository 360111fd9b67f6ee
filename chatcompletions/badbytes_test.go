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
		"text not UTF-8":     `{"role":"assistant","content":"bad ` + "\xff" + ` b"}`,
		"NUL in reasoning":   `{"role":"assistant","reasoning_content":"a\u0000b","content":"hi"}`,
		"arguments 100 deep": `{"role":"assistant","content":null,"tool_calls":[{"index":0,"id":"c1","type":"function","function":{"name":"Bash","arguments":"` + deep + `"}}]}`,
		"raw NUL (not JSON)": `{"role":"assistant","reasoning_content":"a` + "\x00" + `b","content":"hi"}`,
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
