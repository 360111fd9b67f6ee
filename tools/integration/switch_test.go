package integration

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	llmthinking "github.com/caddy-llm-thinking/caddy-llm-thinking"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/tools/llmtest"
)

var anthropicAndGLM = map[string]llmtest.Flavor{"anthropic": llmtest.Strict, "glm": llmtest.Lenient}

// TestPlainReverseProxyFailsOnSwitch is the problem this module solves,
// shown on the same mocks: without llm_thinking, the strict backend answers
// the foreign history with the API's signature error.
func TestPlainReverseProxyFailsOnSwitch(t *testing.T) {
	g := newGateway(t, anthropicAndGLM, "glm", plainProxy)
	c, ok := g.session("plain-proxy")
	ok(c.Say("hello"))
	g.use("anthropic")
	wantSignatureRefusal(t)(c.Say("now on anthropic"))
}

// wantSignatureRefusal returns a check that fails the test unless a turn
// got the strict backend's refusal of a foreign signature itself, as a
// client of plain reverse_proxy does.
func wantSignatureRefusal(t *testing.T) func(*llmtest.Turn, error) {
	return func(turn *llmtest.Turn, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		if turn.Status != http.StatusBadRequest || !strings.Contains(turn.ErrorMessage, "Invalid `signature` in `thinking` block") {
			t.Fatalf("status %d %q, want the signature 400 itself", turn.Status, turn.ErrorMessage)
		}
	}
}

func TestSwitchGLMToAnthropicStreaming(t *testing.T) { testSwitchGLMToAnthropic(t, true) }

func TestSwitchGLMToAnthropicJSON(t *testing.T) { testSwitchGLMToAnthropic(t, false) }

func testSwitchGLMToAnthropic(t *testing.T, stream bool) {
	g := newGateway(t, anthropicAndGLM, "glm")
	anthropic := g.upstreams["anthropic"]
	c, ok := g.session("glm-to-anthropic")
	c.Stream = stream
	ok(c.Say("hello"))
	ok(c.Say("tell me more"))
	if n := len(historyBlocks(c)); n != 2 {
		t.Fatalf("GLM produced %d thinking blocks, want 2", n)
	}

	g.use("anthropic")
	turn := ok(c.Say("now on anthropic"))
	if got := turn.Header.Values(llmthinking.WarningHeader); len(got) != 1 || got[0] != "thinking_dropped" {
		t.Errorf("warning header = %q, want thinking_dropped", got)
	}
	assertBlocks(t, thinkingBlocks(t, lastRequest(t, anthropic).Body), nil)

	// Anthropic's own block comes back on the next turn, byte for byte; the
	// GLM blocks stay out.
	own := historyBlocks(c)[2:]
	ok(c.Say("and now?"))
	assertBlocks(t, thinkingBlocks(t, lastRequest(t, anthropic).Body), own)
}

func TestAnthropicGLMAnthropicKeepsAnthropicBlocks(t *testing.T) {
	g := newGateway(t, anthropicAndGLM, "anthropic")
	anthropic, glm := g.upstreams["anthropic"], g.upstreams["glm"]
	c, ok := g.session("a-g-a")
	ok(c.Say("first, on anthropic"))
	ok(c.Say("second, on anthropic"))
	anthropicBlocks := historyBlocks(c)

	g.use("glm")
	ok(c.Say("third, on glm"))
	assertBlocks(t, thinkingBlocks(t, lastRequest(t, glm).Body), nil)
	glmBlock := historyBlocks(c)[2]

	g.use("anthropic")
	ok(c.Say("fourth, back on anthropic"))
	assertBlocks(t, thinkingBlocks(t, lastRequest(t, anthropic).Body), anthropicBlocks)

	g.use("glm")
	ok(c.Say("fifth, back on glm"))
	assertBlocks(t, thinkingBlocks(t, lastRequest(t, glm).Body), []json.RawMessage{glmBlock})

	if s := g.stats(); s.Switches != 3 {
		t.Errorf("switches = %d, want 3", s.Switches)
	}
}

