package chatcompletions

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
)

const reasoningSig = `"llmthinking.v1.reasoning.abc"`

// claudeCodeRequest is a Messages request as Claude Code sends one, with
// a tool loop whose first call this server made (its reasoning signed
// with the reasoning prefix) and a second call Anthropic made (its
// thinking already stripped by llm_thinking, or not: either way it never
// reaches the server).
const claudeCodeRequest = `{"model":"claude-sonnet-4-5","messages":[
{"role":"user","content":[{"type":"text","text":"list files","cache_control":{"type":"ephemeral"}}]},
{"role":"assistant","content":[{"type":"thinking","thinking":"I will run ls.","signature":` + reasoningSig + `},{"type":"tool_use","id":"call_1","name":"Bash","input":{"command":"ls"}}]},
{"role":"user","content":[{"type":"tool_result","tool_use_id":"call_1","content":"a.txt"},{"type":"text","text":"and more"}]},
{"role":"assistant","content":[{"type":"thinking","thinking":"Anthropic's","signature":"EqwBCkYIBxgCKkA"},{"type":"redacted_thinking","data":"xx"},{"type":"text","text":"Again."},{"type":"tool_use","id":"toolu_2","name":"Bash","input":{"command":"ls -a"}}]},
{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_2","is_error":true,"content":[{"type":"text","text":"denied"}]},{"type":"image","source":{"type":"base64","media_type":"image/png","data":"iVBOR"}}]}],
"system":[{"type":"text","text":"You are Claude Code."},{"type":"text","text":"Be brief."}],
"tools":[{"name":"Bash","description":"Run","input_schema":{"type":"object","properties":{"command":{"type":"string"}}}},{"type":"web_search_20250305","name":"web_search"}],
"tool_choice":{"type":"any","disable_parallel_tool_use":true},
"metadata":{"user_id":"user_1"},"max_tokens":32000,"temperature":1,"top_k":5,"stop_sequences":["END"],
"thinking":{"budget_tokens":31999,"type":"enabled","display":"omitted"},"context_management":{"edits":[]},"output_config":{"effort":"high"},"stream":true}`

func TestTranslateRequest(t *testing.T) {
	tests := []struct {
		reasoning Reasoning
		sw        ThinkingSwitch
		want      string
	}{
		{ReasoningContent, SwitchNone, `{"model":"qwen3","messages":[` +
			`{"role":"system","content":"You are Claude Code.\n\nBe brief."},` +
			`{"role":"user","content":"list files"},` +
			`{"role":"assistant","content":null,"reasoning_content":"I will run ls.","tool_calls":[{"id":"call_1","type":"function","function":{"name":"Bash","arguments":"{\"command\":\"ls\"}"}}]},` +
			`{"role":"tool","content":"a.txt","tool_call_id":"call_1"},` +
			`{"role":"user","content":"and more"},` +
			`{"role":"assistant","content":"Again.","reasoning_content":"Step without its reasoning: called Bash {\"command\":\"ls -a\"} (toolu_2).","tool_calls":[{"id":"toolu_2","type":"function","function":{"name":"Bash","arguments":"{\"command\":\"ls -a\"}"}}]},` +
			`{"role":"tool","content":"Error: denied","tool_call_id":"toolu_2"},` +
			`{"role":"user","content":[{"type":"image_url","image_url":{"url":"data:image/png;base64,iVBOR"}}]}],` +
			`"max_tokens":32000,"temperature":1,"stop":["END"],"user":"user_1",` +
			`"tools":[{"type":"function","function":{"name":"Bash","description":"Run","parameters":{"type":"object","properties":{"command":{"type":"string"}}}}}],` +
			`"tool_choice":"required","parallel_tool_calls":false,"stream":true,"stream_options":{"include_usage":true}}`},
		{ReasoningField, SwitchReasoningEffort, `"reasoning":"I will run ls."`},
		{ReasoningField, SwitchReasoningEffort, `"reasoning":"Step without its reasoning: called Bash {\"command\":\"ls -a\"} (toolu_2).","tool_calls":[{"id":"toolu_2"`},
		{ReasoningField, SwitchReasoningEffort, `"reasoning_effort":"high"`},
		{ReasoningDetails, SwitchThinking, `"reasoning_details":[{"type":"reasoning.text","text":"I will run ls."}]`},
		{ReasoningDetails, SwitchThinking, `,"thinking":{"type":"enabled"}`},
		{ReasoningThinkTags, SwitchChatTemplateKwargs, `{"role":"assistant","content":"<think>\nI will run ls.\n</think>\n\n","tool_calls"`},
		{ReasoningThinkTags, SwitchChatTemplateKwargs, `"chat_template_kwargs":{"enable_thinking":true,"thinking":true}`},
		{ReasoningNone, SwitchNone, `{"role":"assistant","content":null,"tool_calls"`},
	}
	for _, tt := range tests {
		tr, err := TranslateRequest([]byte(claudeCodeRequest), RequestOptions{Model: "qwen3", Reasoning: tt.reasoning, ThinkingSwitch: tt.sw})
		if err != nil {
			t.Fatal(err)
		}
		got := string(tr.Body)
		if !json.Valid(tr.Body) || !strings.Contains(got, tt.want) {
			t.Errorf("%v %v:\n got %s\nwant %s", tt.reasoning, tt.sw, got, tt.want)
		}
		for _, never := range []string{"Anthropic's", "redacted", "context_management", "output_config", "top_k", "cache_control", "display", "web_search", "EqwBCk"} {
			if strings.Contains(got, never) {
				t.Errorf("%v: %q forwarded: %s", tt.reasoning, never, got)
			}
		}
		if tr.Model != "claude-sonnet-4-5" || !tr.Stream || tr.InputTokens <= 0 {
			t.Errorf("translated %+v", tr)
		}
	}
}

