package integration

import (
	"testing"

	llmthinking "github.com/caddy-llm-thinking/caddy-llm-thinking"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/tools/llmtest"
)

// TestModelsWithoutThinkingGetNone runs two models of one Ollama-like
// backend through one Caddy whose capability policy lists only the first:
// the second gets no thinking block at all, though the backend produced
// them, and the first gets its own back once the conversation returns to
// it.
func TestModelsWithoutThinkingGetNone(t *testing.T) {
	g := newGateway(t, map[string]llmtest.Flavor{"ollama": llmtest.Unsigned}, "ollama",
		withHandler("thinking_models qwen3* deepseek-r1*"))
	ollama := g.upstreams["ollama"]
	ollama.NeverThink("llama3.2:3b")
	c, ok := g.session("two-models")
	c.Model = "qwen3:8b"
	ok(c.Say("hello"))
	ok(c.Say("more"))
	own := historyBlocks(c)
	if len(own) != 2 {
		t.Fatalf("the backend produced %d thinking blocks, want 2", len(own))
	}
	assertBlocks(t, thinkingBlocks(t, lastRequest(t, ollama).Body), own[:1])

	c.Model = "llama3.2:3b"
	turn := ok(c.Say("now a model without thinking"))
	assertBlocks(t, thinkingBlocks(t, lastRequest(t, ollama).Body), nil)
	if got := turn.Header.Values(llmthinking.WarningHeader); len(got) != 1 || got[0] != "thinking_dropped" {
		t.Errorf("warning header = %q, want thinking_dropped", got)
	}
	events := g.logEvents("thinking.block_handled")
	if len(events) != 1 {
		t.Fatalf("%d thinking.block_handled events, want 1: %v", len(events), events)
	}
	e := events[0]
	if e["model"] != "llama3.2:3b" || e["thinking_capable"] != false || e["thinking_blocks"] != 2.0 ||
		e["redacted_blocks"] != 0.0 || e["dropped_blocks"] != 2.0 || e["kept"] != 0.0 {
		t.Errorf("thinking.block_handled = %v", e)
	}

	// Back on the model that thinks: its own blocks come back, the later
	// ones too.
	c.Model = "qwen3:8b"
	before := historyBlocks(c)
	ok(c.Say("back to qwen"))
	assertBlocks(t, thinkingBlocks(t, lastRequest(t, ollama).Body), before)
}