func TestSwitchInsideToolLoop(t *testing.T) {
	g := newGateway(t, anthropicAndGLM, "glm")
	anthropic := g.upstreams["anthropic"]
	c, ok := g.session("tool-loop")
	turn := ok(c.Say("[tool] list the files"))
	if turn.StopReason != "tool_use" {
		t.Fatalf("GLM stop reason %q, want tool_use", turn.StopReason)
	}

	// The user switches while the tool runs; the loop goes on at Anthropic.
	g.use("anthropic")
	ok(c.ToolResult("[tool] file1 file2"))
	got := lastRequest(t, anthropic).Body
	assertBlocks(t, thinkingBlocks(t, got), nil)
	top := topLevel(t, got)
	if _, ok := top["thinking"]; ok {
		t.Error("thinking config still sent although the loop lost its leading thinking")
	}
	if _, ok := top["context_management"]; ok {
		t.Error("clear_thinking edit still sent with thinking off")
	}
	events := g.logEvents("thinking.block_handled")
	if len(events) == 0 || events[len(events)-1]["dropped_thinking_config"] != true {
		t.Errorf("no block_handled event reporting the dropped config: %v", events)
	}

	// Another step of the same loop, then a new turn: thinking comes back.
	ok(c.ToolResult("done"))
	ok(c.Say("thanks, what next?"))
	top = topLevel(t, lastRequest(t, anthropic).Body)
	if _, ok := top["thinking"]; !ok {
		t.Error("thinking config missing from the next turn")
	}
}

func TestRedactedThinkingSurvivesARoundTrip(t *testing.T) {
	g := newGateway(t, anthropicAndGLM, "anthropic")
	anthropic, glm := g.upstreams["anthropic"], g.upstreams["glm"]
	c, ok := g.session("redacted")
	ok(c.Say("[redacted] something sensitive"))
	own := historyBlocks(c)
	if len(own) != 2 || !strings.Contains(string(own[1]), `"redacted_thinking"`) {
		t.Fatalf("anthropic reply blocks = %s, want thinking and redacted_thinking", own)
	}

	g.use("glm")
	ok(c.Say("on glm"))
	assertBlocks(t, thinkingBlocks(t, lastRequest(t, glm).Body), nil)

	g.use("anthropic")
	ok(c.Say("back on anthropic"))
	assertBlocks(t, thinkingBlocks(t, lastRequest(t, anthropic).Body), own)
}

func TestUnsignedOllamaBlocksNeverReachAnthropic(t *testing.T) {
	g := newGateway(t, map[string]llmtest.Flavor{"anthropic": llmtest.Strict, "ollama": llmtest.Unsigned}, "ollama")
	anthropic := g.upstreams["anthropic"]
	c, ok := g.session("ollama")
	c.ShowThinking = true
	ok(c.Say("hello local model"))
	if b := historyBlocks(c); len(b) != 1 || strings.Contains(string(b[0]), "signature") {
		t.Fatalf("ollama block = %s, want one unsigned block", b)
	}
	g.use("anthropic")
	ok(c.Say("now on anthropic"))
	assertBlocks(t, thinkingBlocks(t, lastRequest(t, anthropic).Body), nil)
}

func TestConvertToTagsKeepsForeignReasoningAsText(t *testing.T) {
	g := newGateway(t, anthropicAndGLM, "glm", withHandler("mode convert_to_tags"))
	anthropic := g.upstreams["anthropic"]
	c, ok := g.session("tags")
	c.ShowThinking = true
	ok(c.Say("hello"))
	g.use("anthropic")
	turn := ok(c.Say("now on anthropic"))
	if got := turn.Header.Get(llmthinking.WarningHeader); got != "thinking_converted" {
		t.Errorf("warning header = %q, want thinking_converted", got)
	}
	body := lastRequest(t, anthropic).Body
	assertBlocks(t, thinkingBlocks(t, body), nil)
	if !strings.Contains(string(body), `<think>glm thinks #1`) {
		t.Errorf("converted reasoning not found in the request:\n%s", body)
	}
}

// TestBackendPlaceholderRoutesPerRequest sends one conversation to two
// backends by a request header, with no reload: each backend gets back
// exactly its own blocks.
func TestBackendPlaceholderRoutesPerRequest(t *testing.T) {
	g := newGateway(t, anthropicAndGLM, "", byHeader)
	anthropic, glm := g.upstreams["anthropic"], g.upstreams["glm"]
	c, ok := g.session("by-header")
	var mine = map[string][]json.RawMessage{}
	for i, backend := range []string{"anthropic", "glm", "anthropic", "glm", "glm", "anthropic"} {
		c.Header.Set("X-Backend", backend)
		before := len(historyBlocks(c))
		ok(c.Say("turn on " + backend))
		up := map[string]*llmtest.Upstream{"anthropic": anthropic, "glm": glm}[backend]
		assertBlocks(t, thinkingBlocks(t, lastRequest(t, up).Body), mine[backend])
		mine[backend] = append(mine[backend], historyBlocks(c)[before:]...)
		if len(mine[backend]) == 0 {
			t.Fatalf("turn %d on %s produced no thinking", i, backend)
		}
	}
}
