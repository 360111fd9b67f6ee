package sdkjudge

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/anthropics/anthropic-sdk-go"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/tools/llmtest"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/tools/transporttest"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/transport"
)

// client returns an SDK client whose requests go through transport openai
// to u.
func client(t *testing.T, u *llmtest.ChatUpstream, reasoning string) anthropic.Client {
	tr := &transport.OpenAI{Reasoning: reasoning, Models: transport.Models{{Match: "claude-*", Model: "served"}}, SigningKey: "judge"}
	return transporttest.Client(t, tr, u.URL(), "sk-test")
}

// TestSDKToolLoop: for every flavor, streamed and not, the SDK decodes a
// thinking block, then a tool_use whose input is the call's arguments,
// under the model asked for with the input usage counted; sent back as the
// SDK makes it, the turn reaches the server with its reasoning where it
// reads it (the mock refuses anything else), and the answer is text.
func TestSDKToolLoop(t *testing.T) {
	for _, fl := range llmtest.ChatFlavors {
		for _, stream := range []bool{true, false} {
			t.Run(fl.String()+map[bool]string{true: " stream", false: " json"}[stream], func(t *testing.T) {
				u := llmtest.NewChatUpstream("chat", fl)
				defer u.Close()
				loop := transporttest.NewLoop(t, client(t, u, fl.Reasoning()))
				m := loop.Turn(stream, anthropic.NewTextBlock("[tool] list the files"))
				if len(m.Content) != 2 || m.Content[0].Type != "thinking" || !strings.HasPrefix(m.Content[0].Thinking, u.Reasoning(1)) ||
					!strings.HasPrefix(m.Content[0].Signature, "llmthinking.v1.reasoning.") || m.Content[1].Type != "tool_use" {
					t.Fatalf("turn 1: %s", m.RawJSON())
				}
				var input map[string]string
				if err := json.Unmarshal(m.Content[1].Input, &input); err != nil || input["command"] != "echo chat" {
					t.Errorf("tool input %s: %v", m.Content[1].Input, err)
				}
				if m.Model != "claude-sonnet-4-5" || m.StopReason != anthropic.StopReasonToolUse || m.Usage.InputTokens == 0 || m.Usage.OutputTokens == 0 {
					t.Errorf("model %s, stop %s, usage %+v", m.Model, m.StopReason, m.Usage)
				}
				m = loop.Turn(stream, anthropic.NewToolResultBlock(m.Content[1].ID, "file1 file2", false))
				if len(m.Content) != 2 || m.Content[1].Text != "chat answer 2." || m.StopReason != anthropic.StopReasonEndTurn {
					t.Errorf("turn 2: %s", m.RawJSON())
				}
			})
		}
	}
}

// TestSDKErrors: upstream errors reach the SDK as the API's errors, with
// status, type and the server's message.
func TestSDKErrors(t *testing.T) {
	for _, stream := range []bool{true, false} {
		u := llmtest.NewChatUpstream("chat", llmtest.VLLMStyle)
		u.FailNext(http.StatusTooManyRequests, `{"error":{"message":"slow down"}}`)
		c := client(t, u, "reasoning")
		params := anthropic.MessageNewParams{Model: "claude-sonnet-4-5", MaxTokens: 10,
			Messages: []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("hi"))}}
		var err error
		if stream {
			s := c.Messages.NewStreaming(context.Background(), params)
			for s.Next() {
			}
			err = s.Err()
		} else {
			_, err = c.Messages.New(context.Background(), params)
		}
		var apiErr *anthropic.Error
		if !errors.As(err, &apiErr) || apiErr.StatusCode != http.StatusTooManyRequests || !strings.Contains(apiErr.RawJSON(), `"rate_limit_error"`) || !strings.Contains(err.Error(), "slow down") {
			t.Errorf("stream %v: %v", stream, err)
		}
		u.Close()
	}
}
