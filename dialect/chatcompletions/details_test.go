package chatcompletions

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/dialect/envelope"
)

// The shapes of OpenRouter serving google/gemini-3-pro-preview, as
// recorded in charmbracelet/fantasy's providertests (TestOpenRouterThinking),
// texts and signatures shortened.
const (
	geminiSig  = "CmIBjz1rX3+FHcC7Xt5yjwtDTiyVFmnBF0ZuAMrQYB/cbWdXb1BnYOjGOqnDrs6o7qQ4SXzsEsC1xHhreiaFBYcb2BsEjYgTFBOvdJ=="
	geminiCall = "tool_weather_Bn0mvxtpCZhM3MQlxpIi"
	// geminiJSONDetails is a whole answer's reasoning_details.
	geminiJSONDetails = `[{"type":"reasoning.text","text":"**Defining the User's Intent**\n\nI've just begun.\n\n\n","format":"google-gemini-v1","index":0},` +
		`{"type":"reasoning.encrypted","data":"` + geminiSig + `","format":"google-gemini-v1","id":"` + geminiCall + `","index":1}]`
	geminiJSON = `{"id":"gen-1773324241-tqjIYrNEmA40cPRRnkOm","object":"chat.completion","created":1773324241,"model":"google/gemini-3-pro-preview-20251117","provider":"Google",` +
		`"choices":[{"index":0,"logprobs":null,"finish_reason":"tool_calls","native_finish_reason":"STOP","message":{"role":"assistant","content":null,"refusal":null,` +
		`"reasoning":"**Defining the User's Intent**\n\nI've just begun.\n\n\n","tool_calls":[{"type":"function","index":0,"id":"` + geminiCall + `","function":{"name":"weather","arguments":"{\"location\":\"Florence, Italy\"}"}}],` +
		`"reasoning_details":` + geminiJSONDetails + `}}],"usage":{"prompt_tokens":28,"completion_tokens":103,"total_tokens":131}}`
)

// geminiStream is a streamed answer: two reasoning.text fragments, the
// signature in a chunk of its own (index 0), then the call.
func geminiStream(texts ...string) string {
	head := `{"id":"gen-1","object":"chat.completion.chunk","created":1,"model":"google/gemini-3-pro-preview","provider":"Google","choices":[{"index":0,"delta":`
	tail := `,"finish_reason":null,"native_finish_reason":null}]}`
	var chunks []string
	for _, t := range texts {
		lit, _ := json.Marshal(t)
		chunks = append(chunks, head+`{"content":"","role":"assistant","reasoning":`+string(lit)+`,"reasoning_details":[{"type":"reasoning.text","text":`+string(lit)+`,"format":"google-gemini-v1","index":0}]}`+tail)
	}
	chunks = append(chunks,
		head+`{"content":"","role":"assistant","reasoning":null,"reasoning_details":[{"type":"reasoning.encrypted","data":"`+geminiSig+`","format":"google-gemini-v1","id":"`+geminiCall+`","index":0}]}`+tail,
		head+`{"content":null,"role":"assistant","tool_calls":[{"index":0,"id":"`+geminiCall+`","type":"function","function":{"name":"weather","arguments":""}}]}`+tail,
		head+`{"content":null,"role":"assistant","tool_calls":[{"index":0,"function":{"arguments":"{\"location\":\"Florence, Italy\"}"}}]}`+tail,
		`{"id":"gen-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"","role":"assistant","reasoning":null},"finish_reason":"tool_calls","native_finish_reason":"STOP"}]}`,
		`{"id":"gen-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[],"usage":{"prompt_tokens":28,"completion_tokens":120,"total_tokens":148}}`,
		"[DONE]")
	return sse(chunks...)
}

var (
	detailsKey  = &envelope.Key{4, 2}
	detailsPeer = "openrouter.ai:443"
	detailsOpts = func() AnswerOptions {
		o := testOptions()
		o.Details = NewDetailsSigner(detailsKey, detailsPeer)
		return o
	}
	detailsReqTo = func(model string) RequestOptions {
		return RequestOptions{Model: model, Reasoning: ReasoningDetails, Details: NewDetailsSigner(detailsKey, detailsPeer)}
	}
)

