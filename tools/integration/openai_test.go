package integration

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/tools/llmtest"
)

// TestOpenAIToolLoop runs a tool loop through llm_thinking and transport
// openai on each flavor of server, streamed and not: the client gets the
// server's reasoning as a thinking block before the tool call, under the
// model it asked for; the server gets its request in its own API, and its
// reasoning back where it reads it.
func TestOpenAIToolLoop(t *testing.T) {
	for _, fl := range llmtest.ChatFlavors {
		for _, stream := range []bool{true, false} {
			t.Run(fmt.Sprintf("%v stream %v", fl, stream), func(t *testing.T) {
				testOpenAIToolLoop(t, fl, fl.Reasoning(), stream)
			})
		}
	}
}

func testOpenAIToolLoop(t *testing.T, f llmtest.ChatFlavor, reasoning string, stream bool) {
	g, chat := newChatGateway(t, "chat", f,
		"transport openai {\n\t\t\tmodel claude-* served-model\n\t\t\treasoning "+reasoning+"\n\t\t}")
	chat.RequireKey("sk-test")
	chat.ServeModel("served-model")
	c, ok := g.session("openai-loop")
	c.Stream = stream

	// Tags keep the newline the model wrote before </think>.
	thought := func(n int) string {
		if f == llmtest.ThinkTagged {
			return chat.Reasoning(n) + "\n"
		}
		return chat.Reasoning(n)
	}
	turn := ok(c.Say("[tool] list the files"))
	blocks := blocksOf(t, turn.Message)
	if len(blocks) != 2 || blocks[0].Type != "thinking" || blocks[0].Thinking != thought(1) ||
		!strings.HasPrefix(blocks[0].Signature, "llmthinking.v1.reasoning.") ||
		blocks[1].Type != "tool_use" || blocks[1].ID != "call_chat_1" || blocks[1].Name != "Bash" || string(blocks[1].Input) != `{"command":"echo chat"}` {
		t.Fatalf("answer 1: %s", turn.Message)
	}
	if turn.Model != "claude-sonnet-4-5" || turn.StopReason != "tool_use" {
		t.Errorf("answer 1 names model %q, stop %q", turn.Model, turn.StopReason)
	}
	first := lastRequest(t, chat)
	top, _ := chatRequest(t, first.Body)
	if string(top["model"]) != `"served-model"` || first.Path != "/v1/chat/completions" || first.RawQuery != "" {
		t.Errorf("request 1 went to %s?%s for model %s", first.Path, first.RawQuery, top["model"])
	}
	for name := range first.Header {
		if strings.HasPrefix(name, "Anthropic-") || name == "X-Api-Key" {
			t.Errorf("request 1 carried the Anthropic header %s", name)
		}
	}
	if stream && string(top["stream_options"]) != `{"include_usage":true}` {
		t.Errorf("stream_options %s", top["stream_options"])
	}

	turn = ok(c.ToolResult("file1 file2"))
	_, msgs := chatRequest(t, lastRequest(t, chat).Body)
	if len(msgs) != 4 || msgs[0].Role != "system" || msgs[2].Role != "assistant" || msgs[3].Role != "tool" || msgs[3].ToolCallID != "call_chat_1" {
		t.Fatalf("request 2 messages: %s", lastRequest(t, chat).Body)
	}
	assertReasoningBack(t, msgs[2], reasoning, chat.Reasoning(1))
	blocks = blocksOf(t, turn.Message)
	if len(blocks) != 2 || blocks[0].Thinking != thought(2) || blocks[1].Type != "text" || blocks[1].Text != "chat answer 2." {
		t.Errorf("answer 2: %s", turn.Message)
	}
	if st := g.stats(); st.Blocks != 2 || st.Retries != 0 {
		t.Errorf("registry holds %d blocks after %d retries, want the 2 made from reasoning and none", st.Blocks, st.Retries)
	}
}

