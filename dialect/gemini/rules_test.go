package gemini

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/claudecode"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/messagesapi"
)

// translated returns the generateContent body of a Messages request.
func translated(t *testing.T, body string, opts RequestOptions) map[string]any {
	t.Helper()
	if opts.Signer.Key == nil {
		opts.Signer = testSigner
	}
	tr, err := TranslateRequest([]byte(body), opts)
	if err != nil {
		t.Fatal(err)
	}
	var out map[string]any
	if err := json.Unmarshal(tr.Body, &out); err != nil {
		t.Fatalf("%v: %s", err, tr.Body)
	}
	return out
}

// generation returns the generationConfig of a translation, as JSON.
func generation(t *testing.T, body string, opts RequestOptions) string {
	t.Helper()
	b, _ := json.Marshal(translated(t, body, opts)["generationConfig"])
	return string(b)
}

// TestThinkingByLevelOrBudget: a model thinks by level or by budget by
// its name, unless the option (or a learned refusal, through it) says.
func TestThinkingByLevelOrBudget(t *testing.T) {
	req := func(model string) string {
		return `{"model":"` + model + `","max_tokens":100,"thinking":{"type":"enabled","budget_tokens":2048},"messages":[{"role":"user","content":"hi"}]}`
	}
	level := `{"maxOutputTokens":100,"thinkingConfig":{"includeThoughts":true,"thinkingLevel":"low"}}`
	budget := `{"maxOutputTokens":100,"thinkingConfig":{"includeThoughts":true,"thinkingBudget":2048}}`
	for _, tt := range []struct {
		model    string
		thinking Thinking
		want     string
	}{
		{"gemini-3-pro-preview", ThinkingAuto, level},
		{"gemini-flash-latest", ThinkingAuto, level},
		{"gemini-2.5-flash", ThinkingAuto, budget},
		{"gemini-flash-latest", ThinkingBudget, budget},
		{"gemma-4-31b-it", ThinkingBudget, budget},
		{"gemini-2.5-flash", ThinkingLevel, level},
	} {
		if got := generation(t, req(tt.model), RequestOptions{Thinking: tt.thinking}); got != tt.want {
			t.Errorf("%s, %d: %s, want %s", tt.model, tt.thinking, got, tt.want)
		}
	}
	for s, want := range map[string]Thinking{"": ThinkingAuto, "auto": ThinkingAuto, "level": ThinkingLevel, "budget": ThinkingBudget} {
		if got, err := ParseThinking(s); err != nil || got != want {
			t.Errorf("ParseThinking(%q) = %d, %v", s, got, err)
		}
	}
	if _, err := ParseThinking("high"); err == nil {
		t.Error("ParseThinking took high")
	}
}