// loopAfter is the next request of a tool loop whose assistant message
// holds blocks.
func loopAfter(t *testing.T, blocks []map[string]any, callID string) []byte {
	t.Helper()
	content, err := json.Marshal(blocks)
	if err != nil {
		t.Fatal(err)
	}
	return []byte(`{"model":"claude-sonnet-4-5","max_tokens":100,"messages":[{"role":"user","content":"weather?"},` +
		`{"role":"assistant","content":` + string(content) + `},` +
		`{"role":"user","content":[{"type":"tool_result","tool_use_id":"` + callID + `","content":"40 C"}]}],` +
		`"tools":[{"name":"weather","input_schema":{"type":"object"}}]}`)
}

// sentDetails returns the reasoning_details of the assistant message of a
// translated request, as written.
func sentDetails(t *testing.T, body []byte) string {
	t.Helper()
	var req struct {
		Messages []map[string]json.RawMessage `json:"messages"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		t.Fatalf("%v: %s", err, body)
	}
	for _, m := range req.Messages {
		if string(m["role"]) == `"assistant"` {
			return string(m["reasoning_details"])
		}
	}
	return ""
}

// TestDetailsRoundTrip: every part of reasoning_details OpenRouter sends
// with a Gemini 3 tool call, streamed or whole, comes back on that call's
// message as it came (a stream's text fragments merged), while the client
// sees the text as thinking.
func TestDetailsRoundTrip(t *testing.T) {
	text := "**Defining the User's Intent**\n\nI've just begun.\n\n\n"
	streamed := translate(detailsOpts(), geminiStream("**Defining the User's Intent**\n\n", "I've just begun.\n\n\n"))
	a, err := checkStream(streamed)
	if err != nil {
		t.Fatalf("%v\n%s", err, streamed)
	}
	whole, err := TranslateAnswer([]byte(geminiJSON), detailsOpts())
	if err != nil {
		t.Fatal(err)
	}
	var w struct{ Content []map[string]any }
	if err := json.Unmarshal(whole, &w); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name   string
		blocks []map[string]any
		want   string
	}{
		{"stream", a.Blocks, `[{"type":"reasoning.text","text":` + quoted(text) + `,"format":"google-gemini-v1","index":0},` +
			`{"type":"reasoning.encrypted","data":"` + geminiSig + `","format":"google-gemini-v1","id":"` + geminiCall + `","index":0}]`},
		{"json", w.Content, geminiJSONDetails},
	} {
		b := tt.blocks
		if len(b) != 2 || b[0]["type"] != "thinking" || b[0]["thinking"] != text || b[1]["id"] != geminiCall ||
			!strings.HasPrefix(b[0]["signature"].(string), "llmthinking.v1.reasoning.details.t") {
			t.Fatalf("%s: blocks %v", tt.name, b)
		}
		for _, model := range []string{"google/gemini-3-pro-preview", "anthropic/claude-sonnet-4.5"} {
			tr, err := TranslateRequest(loopAfter(t, b, geminiCall), detailsReqTo(model))
			if err != nil {
				t.Fatal(err)
			}
			if got := sentDetails(t, tr.Body); got != tt.want {
				t.Errorf("%s to %s: reasoning_details\n %s\nwant\n %s", tt.name, model, got, tt.want)
			}
		}
	}
}

func quoted(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// TestDetailsOfEveryKind: Anthropic's signed reasoning.text in fragments
// (the signature in the last), a second part, a redacted (encrypted) part,
// a summary and a part of a type nobody knows yet all come back, in their
// order, as they came; the client sees the texts.
func TestDetailsOfEveryKind(t *testing.T) {
	frag := func(d string) string {
		return delta(`{"reasoning":"x","reasoning_details":[` + d + `]}`)
	}
	in := sse(
		frag(`{"type":"reasoning.text","text":"Let me ","signature":null,"id":"rt-1","format":"anthropic-claude-v1","index":0}`),
		frag(`{"type":"reasoning.text","text":"think.","signature":null,"id":"rt-1","format":"anthropic-claude-v1","index":0}`),
		frag(`{"type":"reasoning.text","text":"","signature":"EqQBCkgIARAB==","id":"rt-1","format":"anthropic-claude-v1","index":0}`),
		frag(`{"type":"reasoning.encrypted","data":"EmwKAhgBEgy3","id":"re-2","format":"anthropic-claude-v1","index":1}`),
		frag(`{"type":"reasoning.summary","summary":" In short: yes.","format":"openai-responses-v1","index":2,"extra":{"kept":[1,2]}}`),
		frag(`{"type":"reasoning.future","blob":"\u00e9t\u00e9","index":3}`),
		delta(`{"content":"Yes."}`), finish("stop"), "[DONE]")
	for _, stream := range []bool{true, false} {
		var blocks []map[string]any
		if stream {
			out := translate(detailsOpts(), in)
			a, err := checkStream(out)
			if err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
			blocks = a.Blocks
		} else {
			body := `{"id":"x","choices":[{"message":{"role":"assistant","content":"Yes.","reasoning":"x","reasoning_details":[` +
				`{"type":"reasoning.text","text":"Let me think.","signature":"EqQBCkgIARAB==","id":"rt-1","format":"anthropic-claude-v1","index":0},` +
				`{"type":"reasoning.encrypted","data":"EmwKAhgBEgy3","id":"re-2","format":"anthropic-claude-v1","index":1},` +
				`{"type":"reasoning.summary","summary":" In short: yes.","format":"openai-responses-v1","index":2,"extra":{"kept":[1,2]}},` +
				`{"type":"reasoning.future","blob":"\u00e9t\u00e9","index":3}]},"finish_reason":"stop"}]}`
			out, err := TranslateAnswer([]byte(body), detailsOpts())
			if err != nil {
				t.Fatal(err)
			}
			var w struct{ Content []map[string]any }
			json.Unmarshal(out, &w)
			blocks = w.Content
		}
		if len(blocks) != 2 || blocks[0]["thinking"] != "Let me think. In short: yes." || blocks[1]["text"] != "Yes." {
			t.Fatalf("stream %v: blocks %v", stream, blocks)
		}
		tr, err := TranslateRequest(loopAfter(t, blocks, "none"), detailsReqTo("anthropic/claude-sonnet-4.5"))
		if err != nil {
			t.Fatal(err)
		}
		want := `[{"type":"reasoning.text","text":"Let me think.","signature":"EqQBCkgIARAB==","id":"rt-1","format":"anthropic-claude-v1","index":0},` +
			`{"type":"reasoning.encrypted","data":"EmwKAhgBEgy3","id":"re-2","format":"anthropic-claude-v1","index":1},` +
			`{"type":"reasoning.summary","summary":" In short: yes.","format":"openai-responses-v1","index":2,"extra":{"kept":[1,2]}},` +
			`{"type":"reasoning.future","blob":"\u00e9t\u00e9","index":3}]`
		if got := sentDetails(t, tr.Body); got != want {
			t.Errorf("stream %v: reasoning_details\n %s\nwant\n %s", stream, got, want)
		}
	}
}

// TestDetailsAfterText: parts that come after the text, before a call, go
// in an empty thinking block right before its tool_use, and back; parts
// after the text of an answer without calls are not carried (see
// details_stream.go).
func TestDetailsAfterText(t *testing.T) {
	enc := `{"reasoning_details":[{"type":"reasoning.encrypted","data":"` + geminiSig + `","format":"google-gemini-v1","id":"call_1","index":0}]}`
	withCall := translate(detailsOpts(), sse(delta(`{"content":"Let me look."}`), delta(enc),
		delta(`{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"weather","arguments":"{}"}}]}`), finish("tool_calls"), "[DONE]"))
	a, err := checkStream(withCall)
	if err != nil {
		t.Fatalf("%v\n%s", err, withCall)
	}
	if len(a.Blocks) != 3 || a.Blocks[0]["type"] != "text" || a.Blocks[1]["type"] != "thinking" || a.Blocks[1]["thinking"] != "" || a.Blocks[2]["type"] != "tool_use" {
		t.Fatalf("blocks %v", a.Blocks)
	}
	tr, err := TranslateRequest(loopAfter(t, a.Blocks, "call_1"), detailsReqTo("google/gemini-3-flash-preview"))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := sentDetails(t, tr.Body), `[{"type":"reasoning.encrypted","data":"`+geminiSig+`","format":"google-gemini-v1","id":"call_1","index":0}]`; got != want {
		t.Errorf("reasoning_details %s, want %s", got, want)
	}

	textOnly := translate(detailsOpts(), sse(delta(`{"content":"Hi."}`), delta(enc), finish("stop"), "[DONE]"))
	a, err = checkStream(textOnly)
	if err != nil || len(a.Blocks) != 1 || a.Blocks[0]["text"] != "Hi." {
		t.Fatalf("%v: %v", err, a.Blocks)
	}
}

// TestDetailsGoNowhereElse: a block whose envelope does not open (another
// upstream's, another key's, its text or payload altered, another
// provider's) gives the server nothing, not even its text; a Gemini model
// gets the dummy on such a call instead, other models nothing.
func TestDetailsGoNowhereElse(t *testing.T) {
	whole, err := TranslateAnswer([]byte(geminiJSON), detailsOpts())
	if err != nil {
		t.Fatal(err)
	}
	var w struct{ Content []map[string]any }
	json.Unmarshal(whole, &w)
	sig := w.Content[0]["signature"].(string)
	dummy := `[{"type":"reasoning.encrypted","data":"skip_thought_signature_validator","id":"` + geminiCall + `","format":"google-gemini-v1","index":0}]`
	for _, tt := range []struct {
		name string
		edit func(b map[string]any)
		opts RequestOptions
	}{
		{"another upstream", func(map[string]any) {}, RequestOptions{Reasoning: ReasoningDetails, Details: NewDetailsSigner(detailsKey, "other:443")}},
		{"another key", func(map[string]any) {}, RequestOptions{Reasoning: ReasoningDetails, Details: NewDetailsSigner(&envelope.Key{9}, detailsPeer)}},
		{"text altered", func(b map[string]any) { b["thinking"] = "**Defining** something else" }, detailsReqTo("")},
		{"payload altered", func(b map[string]any) { b["signature"] = strings.Replace(sig, "Bn0m", "XXXX", 1) }, detailsReqTo("")},
		{"another provider", func(b map[string]any) {
			b["signature"] = strings.Replace(sig, ".details.", ".gemini.", 1)
		}, detailsReqTo("")},
	} {
		blocks := []map[string]any{{}, w.Content[1]}
		for k, v := range w.Content[0] {
			blocks[0][k] = v
		}
		tt.edit(blocks[0])
		for _, model := range []string{"google/gemini-3-pro-preview", "deepseek/deepseek-v3.2"} {
			tt.opts.Model = model
			tr, err := TranslateRequest(loopAfter(t, blocks, geminiCall), tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			want := ""
			if model != "deepseek/deepseek-v3.2" {
				want = dummy
			}
			if got := sentDetails(t, tr.Body); got != want || bytes.Contains(tr.Body, []byte("Defining")) {
				t.Errorf("%s to %s: reasoning_details %s, want %s: %s", tt.name, model, got, want, tr.Body)
			}
		}
	}
}

// TestDetailsBlocksKeyAlike: the same answer streamed and whole gives the
// same thinking block, so the same key in llm_thinking's registry.
func TestDetailsBlocksKeyAlike(t *testing.T) {
	streamed := translate(detailsOpts(), sse(
		delta(`{"reasoning":"r1","reasoning_details":[{"type":"reasoning.text","text":"r1","format":"unknown","index":0}]}`),
		delta(`{"reasoning":"r2","reasoning_details":[{"type":"reasoning.text","text":"r2","format":"unknown","index":0}]}`),
		delta(`{"content":"answer"}`), finish("stop"), "[DONE]"))
	a, err := checkStream(streamed)
	if err != nil {
		t.Fatal(err)
	}
	whole, err := TranslateAnswer([]byte(`{"choices":[{"message":{"content":"answer","reasoning":"r1r2","reasoning_details":[{"type":"reasoning.text","text":"r1r2","format":"unknown","index":0}]},"finish_reason":"stop"}]}`), detailsOpts())
	if err != nil {
		t.Fatal(err)
	}
	var w struct{ Content []map[string]any }
	json.Unmarshal(whole, &w)
	if a.Blocks[0]["signature"] != w.Content[0]["signature"] || a.Blocks[0]["thinking"] != "r1r2" {
		t.Errorf("streamed %v, whole %v", a.Blocks[0], w.Content[0])
	}
}

// TestDetailsPayloadRefusesWhatDoesNotAddUp: a payload whose segments do
// not cover the block's text, or fall on a part without text, is refused.
func TestDetailsPayloadRefusesWhatDoesNotAddUp(t *testing.T) {
	for _, tt := range []struct {
		payload string
		textLen int
		ok      bool
	}{
		{`0:3.[{"type":"reasoning.text","text":""}]`, 3, true},
		{`0:3,-:2.[{"type":"reasoning.text","text":""}]`, 5, true},
		{`.[{"type":"reasoning.encrypted","data":"x"}]`, 0, true},
		{`0:3.[{"type":"reasoning.text","text":""}]`, 4, false},
		{`1:3.[{"type":"reasoning.text","text":""}]`, 3, false},
		{`0:3.[{"type":"reasoning.encrypted","data":"x"}]`, 3, false},
		{`0:3.[{"type":"reasoning.text","text":""}`, 3, false},
		{`0:3.{"type":"reasoning.text"}`, 3, false},
		{`x:3.[{"type":"reasoning.text","text":""}]`, 3, false},
		{`0:-3.[{"type":"reasoning.text","text":""}]`, -3, false},
		{`no dot`, 0, false},
	} {
		var p detailsPayload
		if got := p.parse([]byte(tt.payload), tt.textLen); got != tt.ok {
			t.Errorf("parse(%q, %d) = %v", tt.payload, tt.textLen, got)
		}
	}
}

// FuzzDetails: whatever reasoning_details a server streams or answers
// whole, the client's stream keeps the Messages rules, and the blocks it
// gets translate back to a valid request; a payload is read only when it
// adds up.
func FuzzDetails(f *testing.F) {
	f.Add(geminiStream("a", "b"), 100)
	f.Add(sse(delta(`{"reasoning_details":[{"type":"reasoning.text","text":null,"index":0},{"type":"reasoning.text","summary":"s","text":"t","index":0}]}`),
		delta(`{"reasoning_details":["odd",{"type":"reasoning.text","text":"u","index":0}]}`), finish("stop")), 40)
	f.Add(geminiJSON, 0)
	f.Fuzz(func(t *testing.T, in string, cut int) {
		if cut < 0 || cut > len(in) {
			cut = len(in) / 2
		}
		out := translate(detailsOpts(), in[:cut], in[cut:])
		a, err := checkStream(out)
		if err != nil {
			t.Fatalf("%v\nin  %q\nout %s", err, in, out)
		}
		blocks := a.Blocks
		if whole, err := TranslateAnswer([]byte(in), detailsOpts()); err == nil {
			var w struct{ Content []map[string]any }
			if err := json.Unmarshal(whole, &w); err != nil {
				t.Fatalf("answer %s: %v", whole, err)
			}
			blocks = append(blocks, w.Content...)
		}
		for _, b := range blocks {
			if b["type"] == "tool_use" {
				b["input"] = map[string]any{}
			}
		}
		tr, err := TranslateRequest(loopAfter(t, blocks, "c"), detailsReqTo("gemini-3"))
		if err != nil || !json.Valid(tr.Body) {
			t.Fatalf("%v: %s", err, tr.Body)
		}
	})
}