// assertReasoningBack checks that an assistant message of a request
// carries the reasoning where the server reads it.
func assertReasoningBack(t *testing.T, m chatMessage, reasoning, want string) {
	t.Helper()
	switch reasoning {
	case "reasoning_content":
		if m.ReasoningContent == nil || *m.ReasoningContent != want {
			t.Errorf("reasoning_content %v, want %q", m.ReasoningContent, want)
		}
	case "reasoning":
		if m.Reasoning == nil || *m.Reasoning != want {
			t.Errorf("reasoning %v, want %q", m.Reasoning, want)
		}
	case "reasoning_details":
		// The part as the server sent it, member for member.
		if w := `[{"format":"unknown","index":0,"text":` + quote(want) + `,"type":"reasoning.text"}]`; string(m.ReasoningDetails) != w {
			t.Errorf("reasoning_details %s, want %s", m.ReasoningDetails, w)
		}
	case "think_tags":
		var content string
		json.Unmarshal(m.Content, &content)
		if w := "<think>\n" + want + "\n</think>\n\n"; content != w {
			t.Errorf("content %q, want %q", content, w)
		}
	}
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// TestOpenAISwitchInsideToolLoop switches Anthropic -> OpenAI -> Anthropic
// inside one tool loop: the chat server never sees Anthropic's thinking
// (its mock refuses reasoning it did not produce) yet gets the reasoning
// field DeepSeek demands on Anthropic's tool call, and Anthropic gets every
// block of its own back, with no refusal to replay.
func TestOpenAISwitchInsideToolLoop(t *testing.T) {
	for _, stream := range []bool{true, false} {
		t.Run(fmt.Sprint("stream ", stream), func(t *testing.T) {
			g := newGateway(t, map[string]llmtest.Flavor{"anthropic": llmtest.Strict}, "anthropic",
				withChat("chat", llmtest.DeepSeekStyle, "transport openai"))
			anthropic, chat := g.upstreams["anthropic"], g.chats["chat"]
			c, ok := g.session("switch-openai")
			c.Stream = stream

			ok(c.Say("[tool] list the files"))
			anthropicTurn := c.Messages[1]

			g.use("chat")
			ok(c.ToolResult("[tool] file1 file2"))
			_, msgs := chatRequest(t, lastRequest(t, chat).Body)
			if want := `Step without its reasoning: called Bash {"command":"echo anthropic"} (toolu_anthropic_1).`; len(msgs) != 4 || msgs[2].ReasoningContent == nil || *msgs[2].ReasoningContent != want {
				t.Fatalf("the chat server got Anthropic's tool call without the filler reasoning: %s", lastRequest(t, chat).Body)
			}
			if strings.Contains(string(lastRequest(t, chat).Body), "anthropic") && strings.Contains(string(lastRequest(t, chat).Body), "thinking") {
				t.Errorf("the chat server saw Anthropic's thinking: %s", lastRequest(t, chat).Body)
			}

			g.use("anthropic")
			ok(c.ToolResult("file3"))
			got := lastRequest(t, anthropic).Body
			assertMessages(t, got, map[int]string{1: string(anthropicTurn)})
			if strings.Contains(string(got), "llmthinking.v1.reasoning.") {
				t.Errorf("Anthropic got the chat server's reasoning: %s", got)
			}
			if st := g.stats(); st.Retries != 0 {
				t.Errorf("%d refusals replayed, want none", st.Retries)
			}
		})
	}
}

// TestOpenAIErrorsMapped: the chat server's errors reach the client as the
// Messages API's, with the same status, its type and the server's message.
func TestOpenAIErrorsMapped(t *testing.T) {
	for _, tt := range []struct {
		body string
		mappedError
	}{
		{`{"error":{"message":"Incorrect API key provided.","type":"invalid_request_error"}}`, mappedError{http.StatusUnauthorized, "authentication_error", "Incorrect API key provided."}},
		{`{"error":"rate limited, slow down"}`, mappedError{http.StatusTooManyRequests, "rate_limit_error", "rate limited, slow down"}},
		{"upstream exploded", mappedError{http.StatusInternalServerError, "api_error", "upstream exploded"}},
	} {
		testErrorMapped(t, tt.mappedError, func(t *testing.T) *gateway {
			g, chat := newChatGateway(t, "chat", llmtest.VLLMStyle, "transport openai")
			chat.FailNext(tt.status, tt.body)
			return g
		})
	}
}

// TestOpenAICountTokens: count_tokens is answered with an estimate by the
// transport; the server, which has no such endpoint, is not asked.
func TestOpenAICountTokens(t *testing.T) {
	g, chat := newChatGateway(t, "chat", llmtest.VLLMStyle, "transport openai")
	wantEstimate(t, g.conversation("count"))
	if n := len(chat.Requests()); n != 0 {
		t.Errorf("the chat server got %d requests", n)
	}
}

// TestAnthropicTransportMapsModels: transport anthropic sends the model the
// upstream serves (which refuses any other, as Ollama does) and answers
// under the model the client asked for, streamed and not, so the client
// keeps replaying the backend's thinking.
func TestAnthropicTransportMapsModels(t *testing.T) {
	for _, stream := range []bool{true, false} {
		t.Run(fmt.Sprint("stream ", stream), func(t *testing.T) {
			g := newGateway(t, map[string]llmtest.Flavor{"ollama": llmtest.Unsigned}, "ollama",
				withBlock("ollama", "transport anthropic {\n\t\t\tmodel * qwen3-coder\n\t\t}"))
			g.upstreams["ollama"].ServeModel("qwen3-coder")
			c, ok := g.session("anthropic-transport")
			c.Stream = stream
			c.ModelBoundThinking = true
			turn := ok(c.Say("hello"))
			if turn.Model != "claude-sonnet-4-5" {
				t.Errorf("answer names %q", turn.Model)
			}
			ok(c.Say("go on"))
			got := lastRequest(t, g.upstreams["ollama"]).Body
			top := topLevel(t, got)
			if string(top["model"]) != `"qwen3-coder"` {
				t.Errorf("upstream got model %s", top["model"])
			}
			if !strings.Contains(string(got), `"type":"thinking"`) {
				t.Errorf("the backend's thinking was not replayed: %s", got)
			}
		})
	}
}