// TestOutputCap: max_tokens is capped by the option and clamped to what
// every Gemini model takes; a value under 1 asks for 1.
func TestOutputCap(t *testing.T) {
	for _, tt := range []struct {
		asked, option int
		want          string
	}{
		{32000, 0, `{"maxOutputTokens":32000}`},
		{128000, 0, `{"maxOutputTokens":65535}`},
		{65536, 0, `{"maxOutputTokens":65535}`},
		{32000, 8192, `{"maxOutputTokens":8192}`},
		{1000, 8192, `{"maxOutputTokens":1000}`},
		{0, 0, `{"maxOutputTokens":1}`},
		{128000, 100000, `{"maxOutputTokens":65535}`},
	} {
		body := `{"model":"m","max_tokens":` + itoa(tt.asked) + `,"messages":[{"role":"user","content":"hi"}]}`
		if got := generation(t, body, RequestOptions{Model: "gemini-3-pro-preview", MaxTokens: tt.option}); got != tt.want {
			t.Errorf("max_tokens %d, option %d: %s, want %s", tt.asked, tt.option, got, tt.want)
		}
	}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// toolResultRequest is a tool loop whose result holds text, a PDF, a PNG,
// a GIF, a plain-text document and a document of the Files API.
const toolResultRequest = `{"model":"claude-sonnet-4-5","messages":[` +
	`{"role":"user","content":"read the files"},` +
	`{"role":"assistant","content":[{"type":"tool_use","id":"toolu_gc1","name":"Read","input":{"file_path":"a.pdf"}}]},` +
	`{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_gc1","content":[` +
	`{"type":"text","text":"PDF file read"},` +
	`{"type":"document","source":{"type":"base64","media_type":"application/pdf","data":"JVBERi0x"}},` +
	`{"type":"image","source":{"type":"base64","media_type":"image/png","data":"iVBORw0K"}},` +
	`{"type":"image","source":{"type":"base64","media_type":"image/gif","data":"R0lGODlh"}},` +
	`{"type":"document","source":{"type":"text","media_type":"text/plain","data":"plain words"}},` +
	`{"type":"document","source":{"type":"file","file_id":"file_1"}}]},` +
	`{"type":"text","text":"what do they say?"}]}]}`

// TestMediaOfToolResults: for Gemini 3, the images and documents of a
// tool result of the types Google documents there go inside its function
// response; the others follow the responses, as all of them do for a
// model that thinks by budget; a plain-text document as text, a Files API
// document nowhere (Gemini has no form for it).
func TestMediaOfToolResults(t *testing.T) {
	parts := func(out map[string]any) string {
		b, _ := json.Marshal(out["contents"].([]any)[2].(map[string]any)["parts"])
		return string(b)
	}
	response := `"response":{"output":"PDF file read"}}}`
	inside := `{"functionResponse":{"id":"c1","name":"Read","parts":[{"inlineData":{"data":"JVBERi0x","mimeType":"application/pdf"}},` +
		`{"inlineData":{"data":"iVBORw0K","mimeType":"image/png"}}],` + response + `,` +
		`{"inlineData":{"data":"R0lGODlh","mimeType":"image/gif"}},{"text":"plain words"},{"text":"what do they say?"}]`
	if got := parts(translated(t, toolResultRequest, RequestOptions{Model: "gemini-3-pro-preview"})); got != "["+inside {
		t.Errorf("Gemini 3:\n got %s\nwant [%s", got, inside)
	}
	after := `{"functionResponse":{"id":"c1","name":"Read",` + response + `,{"inlineData":{"data":"JVBERi0x","mimeType":"application/pdf"}},{"inlineData":{"data":"iVBORw0K","mimeType":"image/png"}},` +
		`{"inlineData":{"data":"R0lGODlh","mimeType":"image/gif"}},{"text":"plain words"},{"text":"what do they say?"}]`
	for _, opts := range []RequestOptions{{Model: "gemini-2.5-flash"}, {Model: "gemini-flash-latest", Thinking: ThinkingBudget}, {Model: "gemma-4-31b-it"}} {
		if got := parts(translated(t, toolResultRequest, opts)); got != "["+after {
			t.Errorf("%s:\n got %s\nwant [%s", opts.Model, got, after)
		}
	}
}

// TestNoAnswer: an answer with no text nor call and a finish reason of
// failure is a *NoAnswer, whole or streamed (an error event the client
// retries, never an empty end_turn); one that said something is an
// answer.
func TestNoAnswer(t *testing.T) {
	for _, tt := range []struct {
		answer, reason string
	}{
		{`{"candidates":[{"finishReason":"MALFORMED_FUNCTION_CALL","finishMessage":"Malformed function call: x(","index":0}]}`, "MALFORMED_FUNCTION_CALL"},
		{`{"candidates":[{"content":{},"finishReason":"UNEXPECTED_TOOL_CALL","index":0}]}`, "UNEXPECTED_TOOL_CALL"},
		{`{"candidates":[{"content":{"role":"model","parts":[{"text":"hmm","thought":true}]},"finishReason":"TOO_MANY_TOOL_CALLS"}]}`, "TOO_MANY_TOOL_CALLS"},
		{`{"candidates":[{"content":{"role":"model","parts":[{"text":"I tried."}]},"finishReason":"MALFORMED_FUNCTION_CALL"}]}`, ""},
		{`{"candidates":[{"finishReason":"STOP","index":0}]}`, ""},
	} {
		_, err := TranslateAnswer([]byte(tt.answer), answerOptions())
		var na *NoAnswer
		if errors.As(err, &na) != (tt.reason != "") || na != nil && na.Reason != tt.reason {
			t.Errorf("%s: %v", tt.answer, err)
		}
		s := NewStream(answerOptions())
		out := string(messagesapiStream(s, tt.answer))
		if tt.reason == "" {
			if s.NoAnswer() != nil || !strings.Contains(out, "event: message_stop") {
				t.Errorf("%s streamed: %s", tt.answer, out)
			}
			continue
		}
		if s.NoAnswer() == nil || !strings.Contains(out, `event: error`) || !strings.Contains(out, `"type":"api_error"`) ||
			!strings.Contains(out, tt.reason) || strings.Contains(out, "message_delta") {
			t.Errorf("%s streamed: %s", tt.answer, out)
		}
	}
	_, err := TranslateAnswer([]byte(`{"candidates":[{"finishReason":"MALFORMED_FUNCTION_CALL","finishMessage":"Malformed function call: x(","index":0}]}`), answerOptions())
	if err.Error() != "the model failed to produce an answer (Gemini finishReason MALFORMED_FUNCTION_CALL: Malformed function call: x()" {
		t.Errorf("message %q", err)
	}
}

// messagesapiStream runs one event through s.
func messagesapiStream(s *Stream, event string) []byte {
	var out strings.Builder
	r := messagesapi.NewReader(strings.NewReader("data: "+event+"\r\n\r\n"), s)
	buf := make([]byte, 4096)
	for {
		n, err := r.Read(buf)
		out.Write(buf[:n])
		if err != nil {
			return []byte(out.String())
		}
	}
}

// TestBadBytesTheSameBothWays: what is wrong in an answer's values is
// repaired the same way whole and streamed: text, a call's arguments or
// name that are not UTF-8 get U+FFFD, a thought with a raw NUL keeps it (escaped), arguments nested
// too deep for a JSON reader or that are not an object are kept as
// raw_arguments; the client's strict decoder reads every byte.
func TestBadBytesTheSameBothWays(t *testing.T) {
	deep := strings.Repeat(`{"a":`, 10001) + "1" + strings.Repeat("}", 10001)
	for _, tt := range []struct {
		name, answer string
		want         func(content []map[string]any) bool
	}{
		{"invalid UTF-8", `{"candidates":[{"content":{"parts":[{"text":"bad ` + "\xff\xfe" + ` bytes"}]},"finishReason":"STOP"}]}`,
			func(c []map[string]any) bool { return c[0]["text"] == "bad \uFFFD\uFFFD bytes" }},
		{"raw NUL in a thought", `{"candidates":[{"content":{"parts":[{"text":"a` + "\x00" + `b","thought":true},{"text":"hi"}]},"finishReason":"STOP"}]}`,
			func(c []map[string]any) bool { return c[0]["thinking"] == "a\x00b" && c[1]["text"] == "hi" }},
		{"escaped NUL in a thought", `{"candidates":[{"content":{"parts":[{"text":"a\u0000b","thought":true},{"text":"hi"}]},"finishReason":"STOP"}]}`,
			func(c []map[string]any) bool { return c[0]["thinking"] == "a\x00b" }},
		// Found by FuzzTranslateAnswer: the args were copied as they
		// came, and a strict decoder refused the whole answer.
		{"arguments not UTF-8", `{"candidates":[{"content":{"parts":[{"functionCall":{"args":{"":"` + "\xb6" + `"}}}]},"finishReason":"STOP"}]}`,
			func(c []map[string]any) bool { return c[0]["input"].(map[string]any)[""] == "\uFFFD" }},
		{"name not UTF-8", `{"candidates":[{"content":{"parts":[{"functionCall":{"name":"f` + "\xff" + `","args":{"a":"` + "\xe2\x82" + `"}}}]},"finishReason":"STOP"}]}`,
			func(c []map[string]any) bool {
				return c[0]["name"] == "f\uFFFD" && c[0]["input"].(map[string]any)["a"] == "\uFFFD\uFFFD"
			}},
		{"arguments too deep", `{"candidates":[{"content":{"parts":[{"functionCall":{"name":"f","args":` + deep + `}}]},"finishReason":"STOP"}]}`,
			func(c []map[string]any) bool { return c[0]["input"].(map[string]any)["raw_arguments"] == deep }},
		{"arguments not an object", `{"candidates":[{"content":{"parts":[{"functionCall":{"name":"f","args":[1,2]}}]},"finishReason":"STOP"}]}`,
			func(c []map[string]any) bool { return c[0]["input"].(map[string]any)["raw_arguments"] == "[1,2]" }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			whole, err := TranslateAnswer([]byte(tt.answer), answerOptions())
			if err != nil {
				t.Fatal(err)
			}
			streamed, err := claudecode.AssembleStream(streamOf(t, tt.answer))
			if err != nil {
				t.Fatal(err)
			}
			for name, b := range map[string][]byte{"whole": whole, "streamed": streamed} {
				if !utf8.Valid(b) || !json.Valid(b) {
					t.Fatalf("%s is not valid UTF-8 JSON: %q", name, b)
				}
			}
			w, s := contentOf(t, whole), contentOf(t, streamed)
			if !tt.want(w) || !reflect.DeepEqual(w, s) {
				t.Errorf("\n whole    %s\n streamed %s", whole, streamed)
			}
		})
	}
}

