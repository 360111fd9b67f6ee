package integration

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	llmthinking "github.com/caddy-llm-thinking/caddy-llm-thinking"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/tools/llmtest"
)

func TestReasoningPartsReachAnthropicAsThinking(t *testing.T) {
	t.Run("display omitted", func(t *testing.T) { testReasoningParts(t, false) })
	t.Run("thinking shown", func(t *testing.T) { testReasoningParts(t, true) })
}

// testReasoningParts runs an AI-SDK-based client, which keeps thinking as
// reasoning parts placed after the text, against Anthropic and GLM: the
// backend that signed a part gets it back as the thinking block it was,
// in front of the text, and accepts it at once; the other one gets none.
func testReasoningParts(t *testing.T, show bool) {
	g := newGateway(t, anthropicAndGLM, "anthropic")
	anthropic, glm := g.upstreams["anthropic"], g.upstreams["glm"]
	c, ok := g.session("ai-sdk")
	c.ShowThinking = show
	// say sends text with the history in the AI SDK's shape; blocks keeps
	// the thinking blocks of each answer as the client first stored them.
	var blocks []json.RawMessage
	say := func(text string) *llmtest.Turn {
		t.Helper()
		blocks = append(blocks, historyBlocks(c)...)
		msgs, err := llmtest.AISDKHistory(c.Messages, true)
		if err != nil {
			t.Fatal(err)
		}
		c.Messages = msgs
		return ok(c.Say(text))
	}
	answer := func(backend string, n int) string {
		return fmt.Sprintf(`{"type":"text","text":"%s answer %d."}`, backend, n)
	}

	say("hello")
	say("more")
	turn := say("and more")
	if n := len(blocks); n != 2 {
		t.Fatalf("anthropic produced %d thinking blocks, want 2", n)
	}
	// What the client sent holds reasoning parts after the text...
	sent := string(c.Messages[3])
	if !strings.HasPrefix(sent, `{"role":"assistant","content":[`+answer("anthropic", 2)+`,{"type":"reasoning","text":`) {
		t.Fatalf("the client did not send its reasoning in the AI SDK's shape: %s", sent)
	}
	// ...and Anthropic got its thinking blocks, byte for byte, in front.
	reqs := answeredWith(t, anthropic, http.StatusOK, http.StatusOK, http.StatusOK)
	assertMessages(t, reqs[1].Body, map[int]string{
		1: `{"role":"assistant","content":[` + string(blocks[0]) + `,` + answer("anthropic", 1) + `]}`,
	})
	assertMessages(t, reqs[2].Body, map[int]string{
		1: `{"role":"assistant","content":[` + string(blocks[0]) + `,` + answer("anthropic", 1) + `]}`,
		3: `{"role":"assistant","content":[` + string(blocks[1]) + `,` + answer("anthropic", 2) + `]}`,
	})
	if got := turn.Header.Values(llmthinking.WarningHeader); len(got) != 0 {
		t.Errorf("warning header = %q, want none: nothing was dropped", got)
	}
	handled := g.logEvents("thinking.block_handled")
	if len(handled) != 2 {
		t.Fatalf("%d thinking.block_handled events, want one per request with reasoning parts: %v", len(handled), handled)
	}
	// Each part counts once, and once more the message it moved in.
	if e := handled[1]; e["kept"] != 2.0 || e["stripped"] != 0.0 || e["normalized"] != 4.0 {
		t.Errorf("thinking.block_handled = %v", e)
	}

	// GLM did not sign them: it gets the answers alone.
	g.use("glm")
	turn = say("now on glm")
	got := lastRequest(t, glm).Body
	assertBlocks(t, thinkingBlocks(t, got), nil)
	assertMessages(t, got, map[int]string{
		1: `{"role":"assistant","content":[` + answer("anthropic", 1) + `]}`,
		3: `{"role":"assistant","content":[` + answer("anthropic", 2) + `]}`,
		5: `{"role":"assistant","content":[` + answer("anthropic", 3) + `]}`,
	})
	if strings.Contains(string(got), `"reasoning"`) {
		t.Errorf("a reasoning part reached GLM:\n%s", got)
	}
	if got := turn.Header.Values(llmthinking.WarningHeader); !slices.Equal(got, []string{"thinking_dropped"}) {
		t.Errorf("warning header = %q, want thinking_dropped", got)
	}

	// Back on Anthropic: its own blocks again, GLM's part out.
	g.use("anthropic")
	say("back on anthropic")
	reqs = answeredWith(t, anthropic, http.StatusOK, http.StatusOK, http.StatusOK, http.StatusOK)
	assertMessages(t, reqs[3].Body, map[int]string{
		1: `{"role":"assistant","content":[` + string(blocks[0]) + `,` + answer("anthropic", 1) + `]}`,
		5: `{"role":"assistant","content":[` + string(blocks[2]) + `,` + answer("anthropic", 3) + `]}`,
		7: `{"role":"assistant","content":[` + answer("glm", 1) + `]}`,
	})
}
