package integration

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/tools/llmtest"
)

// TestChatServersThatWantReasoningBack: Kimi's and DeepSeek V4's
// chat-completions endpoints behind transport openai, after Anthropic's
// tool loops, and back. Kimi wants reasoning on tool call messages, which
// the transport's placeholder gives it from the first request; DeepSeek V4
// wants it on every assistant message, which the gateway learns from its
// one refusal (the transport's envelope carries its words) or is told up
// front, and then gives as on the Anthropic side: an empty block that the
// transport sends as the placeholder. No client error; Anthropic gets its
// own blocks back and nothing else.
func TestChatServersThatWantReasoningBack(t *testing.T) {
	for _, tc := range []struct {
		flavor   llmtest.ChatFlavor
		profile  string
		refusals int
	}{
		{llmtest.KimiStyle, "", 0},
		{llmtest.DeepSeekV4Style, "", 1},
		{llmtest.DeepSeekV4Style, "backend_profile chat {\n\tthinking_back all\n}", 0},
	} {
		t.Run(fmt.Sprintf("%v/declared=%v", tc.flavor, tc.profile != ""), func(t *testing.T) {
			opts := []func(*gateway){withChat("chat", tc.flavor, "transport openai {\n\t\t\tmodel * served-model\n\t\t}")}
			if tc.profile != "" {
				opts = append(opts, withHandler(tc.profile))
			}
			g := newGateway(t, map[string]llmtest.Flavor{"anthropic": llmtest.Strict}, "anthropic", opts...)
			anthropic, chat := g.upstreams["anthropic"], g.chats["chat"]
			c, ok := g.session("chat-wants-reasoning")
			ok(c.Say("[tool] look"))
			ok(c.ToolResult("a.go"))
			ok(c.Say("[tool] more"))
			own := historyBlocks(c)
			g.use("chat")
			ok(c.ToolResult("b.go"))
			ok(c.Say("[tool] your turn"))
			ok(c.ToolResult("c.go"))
			ok(c.Say("and now?"))
			g.use("anthropic")
			ok(c.Say("back on anthropic"))
			assertBlocks(t, thinkingBlocks(t, lastRequest(t, anthropic).Body), own)
			g.use("chat")
			ok(c.Say("and on chat"))

			refused := 0
			for _, r := range chat.Requests() {
				if r.Status == http.StatusBadRequest {
					refused++
				}
			}
			if refused != tc.refusals {
				t.Errorf("the chat server refused %d times, want %d", refused, tc.refusals)
			}
			// Every assistant message of the last request carries the
			// field: its own reasoning, or the placeholder.
			_, msgs := chatRequest(t, lastRequest(t, chat).Body)
			for i, m := range msgs {
				if m.Role == "assistant" && (m.ReasoningContent == nil || *m.ReasoningContent == "") && (tc.flavor == llmtest.DeepSeekV4Style || len(m.ToolCalls) > 0) {
					t.Errorf("message %d has no reasoning_content", i)
				}
			}
		})
	}
}
