package integration

import (
	"net/http"
	"testing"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/tools/llmtest"
)

// TestReasoningPartsInAToolLoop runs a tool loop for an AI-SDK-based client
// that sends its reasoning after the tool call. With thinking enabled the
// API wants the loop's first assistant message to start with thinking:
// Anthropic gets each part back as its thinking block, in front, and
// accepts every step, token counting included, at once.
func TestReasoningPartsInAToolLoop(t *testing.T) {
	g := newGateway(t, anthropicAndGLM, "anthropic")
	anthropic := g.upstreams["anthropic"]
	c, ok := g.session("ai-sdk-loop")
	toAISDK := func() {
		t.Helper()
		msgs, err := llmtest.AISDKHistory(c.Messages, true)
		if err != nil {
			t.Fatal(err)
		}
		c.Messages = msgs
	}

	ok(c.Say("[tool] list the files"))
	blocks := historyBlocks(c)
	toAISDK()
	ok(c.ToolResult("[tool] file1 file2"))
	blocks = append(blocks, historyBlocks(c)...)
	toAISDK()
	counted := ok(c.CountTokens())
	ok(c.ToolResult("done"))

	reqs := answeredWith(t, anthropic, http.StatusOK, http.StatusOK, http.StatusOK, http.StatusOK)
	first := `{"role":"assistant","content":[` + string(blocks[0]) + `,` + toolUseOf("anthropic", 1) + `]}`
	second := `{"role":"assistant","content":[` + string(blocks[1]) + `,` + toolUseOf("anthropic", 2) + `]}`
	assertMessages(t, reqs[1].Body, map[int]string{1: first})
	if reqs[2].Path != "/v1/messages/count_tokens" || counted.Status != http.StatusOK {
		t.Fatalf("request 2 went to %s, answered %d", reqs[2].Path, counted.Status)
	}
	assertMessages(t, reqs[2].Body, map[int]string{1: first, 3: second})
	assertMessages(t, reqs[3].Body, map[int]string{1: first, 3: second})
	if _, ok := topLevel(t, reqs[3].Body)["thinking"]; !ok {
		t.Error("thinking config dropped although the loop kept its thinking")
	}
}