// contentOf returns the content blocks of a message, the ids of tool_use
// blocks left out (minted at random).
func contentOf(t *testing.T, msg []byte) []map[string]any {
	t.Helper()
	var m struct{ Content []map[string]any }
	if err := json.Unmarshal(msg, &m); err != nil {
		t.Fatal(err)
	}
	for _, b := range m.Content {
		delete(b, "id")
	}
	return m.Content
}

// TestResponsesInTheCallsOrder: Claude Code sends the results of parallel
// calls as its tools finish; Gemini gets the responses in the calls'
// order, a call without a result answered in its place.
func TestResponsesInTheCallsOrder(t *testing.T) {
	body := `{"model":"claude-sonnet-4-5","messages":[{"role":"user","content":"go"},` +
		`{"role":"assistant","content":[{"type":"tool_use","id":"toolu_gA","name":"Read","input":{}},{"type":"tool_use","id":"toolu_gB","name":"Bash","input":{}},{"type":"tool_use","id":"toolu_gC","name":"Grep","input":{}}]},` +
		`{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_gC","content":"c"},{"type":"tool_result","tool_use_id":"toolu_gA","content":"a"}]}]}`
	b, _ := json.Marshal(translated(t, body, RequestOptions{Model: "gemini-3-pro-preview"})["contents"].([]any)[2])
	want := `{"parts":[{"functionResponse":{"id":"A","name":"Read","response":{"output":"a"}}},` +
		`{"functionResponse":{"id":"B","name":"Bash","response":{"output":"(no result)"}}},` +
		`{"functionResponse":{"id":"C","name":"Grep","response":{"output":"c"}}}],"role":"user"}`
	if string(b) != want {
		t.Errorf("\n got %s\nwant %s", b, want)
	}
}
