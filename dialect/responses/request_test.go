package responses

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/dialect/envelope"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/messagesapi"
)

// assistantTurn returns the content the client keeps of the streamed answer.
func assistantTurn(t *testing.T, call bool) string {
	t.Helper()
	b, err := json.Marshal(accumulate(t, streamed(apiEvents(call)))["content"])
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func translate(t *testing.T, body string, opts RequestOptions) string {
	t.Helper()
	if opts.Signer.Key == nil {
		opts.Signer = testSigner
	}
	tr, err := TranslateRequest([]byte(body), opts)
	if err != nil {
		t.Fatal(err)
	}
	if !json.Valid(tr.Body) {
		t.Fatalf("not JSON: %s", tr.Body)
	}
	return string(tr.Body)
}

// The reasoning item of apiEvents, as it must go back.
const reasoningBack = `{"type":"reasoning","summary":[{"type":"summary_text","text":"**Plan**\n\nList the files \"now\"."},{"type":"summary_text","text":"Then answer."}],"encrypted_content":"gAAAAABenc-1=="}`

// TestAToolLoopGoesBackWithItsReasoning: the answer's reasoning item comes
// back byte for byte, before the call it led to, with the call's output.
func TestAToolLoopGoesBackWithItsReasoning(t *testing.T) {
	body := `{"model":"claude-sonnet-4-5","max_tokens":32000,"stream":true,"system":[{"type":"text","text":"You are Claude Code."}],
	"thinking":{"type":"enabled","budget_tokens":31999,"display":"omitted"},"temperature":1,"metadata":{"user_id":"u"},
	"tools":[{"name":"Bash","description":"Run","input_schema":{"type":"object","properties":{"command":{"type":"string"}},"required":["command"]}},{"type":"web_search_20250305","name":"web_search"}],
	"messages":[{"role":"user","content":"list the files"},{"role":"assistant","content":` + assistantTurn(t, true) + `},
	{"role":"user","content":[{"type":"tool_result","tool_use_id":"call_abc","content":"a\nb"},{"type":"text","text":"go on"}]}]}`
	got := translate(t, body, RequestOptions{Model: "gpt-5"})
	want := `{"model":"gpt-5","input":[` +
		`{"type":"message","role":"user","content":[{"type":"input_text","text":"list the files"}]},` +
		reasoningBack + `,` +
		`{"type":"function_call","call_id":"call_abc","name":"Bash","arguments":"{\"command\":\"ls\"}"},` +
		`{"type":"function_call_output","call_id":"call_abc","output":"a\nb"},` +
		`{"type":"message","role":"user","content":[{"type":"input_text","text":"go on"}]}],` +
		`"instructions":"You are Claude Code.",` +
		`"tools":[{"type":"function","name":"Bash","description":"Run","parameters":{"type":"object","properties":{"command":{"type":"string"}},"required":["command"]},"strict":false}],` +
		`"max_output_tokens":32000,"reasoning":{"effort":"high","summary":"auto"},"include":["reasoning.encrypted_content"],"store":false,"stream":true}`
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	// The text answer's item goes back before its message.
	body = `{"model":"m","messages":[{"role":"user","content":"hi"},{"role":"assistant","content":` + assistantTurn(t, false) + `},{"role":"user","content":"more"}]}`
	got = translate(t, body, RequestOptions{})
	if !strings.Contains(got, reasoningBack+`,{"type":"message","role":"assistant","content":[{"type":"output_text","text":"Two files: a, b."}]}`) {
		t.Errorf("the text answer went back as %s", got)
	}
}

// TestNoReasoningGoesWhereItMustNot: another upstream's, another key's, an
// altered one, a foreign block, and one left without the item it led to.
func TestNoReasoningGoesWhereItMustNot(t *testing.T) {
	turn := assistantTurn(t, true)
	req := func(content string) string {
		return `{"model":"m","messages":[{"role":"user","content":"x"},{"role":"assistant","content":` + content + `},{"role":"user","content":[{"type":"tool_result","tool_use_id":"call_abc","content":"ok"}]}]}`
	}
	for name, opts := range map[string]RequestOptions{
		"another upstream": {Signer: NewSigner(testSigner.Key, "other:443")},
		"another key":      {Signer: NewSigner(&envelope.Key{8}, testSigner.Upstream)},
		"gemini's":         {Signer: envelope.Signer{Key: testSigner.Key, Provider: "gemini", Upstream: testSigner.Upstream}},
	} {
		if got := translate(t, req(turn), opts); strings.Contains(got, `"reasoning"`) || !strings.Contains(got, `"function_call"`) {
			t.Errorf("%s: %s", name, got)
		}
	}
	altered := strings.Replace(turn, "Then answer.", "Then answer!", 1)
	if got := translate(t, req(altered), RequestOptions{}); strings.Contains(got, `"reasoning"`) {
		t.Errorf("altered text: %s", got)
	}
	foreign := `[{"type":"thinking","thinking":"hm","signature":"EqQBCkYIBRgCKkD"},{"type":"redacted_thinking","data":"xyz"},{"type":"tool_use","id":"toolu_01A","name":"Bash","input":{}}]`
	got := translate(t, `{"model":"m","messages":[{"role":"user","content":"x"},{"role":"assistant","content":`+foreign+`}]}`, RequestOptions{})
	want := `{"model":"m","input":[{"type":"message","role":"user","content":[{"type":"input_text","text":"x"}]},{"type":"function_call","call_id":"toolu_01A","name":"Bash","arguments":"{}"},{"type":"function_call_output","call_id":"toolu_01A","output":"(no result)"}],"store":false}`
	if got != want {
		t.Errorf("foreign blocks:\n got %s\nwant %s", got, want)
	}
	// The thinking alone (its call cut away): the item would have no
	// following item.
	var blocks []json.RawMessage
	json.Unmarshal([]byte(turn), &blocks)
	only := `[` + string(blocks[0]) + `]`
	got = translate(t, `{"model":"m","messages":[{"role":"user","content":"x"},{"role":"assistant","content":`+only+`},{"role":"user","content":"y"}]}`, RequestOptions{})
	want = `{"model":"m","input":[{"type":"message","role":"user","content":[{"type":"input_text","text":"x"}]},{"type":"message","role":"user","content":[{"type":"input_text","text":"y"}]}],"store":false}`
	if got != want {
		t.Errorf("a dangling item:\n got %s\nwant %s", got, want)
	}
}

// TestRequestFields: tool_choice, parallel calls, effort, summary, the
// cap, images, documents, errors, orphan results, the JSON format.
func TestRequestFields(t *testing.T) {
	for _, tt := range []struct {
		body string
		opts RequestOptions
		want []string
	}{
		{`{"model":"m","max_tokens":64000,"thinking":{"type":"adaptive"},"output_config":{"effort":"low"},"tool_choice":{"type":"any","disable_parallel_tool_use":true},"messages":[]}`,
			RequestOptions{MaxTokens: 8000, Summary: SummaryDetailed},
			[]string{`"tool_choice":"required","parallel_tool_calls":false`, `"max_output_tokens":8000`, `"reasoning":{"effort":"low","summary":"detailed"}`}},
		{`{"model":"m","thinking":{"type":"enabled","budget_tokens":8000},"tool_choice":{"type":"tool","name":"Bash"},"messages":[]}`,
			RequestOptions{Summary: SummaryNone},
			[]string{`"tool_choice":{"type":"function","name":"Bash"}`, `"reasoning":{"effort":"medium"},"include":["reasoning.encrypted_content"]`}},
		{`{"model":"m","thinking":{"type":"disabled"},"temperature":1,"output_config":{"format":{"type":"json_schema","schema":{"type":"object"}}},"messages":[]}`,
			RequestOptions{},
			[]string{`{"model":"m","input":[],"text":{"format":{"type":"json_schema","name":"output","strict":false,"schema":{"type":"object"}}},"store":false}`}},
		{`{"model":"m","messages":[{"role":"user","content":[{"type":"image","source":{"type":"base64","media_type":"image/png","data":"iVBO"}},{"type":"image","source":{"type":"url","url":"https://x/y.png"}},{"type":"document","source":{"type":"base64","media_type":"application/pdf","data":"JVBE"}},{"type":"document","source":{"type":"text","data":"notes"}}]}]}`,
			RequestOptions{},
			[]string{`[{"type":"input_image","image_url":"data:image/png;base64,iVBO"},{"type":"input_image","image_url":"https://x/y.png"},{"type":"input_file","filename":"document.pdf","file_data":"data:application/pdf;base64,JVBE"},{"type":"input_text","text":"notes"}]`}},
		{`{"model":"m","messages":[{"role":"assistant","content":[{"type":"tool_use","id":"toolu_1","name":"Bash","input":{"c":1}},{"type":"tool_use","id":"toolu_2","name":"Read","input":{}}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_2","is_error":true,"content":[{"type":"text","text":"no"}]},{"type":"tool_result","tool_use_id":"toolu_9","content":"late"}]}]}`,
			RequestOptions{},
			[]string{`{"type":"function_call","call_id":"toolu_1","name":"Bash","arguments":"{\"c\":1}"},{"type":"function_call","call_id":"toolu_2","name":"Read","arguments":"{}"},{"type":"function_call_output","call_id":"toolu_2","output":"Error: no"},{"type":"function_call_output","call_id":"toolu_1","output":"(no result)"},{"type":"message","role":"user","content":[{"type":"input_text","text":"Tool result toolu_9:\nlate\n\n"}]}`}},
	} {
		got := translate(t, tt.body, tt.opts)
		for _, w := range tt.want {
			if !strings.Contains(got, w) {
				t.Errorf("%s\n got %s\nwant %s in it", tt.body, got, w)
			}
		}
		for _, never := range []string{"temperature", "metadata", "thinking", "output_config", "budget"} {
			if strings.Contains(got, `"`+never+`"`) {
				t.Errorf("%s went as %s", never, got)
			}
		}
	}
	if _, err := TranslateRequest([]byte(`{"model":"m"}`), RequestOptions{}); err != messagesapi.ErrNotMessages {
		t.Errorf("no messages: %v", err)
	}
}

// TestCallIDsThatCannotBeToolUseIDs go to the client encoded and come
// back as they were.
func TestCallIDsThatCannotBeToolUseIDs(t *testing.T) {
	for _, id := range []string{"call_abc", "functions.Bash:0", strings.Repeat("x", 80), "toolu_rsp_trick", ""} {
		tu := string(appendToolUseID(nil, []byte(id)))
		if strings.Trim(tu, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-") != "" {
			t.Errorf("%q: tool_use id %q holds a character the Messages API refuses", id, tu)
		}
		if back := string(callIDOf([]byte(tu))); back != id {
			t.Errorf("%q came back as %q (through %q)", id, back, tu)
		}
	}
}

// TestThinkingOffForTheToolLoopRule: a request whose thinking config
// llm_thinking took out for the Messages API's tool-loop rule thinks as the
// client asked; one whose client turned thinking off does not.
func TestThinkingOffForTheToolLoopRule(t *testing.T) {
	cfg := []byte(`{"type":"enabled","budget_tokens":31999}`)
	got := translate(t, `{"model":"m","messages":[]}`, RequestOptions{ThinkingOff: cfg})
	if !strings.Contains(got, `"reasoning":{"effort":"high","summary":"auto"},"include":["reasoning.encrypted_content"]`) {
		t.Errorf("the config taken out: %s", got)
	}
	got = translate(t, `{"model":"m","thinking":{"type":"disabled"},"messages":[]}`, RequestOptions{ThinkingOff: cfg})
	if strings.Contains(got, `"reasoning"`) {
		t.Errorf("the client's own config: %s", got)
	}
	got = translate(t, `{"model":"m","messages":[]}`, RequestOptions{ThinkingOff: []byte(`{"type":`)})
	if strings.Contains(got, `"reasoning"`) {
		t.Errorf("a broken config: %s", got)
	}
}