func TestTranslateRequestShapes(t *testing.T) {
	long := strings.Repeat("mcp__server__", 6) + "tool"
	tests := []struct{ name, body, want string }{
		{"string system and content", `{"model":"m","system":"S","messages":[{"role":"user","content":"hi"}]}`,
			`{"model":"m","messages":[{"role":"system","content":"S"},{"role":"user","content":"hi"}]}`},
		{"system messages inside messages join the first", `{"model":"m","system":"S","messages":[{"role":"user","content":"hi"},{"role":"system","content":[{"type":"text","text":"Env"}]}]}`,
			`{"model":"m","messages":[{"role":"system","content":"S\n\nEnv"},{"role":"user","content":"hi"}]}`},
		{"tool choices", `{"model":"m","messages":[],"tools":[{"name":"Bash","input_schema":{}}],"tool_choice":{"type":"tool","name":"Bash"}}`, `"tool_choice":{"type":"function","function":{"name":"Bash"}}`},
		{"tool choice none", `{"model":"m","messages":[],"tools":[{"name":"Bash","input_schema":{}}],"tool_choice":{"type":"none"}}`, `"tool_choice":"none"`},
		{"an unanswered call is answered", `{"model":"m","messages":[{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{}}]},{"role":"user","content":"stop"}]}`,
			`{"role":"tool","content":"(no result)","tool_call_id":"t1"},{"role":"user","content":"stop"}`},
		{"a result of no call is text", `{"model":"m","messages":[{"role":"user","content":[{"type":"tool_result","tool_use_id":"zz","content":"out"}]}]}`,
			`{"role":"user","content":"Tool result zz:\nout\n\n"}`},
		{"long tool names are shortened", `{"model":"m","messages":[],"tools":[{"name":"` + long + `","input_schema":{}}]}`,
			`"name":"` + long[:55] + `_`},
		{"image url", `{"model":"m","messages":[{"role":"user","content":[{"type":"text","text":"see"},{"type":"image","source":{"type":"url","url":"https://x/y.png"}}]}]}`,
			`[{"type":"text","text":"see"},{"type":"image_url","image_url":{"url":"https://x/y.png"}}]`},
		{"thinking off", `{"model":"m","messages":[],"thinking":{"type":"disabled"}}`, `{"model":"m","messages":[]}`},
		// llm_thinking gives every assistant message an empty unsigned
		// block for a server that wants reasoning on each (DeepSeek V4):
		// its field goes with the placeholder, and only there.
		{"a message whose thinking is not the server's", `{"model":"m","messages":[{"role":"user","content":"a"},` +
			`{"role":"assistant","content":[{"type":"thinking","thinking":"","signature":""},{"type":"text","text":"x"}]},{"role":"user","content":"b"},` +
			`{"role":"assistant","content":[{"type":"text","text":"y"}]},{"role":"user","content":"c"}]}`,
			`{"role":"assistant","content":"x","reasoning_content":"Step without its reasoning: answered \"x\"."},{"role":"user","content":"b"},{"role":"assistant","content":"y"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr, err := TranslateRequest([]byte(tt.body), RequestOptions{ThinkingSwitch: SwitchNone})
			if err != nil {
				t.Fatal(err)
			}
			if !json.Valid(tr.Body) || !strings.Contains(string(tr.Body), tt.want) {
				t.Errorf("\n got %s\nwant %s", tr.Body, tt.want)
			}
		})
	}
	tr, err := TranslateRequest([]byte(`{"model":"m","messages":[],"tools":[{"name":"`+long+`","input_schema":{}}]}`), RequestOptions{})
	if err != nil || len(tr.ToolNames) != 1 {
		t.Fatalf("a long tool name: %v, tool names %v", err, tr.ToolNames)
	}
	for short, orig := range tr.ToolNames {
		if len(short) != 64 || orig != long {
			t.Errorf("tool names %v", tr.ToolNames)
		}
	}
	if _, err := TranslateRequest([]byte(`{"messages":1}`), RequestOptions{}); err == nil {
		t.Error("a body without messages translated")
	}
	tr, _ = TranslateRequest([]byte(`{"model":"m","messages":[],"max_tokens":32000}`), RequestOptions{MaxTokens: 8192})
	if !strings.Contains(string(tr.Body), `"max_tokens":8192`) {
		t.Errorf("max_tokens not capped: %s", tr.Body)
	}
}

// TestTranslateClaudeCodeCaptures: every captured Claude Code request
// translates to valid JSON with no Anthropic-only field.
func TestTranslateClaudeCodeCaptures(t *testing.T) {
	files, _ := os.ReadDir("../../testdata/claude-code-2.1.328")
	n := 0
	for _, f := range files {
		if !strings.HasPrefix(f.Name(), "capture-") || strings.Contains(f.Name(), "headers") {
			continue
		}
		b, err := os.ReadFile("../../testdata/claude-code-2.1.328/" + f.Name())
		if err != nil {
			t.Fatal(err)
		}
		var capture struct {
			Body json.RawMessage `json:"body"`
		}
		body := b
		if json.Unmarshal(b, &capture) == nil && len(capture.Body) > 0 {
			body = capture.Body
		}
		tr, err := TranslateRequest(body, RequestOptions{})
		if err != nil {
			t.Errorf("%s: %v", f.Name(), err)
			continue
		}
		n++
		if !json.Valid(tr.Body) || strings.Contains(string(tr.Body), "context_management") || strings.Contains(string(tr.Body), `"signature"`) {
			t.Errorf("%s: %s", f.Name(), tr.Body[:min(len(tr.Body), 500)])
		}
	}
	if n == 0 {
		t.Fatal("no capture read")
	}
}

// TestThinkingOffForTheToolLoopRule: a config llm_thinking took out for the
// Messages API's tool-loop rule still turns the server's thinking on.
func TestThinkingOffForTheToolLoopRule(t *testing.T) {
	tr, err := TranslateRequest([]byte(`{"model":"m","messages":[{"role":"user","content":"hi"}]}`),
		RequestOptions{ThinkingSwitch: SwitchReasoningEffort, ThinkingOff: []byte(`{"type":"enabled","budget_tokens":2048}`)})
	if err != nil || !strings.Contains(string(tr.Body), `"reasoning_effort":"low"`) {
		t.Errorf("%v: %s", err, tr.Body)
	}
}
