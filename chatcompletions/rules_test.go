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
