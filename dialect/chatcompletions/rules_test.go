package chatcompletions

import (
	"strings"
	"testing"
)

// TestServerRulesInTheTranslation: the cap goes under the name the
// server takes, and a model that always thinks is never told "none".
func TestServerRulesInTheTranslation(t *testing.T) {
	const msgs = `"messages":[{"role":"user","content":"hi"}],"max_tokens":32000`
	for _, tt := range []struct {
		name, body string
		opts       RequestOptions
		want, not  string
	}{
		{"max_tokens", `{"model":"m",` + msgs + `}`, RequestOptions{}, `"max_tokens":32000`, "max_completion_tokens"},
		{"max_completion_tokens", `{"model":"m",` + msgs + `}`, RequestOptions{MaxCompletionTokens: true, MaxTokens: 8000}, `"max_completion_tokens":8000`, `"max_tokens"`},
		{"off is none", `{"model":"m",` + msgs + `,"thinking":{"type":"disabled"}}`, RequestOptions{ThinkingSwitch: SwitchReasoningEffort}, `"reasoning_effort":"none"`, "low"},
		{"off, always thinks", `{"model":"m",` + msgs + `,"thinking":{"type":"disabled"}}`, RequestOptions{ThinkingSwitch: SwitchReasoningEffort, AlwaysThinks: true}, `"reasoning_effort":"low"`, "none"},
		{"nothing, always thinks", `{"model":"m",` + msgs + `}`, RequestOptions{ThinkingSwitch: SwitchReasoningEffort, AlwaysThinks: true}, `"reasoning_effort":"low"`, "none"},
		{"on, always thinks", `{"model":"m",` + msgs + `,"thinking":{"type":"enabled","budget_tokens":31999}}`, RequestOptions{ThinkingSwitch: SwitchReasoningEffort, AlwaysThinks: true}, `"reasoning_effort":"high"`, "low"},
		{"off, always thinks, thinking switch", `{"model":"m",` + msgs + `,"thinking":{"type":"disabled"}}`, RequestOptions{ThinkingSwitch: SwitchThinking, AlwaysThinks: true}, `"max_tokens":32000}`, "thinking"},
		{"off, always thinks, template", `{"model":"m",` + msgs + `,"thinking":{"type":"disabled"}}`, RequestOptions{ThinkingSwitch: SwitchChatTemplateKwargs, AlwaysThinks: true}, `"max_tokens":32000}`, "enable_thinking"},
		{"nothing, no switch", `{"model":"m",` + msgs + `}`, RequestOptions{AlwaysThinks: true}, `"max_tokens":32000}`, "reasoning_effort"},
		{"tool_choice without tools", `{"model":"m",` + msgs + `,"tools":[],"tool_choice":{"type":"none","disable_parallel_tool_use":true}}`, RequestOptions{}, `"max_tokens":32000}`, "tool"},
		{"tool_choice with server tools only", `{"model":"m",` + msgs + `,"tools":[{"type":"web_search_20250305","name":"web_search"}],"tool_choice":{"type":"auto"}}`, RequestOptions{}, `"max_tokens":32000}`, "tool"},
		{"tool_choice none with tools", `{"model":"m",` + msgs + `,"tools":[{"name":"Bash","input_schema":{"type":"object"}}],"tool_choice":{"type":"none"}}`, RequestOptions{}, `"tool_choice":"none"`, "parallel"},
	} {
		tr, err := TranslateRequest([]byte(tt.body), tt.opts)
		if err != nil {
			t.Fatal(err)
		}
		if got := string(tr.Body); !strings.Contains(got, tt.want) || strings.Contains(got, tt.not) {
			t.Errorf("%s: %s", tt.name, got)
		}
	}
}

// TestDocumentsGoAsFiles: the PDF Claude Code's Read tool returns in a
// tool result (its shape as Claude Code 2.1.328 sends it), and documents
// of a message, reach the server as chat completions takes them: file
// parts in the user message after the tool messages; a text document as
// text, one by URL named.
func TestDocumentsGoAsFiles(t *testing.T) {
	body := `{"model":"m","messages":[{"role":"user","content":"read it"},` +
		`{"role":"assistant","content":[{"type":"tool_use","id":"call_1","name":"Read","input":{"file_path":"/p/note.pdf"}}]},` +
		`{"role":"user","content":[{"type":"tool_result","tool_use_id":"call_1","content":[{"type":"text","text":"PDF file read: /p/note.pdf (389 bytes)"},` +
		`{"type":"document","source":{"type":"base64","media_type":"application/pdf","data":"JVBERi0xLjQK"}},{"type":"text","text":"<system-reminder>x</system-reminder>"}]},` +
		`{"type":"document","title":"spec.pdf","source":{"type":"base64","media_type":"application/pdf","data":"JVBERi0y"}},` +
		`{"type":"document","source":{"type":"text","media_type":"text/plain","data":"plain words"}},` +
		`{"type":"document","source":{"type":"url","url":"https://example.com/a.pdf"}}]}]}`
	tr, err := TranslateRequest([]byte(body), RequestOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"role":"tool","content":"PDF file read: /p/note.pdf (389 bytes)\n\n<system-reminder>x</system-reminder>","tool_call_id":"call_1"},` +
		`{"role":"user","content":[{"type":"file","file":{"filename":"document.pdf","file_data":"data:application/pdf;base64,JVBERi0xLjQK"}},` +
		`{"type":"file","file":{"filename":"spec.pdf","file_data":"data:application/pdf;base64,JVBERi0y"}},` +
		`{"type":"text","text":"plain words"},{"type":"text","text":"[document: https://example.com/a.pdf]"}]}`
	if !strings.Contains(string(tr.Body), want) {
		t.Errorf("got\n %s\nwant\n %s", tr.Body, want)
	}
}
