package chatcompletions

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestTranslateAnswer: a whole answer of each flavor gives the thinking
// block, the text, then the tool calls, with stop reason and usage mapped.
func TestTranslateAnswer(t *testing.T) {
	call := `"tool_calls":[{"id":"call_1","type":"function","function":{"name":"Bash","arguments":"{\"command\":\"ls\"}"}}]`
	usage := `"usage":{"prompt_tokens":120,"completion_tokens":30,"prompt_tokens_details":{"cached_tokens":100}}`
	tests := []struct{ name, body, want string }{
		{"DeepSeek", `{"id":"c1","choices":[{"message":{"role":"assistant","content":"Listing.","reasoning_content":"Let me look.",` + call + `},"finish_reason":"tool_calls"}],` + usage + `}`,
			`[thinking "Let me look."][text "Listing."][tool_use call_1 Bash {"command":"ls"}] tool_use`},
		{"vLLM", `{"choices":[{"message":{"content":"Listing.","reasoning":"Let me look.",` + call + `},"finish_reason":"tool_calls"}],` + usage + `}`,
			`[thinking "Let me look."][text "Listing."][tool_use call_1 Bash {"command":"ls"}] tool_use`},
		{"think tags (seed 004)", `{"choices":[{"message":{"content":"<think>用户用中文说你好。\n</think>\n\n你好！","reasoning_content":null},"finish_reason":"stop"}],` + usage + `}`,
			`[thinking "用户用中文说你好。\n"][text "你好！"] end_turn`},
		{"OpenRouter", `{"choices":[{"message":{"content":"Listing.","reasoning":"Let me look.","reasoning_details":[{"type":"reasoning.text","text":"Let me look."}]},"finish_reason":"stop"}],` + usage + `}`,
			`[thinking "Let me look."][text "Listing."] end_turn`},
		{"tool only, no empty text", `{"choices":[{"message":{"content":"",` + call + `},"finish_reason":"tool_calls"}],` + usage + `}`,
			`[tool_use call_1 Bash {"command":"ls"}] tool_use`},
		{"arguments not JSON", `{"choices":[{"message":{"content":null,"tool_calls":[{"id":"c","function":{"name":"Bash","arguments":"ls -la"}}]},"finish_reason":"tool_calls"}],` + usage + `}`,
			`[tool_use c Bash {"raw_arguments":"ls -la"}] tool_use`},
		{"arguments cut short", `{"choices":[{"message":{"content":null,"tool_calls":[{"id":"c","function":{"name":"Bash","arguments":"{\"command\":\"ls"}}]},"finish_reason":"length"}],` + usage + `}`,
			`[tool_use c Bash {"command":"ls"}] max_tokens`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body, err := TranslateAnswer([]byte(tt.body), testOptions())
			if err != nil {
				t.Fatal(err)
			}
			var m struct {
				Model      string           `json:"model"`
				Content    []map[string]any `json:"content"`
				StopReason string           `json:"stop_reason"`
				Usage      map[string]any   `json:"usage"`
			}
			if err := json.Unmarshal(body, &m); err != nil {
				t.Fatalf("%v: %s", err, body)
			}
			a := assembled{Blocks: m.Content, StopReason: m.StopReason}
			if got := a.summary(); got != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
			if m.Model != "claude-sonnet-4-5" || m.Usage["input_tokens"] != 20.0 || m.Usage["cache_read_input_tokens"] != 100.0 {
				t.Errorf("model %s usage %v", m.Model, m.Usage)
			}
		})
	}
}

func TestTranslateAnswerRefusesWhatIsNoAnswer(t *testing.T) {
	for _, body := range []string{``, `[]`, `{"choices":1}`, `not json`, `{"error":{"message":"boom"}}`} {
		if _, err := TranslateAnswer([]byte(body), testOptions()); err == nil {
			t.Errorf("%q: no error", body)
		}
	}
	if _, err := TranslateAnswer([]byte(`{"choices":[]}`), testOptions()); err != nil {
		t.Errorf("no choice: %v", err)
	}
}

