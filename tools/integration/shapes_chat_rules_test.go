package integration

import (
	"encoding/json"
	"fmt"
	"net/http"
	"testing"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/tools/llmtest"
)

// sideShapes are the requests of Claude Code's besides the main loop:
// its quota check, warm-up and key test (max_tokens 1, the content a
// string), the session title (tools [], thinking disabled, a JSON schema
// asked for: capture 6), a request with no tools and tool_choice none,
// and one with tools and tool_choice none (capture 1, changed).
func sideShapes(t *testing.T) map[string]map[string]json.RawMessage {
	t.Helper()
	shapes := map[string]map[string]json.RawMessage{}
	meta := claudeCodeCapture(t, "capture-6-interactive-title-side-request.json")["metadata"]
	for _, content := range []string{"quota", ".", "test"} {
		shapes["max_tokens 1, "+content] = map[string]json.RawMessage{
			"model": json.RawMessage(`"claude-haiku-4-5-20251001"`), "max_tokens": json.RawMessage(`1`),
			"messages": json.RawMessage(`[{"role":"user","content":` + quote(content) + `}]`), "metadata": meta}
	}
	shapes["title"] = claudeCodeCapture(t, "capture-6-interactive-title-side-request.json")
	noTools := claudeCodeCapture(t, "capture-1-first-turn.json")
	delete(noTools, "tools")
	noTools["tool_choice"] = json.RawMessage(`{"type":"none"}`)
	shapes["no tools, tool_choice none"] = noTools
	withTools := claudeCodeCapture(t, "capture-1-first-turn.json")
	withTools["tool_choice"] = json.RawMessage(`{"type":"none"}`)
	shapes["tools, tool_choice none"] = withTools
	return shapes
}

// TestClaudeCodeSideShapesThroughOpenAI: Claude Code's requests besides
// its main loop, through transport openai to each strict chat mock,
// streamed and not: each answered 200 with a valid Messages answer; no
// tool_choice without tools reaches a server (OpenAI refuses it); and
// count_tokens is answered by the transport, without asking the server.
func TestClaudeCodeSideShapesThroughOpenAI(t *testing.T) {
	for _, tc := range []struct {
		flavor llmtest.ChatFlavor
		block  string
	}{
		{llmtest.DeepSeekStyle, ""},
		{llmtest.VLLMStyle, "reasoning reasoning\n\t\t\tthinking_switch chat_template_kwargs"},
		{llmtest.ThinkTagged, "reasoning think_tags"},
		{llmtest.OpenRouterGemini, "model * " + geminiOnOpenRouter + "\n\t\t\treasoning reasoning_details"},
		{llmtest.OpenAIStyle, "model * gpt-5\n\t\t\treasoning none\n\t\t\tmax_tokens_field max_completion_tokens\n\t\t\tthinking_switch reasoning_effort"},
	} {
		t.Run(tc.flavor.String(), func(t *testing.T) {
			g, chat := newChatGateway(t, "chat", tc.flavor, "transport openai {\n\t\t\t"+tc.block+"\n\t\t}")
			h := claudeCodeHeaders(t)
			for name, shape := range sideShapes(t) {
				for _, stream := range []bool{true, false} {
					shape["stream"] = json.RawMessage(fmt.Sprint(stream))
					body, _ := json.Marshal(shape)
					status, _, b := g.send(t, "/v1/messages?beta=true", h, body)
					if status != http.StatusOK {
						t.Errorf("%s, stream %v: %d %s", name, stream, status, b)
						continue
					}
					messagesAnswer(t, fmt.Sprintf("%s, stream %v", name, stream), stream, b)
					top, _ := chatRequest(t, lastRequest(t, chat).Body)
					if _, has := top["tools"]; !has && (top["tool_choice"] != nil || top["parallel_tool_calls"] != nil) {
						t.Errorf("%s: tool_choice without tools: %s", name, lastRequest(t, chat).Body)
					}
				}
			}
			asked := len(chat.Requests())
			count := claudeCodeCapture(t, "capture-2-tool-result-same-run.json")
			delete(count, "stream")
			delete(count, "max_tokens")
			body, _ := json.Marshal(count)
			status, _, b := g.send(t, "/v1/messages/count_tokens?beta=true", h, body)
			var counted struct {
				InputTokens int `json:"input_tokens"`
			}
			if status != http.StatusOK || json.Unmarshal(b, &counted) != nil || counted.InputTokens <= 1000 || len(chat.Requests()) != asked {
				t.Errorf("count_tokens: %d %s, the server asked %d times", status, b, len(chat.Requests())-asked)
			}
			assertAccepted(t, tc.flavor.String(), chat)
		})
	}
}
