package llmtest

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
)

// postChat sends a chat-completions request to u and returns the status and
// body.
func postChat(t *testing.T, u *ChatUpstream, body string) (int, []byte) {
	t.Helper()
	resp, err := http.Post(u.URL()+"/v1/chat/completions", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b
}

const bashTool = `"tools":[{"type":"function","function":{"name":"Bash","parameters":{"type":"object"}}}]`

// TestOpenRouterGeminiDetails: an OpenRouterGemini answers a call with
// reasoning_details (the text, then the signature as a reasoning.encrypted
// part with the call's id), takes them back as they came, and refuses the
// next request of the loop as OpenRouter does when the signed part is
// missing, when it is altered, and when it is another call's.
func TestOpenRouterGeminiDetails(t *testing.T) {
	u := NewChatUpstream("or", OpenRouterGemini)
	defer u.Close()
	status, b := postChat(t, u, `{"model":"google/gemini-3-pro-preview","messages":[{"role":"user","content":"[tool] ls"}],`+bashTool+`}`)
	var answer struct {
		Choices []struct {
			Message struct {
				ToolCalls        []chatToolCall    `json:"tool_calls"`
				ReasoningDetails []json.RawMessage `json:"reasoning_details"`
			} `json:"message"`
		} `json:"choices"`
	}
	if status != http.StatusOK || json.Unmarshal(b, &answer) != nil || len(answer.Choices) != 1 {
		t.Fatalf("%d %s", status, b)
	}
	msg := answer.Choices[0].Message
	var enc detailPart
	if len(msg.ToolCalls) != 1 || len(msg.ReasoningDetails) != 2 || json.Unmarshal(msg.ReasoningDetails[1], &enc) != nil ||
		enc.Type != "reasoning.encrypted" || enc.Format != "google-gemini-v1" || enc.ID != msg.ToolCalls[0].ID || enc.Data == "" ||
		!strings.Contains(string(msg.ReasoningDetails[0]), `"type":"reasoning.text"`) {
		t.Fatalf("answer: %s", b)
	}
	call, _ := json.Marshal(msg.ToolCalls)
	loop := func(details string) string {
		return `{"model":"google/gemini-3-pro-preview","messages":[{"role":"user","content":"[tool] ls"},` +
			`{"role":"assistant","content":null,` + details + `"tool_calls":` + string(call) + `},` +
			`{"role":"tool","tool_call_id":"` + msg.ToolCalls[0].ID + `","content":"a.go"}],` + bashTool + `}`
	}
	both, _ := json.Marshal(msg.ReasoningDetails)
	signedOnly, _ := json.Marshal(msg.ReasoningDetails[1:])
	altered := strings.Replace(string(signedOnly), enc.Data[:8], "AAAAAAAA", 1)
	otherID := strings.Replace(string(signedOnly), enc.ID, "call_other", 1)
	textOnly, _ := json.Marshal(msg.ReasoningDetails[:1])
	reordered, _ := json.Marshal([]json.RawMessage{msg.ReasoningDetails[1], msg.ReasoningDetails[0]})
	dummy := `[{"type":"reasoning.encrypted","data":"skip_thought_signature_validator","id":"` + enc.ID + `","format":"google-gemini-v1","index":0}]`

	missing := `{"error":{"code":400,"message":"Provider returned error","metadata":{"is_byok":false,"provider_name":"Google AI Studio","raw":` +
		quoteJSON(OpenRouterPreserveDetails+"{\n  \"error\": {\n    \"code\": 400,\n    \"message\": "+quoteJSON(MissingThoughtSignature("Bash", 2))+",\n    \"status\": \"INVALID_ARGUMENT\"\n  }\n}\n") +
		`}},"user_id":"user_mock"}`
	corrupted := `{"error":{"code":400,"message":"Provider returned error","metadata":{"is_byok":false,"provider_name":"Google AI Studio","raw":` +
		quoteJSON("{\n  \"error\": {\n    \"code\": 400,\n    \"message\": \"Corrupted thought signature.\",\n    \"status\": \"INVALID_ARGUMENT\"\n  }\n}\n") +
		`}},"user_id":"user_mock"}`
	for _, tt := range []struct {
		name, details string
		status        int
		body          string
	}{
		{"as they came", `"reasoning_details":` + string(both) + `,`, http.StatusOK, ""},
		{"the signed part alone", `"reasoning_details":` + string(signedOnly) + `,`, http.StatusOK, ""},
		{"the dummy", `"reasoning_details":` + dummy + `,`, http.StatusOK, ""},
		{"none", "", http.StatusBadRequest, missing},
		{"the text alone", `"reasoning_details":` + string(textOnly) + `,`, http.StatusBadRequest, missing},
		{"another call's id", `"reasoning_details":` + otherID + `,`, http.StatusBadRequest, corrupted},
		{"altered", `"reasoning_details":` + altered + `,`, http.StatusBadRequest, corrupted},
		{"reordered", `"reasoning_details":` + string(reordered) + `,`, http.StatusBadRequest, "not as this server sent them"},
	} {
		status, b := postChat(t, u, loop(tt.details))
		if status != tt.status || tt.status != http.StatusOK && !bytes.Contains(b, []byte(tt.body)) {
			t.Errorf("%s: %d %s", tt.name, status, b)
		}
		if tt.status == http.StatusBadRequest && tt.body != "" && tt.body[0] == '{' {
			var got, want any
			if json.Unmarshal(b, &got) != nil || json.Unmarshal([]byte(tt.body), &want) != nil || canonicalJSON(got) != canonicalJSON(want) {
				t.Errorf("%s: body\n %s\nwant\n %s", tt.name, b, tt.body)
			}
		}
	}
	// An older turn's call is not checked, as Gemini checks the current
	// turn's only.
	older := strings.Replace(loop(""), `"content":"a.go"}]`, `"content":"a.go"},{"role":"assistant","content":"done"},{"role":"user","content":"thanks"}]`, 1)
	if status, b := postChat(t, u, older); status != http.StatusOK {
		t.Errorf("older turn: %d %s", status, b)
	}
}

// TestOpenRouterGeminiStreamsTheSignature: streamed, the signature of a
// call comes in a chunk of its own before the call, with index 0; that of
// an answer without calls after its text.
func TestOpenRouterGeminiStreamsTheSignature(t *testing.T) {
	u := NewChatUpstream("or", OpenRouterGemini)
	defer u.Close()
	for _, tt := range []struct{ text, before, after string }{
		{"[tool] ls", `"reasoning.encrypted"`, `"tool_calls"`},
		{"hello", `"content":"or an`, `"reasoning.encrypted"`},
	} {
		status, b := postChat(t, u, `{"model":"google/gemini-3-pro-preview","stream":true,"messages":[{"role":"user","content":"`+tt.text+`"}],`+bashTool+`}`)
		first, second := bytes.Index(b, []byte(tt.before)), bytes.Index(b, []byte(tt.after))
		if status != http.StatusOK || first < 0 || second < first || !bytes.Contains(b, []byte(`"index":0,"type":"reasoning.encrypted"`)) {
			t.Errorf("%s: %d %s", tt.text, status, b)
		}
	}
}

// TestOpenAIReasoningModelsRefuseMaxTokens: gpt-5 and the o-series refuse
// max_tokens in OpenAI's words, param and code; max_completion_tokens and
// other models pass.
func TestOpenAIReasoningModelsRefuseMaxTokens(t *testing.T) {
	u := NewChatUpstream("openai", OpenAIStyle)
	defer u.Close()
	want := `{"error":{"code":"unsupported_parameter","message":"Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.","param":"max_tokens","type":"invalid_request_error"}}`
	for _, tt := range []struct {
		model, field string
		status       int
	}{
		{"gpt-5", "max_tokens", http.StatusBadRequest},
		{"gpt-5-mini", "max_tokens", http.StatusBadRequest},
		{"o4-mini", "max_tokens", http.StatusBadRequest},
		{"o3", "max_tokens", http.StatusBadRequest},
		{"gpt-5", "max_completion_tokens", http.StatusOK},
		{"gpt-4.1", "max_tokens", http.StatusOK},
	} {
		status, b := postChat(t, u, `{"model":"`+tt.model+`","messages":[{"role":"user","content":"hi"}],"`+tt.field+`":100}`)
		if status != tt.status {
			t.Errorf("%s %s: %d %s", tt.model, tt.field, status, b)
		}
		if tt.status == http.StatusBadRequest {
			var got any
			json.Unmarshal(b, &got)
			if canonicalJSON(got) != want {
				t.Errorf("%s: %s", tt.model, b)
			}
		}
	}
}

// TestKimiCodeRefusesEffortNone: reasoning_effort "none" is refused in Kimi
// Code's words and envelope; "low" passes.
func TestKimiCodeRefusesEffortNone(t *testing.T) {
	u := NewChatUpstream("kimi", KimiCodeStyle)
	defer u.Close()
	status, b := postChat(t, u, `{"model":"kimi-for-coding","messages":[{"role":"user","content":"hi"}],"reasoning_effort":"none"}`)
	want := `{"error":{"message":"Unsupported value: 'reasoning_effort' does not support 'none' with this model. Supported values are: 'minimal', 'low', 'medium', and 'high'.","type":"invalid_request_error"}}`
	if status != http.StatusBadRequest || string(b) != want {
		t.Errorf("none: %d %s", status, b)
	}
	if status, b := postChat(t, u, `{"model":"kimi-for-coding","messages":[{"role":"user","content":"hi"}],"reasoning_effort":"low"}`); status != http.StatusOK {
		t.Errorf("low: %d %s", status, b)
	}
}

func quoteJSON(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// TestToolParametersWithoutTools: tool_choice (none included) and
// parallel_tool_calls without tools are refused in OpenAI's words, by
// every flavor.
func TestToolParametersWithoutTools(t *testing.T) {
	u := NewChatUpstream("chat", DeepSeekStyle)
	defer u.Close()
	for _, tt := range []struct{ extra, param string }{
		{`"tool_choice":"none"`, "tool_choice"},
		{`"tool_choice":"auto","tools":[]`, "tool_choice"},
		{`"parallel_tool_calls":false`, "parallel_tool_calls"},
	} {
		status, b := postChat(t, u, `{"model":"m","messages":[{"role":"user","content":"hi"}],`+tt.extra+`}`)
		want := `{"error":{"code":null,"message":"Invalid value for '` + tt.param + `': '` + tt.param + `' is only allowed when 'tools' are specified.","param":"` + tt.param + `","type":"invalid_request_error"}}`
		var got any
		json.Unmarshal(b, &got)
		if status != http.StatusBadRequest || canonicalJSON(got) != want {
			t.Errorf("%s: %d %s", tt.extra, status, b)
		}
	}
	if status, b := postChat(t, u, `{"model":"m","messages":[{"role":"user","content":"hi"}],"tool_choice":"none",`+bashTool+`}`); status != http.StatusOK {
		t.Errorf("with tools: %d %s", status, b)
	}
}

// TestFileParts: a file part is taken with a filename and a base64 data
// URL, and refused without.
func TestFileParts(t *testing.T) {
	u := NewChatUpstream("chat", VLLMStyle)
	defer u.Close()
	for _, tt := range []struct {
		file   string
		status int
	}{
		{`{"filename":"a.pdf","file_data":"data:application/pdf;base64,JVBERi0="}`, http.StatusOK},
		{`{"file_data":"data:application/pdf;base64,JVBERi0="}`, http.StatusBadRequest},
		{`{"filename":"a.pdf","file_data":"https://example.com/a.pdf"}`, http.StatusBadRequest},
	} {
		status, b := postChat(t, u, `{"model":"m","messages":[{"role":"user","content":[{"type":"text","text":"read"},{"type":"file","file":`+tt.file+`}]}]}`)
		if status != tt.status {
			t.Errorf("%s: %d %s", tt.file, status, b)
		}
	}
}