func TestErrorBody(t *testing.T) {
	tests := []struct {
		status int
		body   string
		want   string
	}{
		{400, `{"error":{"message":"Missing ` + "`reasoning_content`" + ` field","type":"invalid_request_error"}}`, `{"type":"error","error":{"type":"invalid_request_error","message":"Missing ` + "`reasoning_content`" + ` field"}}`},
		{401, `{"error":"invalid key"}`, `{"type":"error","error":{"type":"authentication_error","message":"invalid key"}}`},
		{403, `{"message":"forbidden"}`, `{"type":"error","error":{"type":"permission_error","message":"forbidden"}}`},
		{404, `{"detail":"Not Found"}`, `{"type":"error","error":{"type":"not_found_error","message":"Not Found"}}`},
		{413, ``, `{"type":"error","error":{"type":"request_too_large","message":"upstream answered 413 Request Entity Too Large"}}`},
		{422, `{"detail":[{"loc":["body"],"msg":"bad"}]}`, `{"type":"error","error":{"type":"invalid_request_error","message":"bad"}}`},
		{422, `{"detail":[{"loc":["body","thinking","type"],"msg":"Input should be 'enabled' or 'disabled'"}]}`, `{"type":"error","error":{"type":"invalid_request_error","message":"thinking.type: Input should be 'enabled' or 'disabled'"}}`},
		{422, `{"detail":[{"what":"else"}]}`, `{"type":"error","error":{"type":"invalid_request_error","message":"[{\"what\":\"else\"}]"}}`},
		{429, `{"error":{"message":"slow down"}}`, `{"type":"error","error":{"type":"rate_limit_error","message":"slow down"}}`},
		{500, `<html>oops</html>`, `{"type":"error","error":{"type":"api_error","message":"<html>oops</html>"}}`},
		{529, `{}`, `{"type":"error","error":{"type":"overloaded_error","message":"upstream answered 529 "}}`},
		// OpenRouter, for the error of the provider behind it
		// (OpenRouterTeam/ai-sdk-provider #418).
		{400, `{"error":{"message":"Provider returned error","code":400,"metadata":{"raw":"{\n  \"error\": {\n    \"code\": 400,\n    \"message\": \"Corrupted thought signature.\",\n    \"status\": \"INVALID_ARGUMENT\"\n  }\n}\n","provider_name":"Google AI Studio","is_byok":false}},"user_id":"user_1"}`,
			`{"type":"error","error":{"type":"invalid_request_error","message":"Provider returned error: {\n  \"error\": {\n    \"code\": 400,\n    \"message\": \"Corrupted thought signature.\",\n    \"status\": \"INVALID_ARGUMENT\"\n  }\n}\n"}}`},
		// linanwx/nagobot #21: without the error member.
		{400, `{"message":"Provider returned error","code":400,"metadata":{"raw":"{\"message\":\"messages.7.content.2: Invalid signature in thinking block\"}","provider_name":"Amazon Bedrock","is_byok":false}}`,
			`{"type":"error","error":{"type":"invalid_request_error","message":"Provider returned error: {\"message\":\"messages.7.content.2: Invalid signature in thinking block\"}"}}`},
		{400, `{"error":{"message":"Provider returned error","metadata":{"raw":{"message":"Invalid signature"}}}}`,
			`{"type":"error","error":{"type":"invalid_request_error","message":"Provider returned error: {\"message\":\"Invalid signature\"}"}}`},
	}
	for _, tt := range tests {
		if got := string(ErrorBody(tt.status, []byte(tt.body))); got != tt.want {
			t.Errorf("%d %s:\n got %s\nwant %s", tt.status, tt.body, got, tt.want)
		}
	}
	long := strings.Repeat("é", 3000)
	if got := ErrorBody(500, []byte(long)); !json.Valid(got) || len(got) > 2*2048+100 {
		t.Errorf("a long message is cut to a valid envelope: %d bytes", len(got))
	}
}

// TestNoTags: with think_tags off, tags in the content are text, streamed
// and not.
func TestNoTags(t *testing.T) {
	opts := testOptions()
	opts.NoTags = true
	body, err := TranslateAnswer([]byte(`{"choices":[{"message":{"content":"<think>plan</think>done"},"finish_reason":"stop"}]}`), opts)
	if err != nil || !strings.Contains(string(body), `{"type":"text","text":"<think>plan</think>done"}`) || strings.Contains(string(body), `"thinking"`) {
		t.Fatalf("%v: %s", err, body)
	}
	a, err := checkStream(translate(opts, sse(delta(`{"content":"<think>pl"}`), delta(`{"content":"an</think>done"}`), finish("stop"), "[DONE]")))
	if err != nil || a.summary() != `[text "<think>plan</think>done"] end_turn` {
		t.Fatalf("%v: %s", err, a.summary())
	}
}
