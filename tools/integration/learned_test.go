package integration

import (
	"strings"
	"testing"

	dto "github.com/prometheus/client_model/go"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/state/registry"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/tools/llmtest"
)

// TestAModelThatCannotThinkIsRefusedOnce talks to an Ollama-like backend
// whose model does not support thinking, as Claude Code does: thinking on,
// a tool loop, four turns, then a restart with persistence and a fifth.
// The client never sees an error, and the backend refuses once in all.
func TestAModelThatCannotThinkIsRefusedOnce(t *testing.T) {
	g := newGateway(t, map[string]llmtest.Flavor{"ollama": llmtest.Unsigned}, "ollama")
	ollama := g.upstreams["ollama"]
	ollama.RefuseThinking("llama3.2")
	c, ok := g.session("cannot-think")
	c.Model = "llama3.2"
	ok(c.Say("[tool] list the files"))
	ok(c.ToolResult("a.go b.go"))
	ok(c.Say("and now?"))
	ok(c.Say("thanks"))
	if n := refusals(ollama); n != 1 {
		t.Fatalf("ollama refused %d times, want once", n)
	}
	for _, r := range ollama.Requests()[2:] {
		if strings.Contains(string(r.Body), `"thinking":{`) || strings.Contains(string(r.Body), "context_management") {
			t.Fatalf("a request after the refusal still asks for thinking:\n%s", r.Body)
		}
	}
	events := g.logEvents("thinking.capability_learned")
	if len(events) != 1 || events[0]["backend"] != "ollama" || events[0]["model"] != "llama3.2" ||
		events[0]["why"] != `"llama3.2" does not support thinking` {
		t.Fatalf("capability_learned events: %v", events)
	}
	s := g.stats()
	if s.Learned != 1 || len(s.Capabilities) != 1 || strings.Join(s.Capabilities[0].Names, "+") != "cannot_think" {
		t.Fatalf("stats: %+v", s)
	}

	m := scrape(t).series("caddy_llm_thinking_learned_models", "registry", registryName(t))
	if m == nil || m.GetGauge().GetValue() != 1 || !hasLabel(m.GetLabel(), "fact", "cannot_think") {
		t.Fatalf("learned_models series: %v", m)
	}

	refusalsAfterRestart(t, g, c, "ollama", ollama, 1)
}

func hasLabel(labels []*dto.LabelPair, name, value string) bool {
	for _, l := range labels {
		if l.GetName() == name && l.GetValue() == value {
			return true
		}
	}
	return false
}

// TestAnUnlistedModelThatThinksGetsItsBlocksBack: thinking_models lists
// only Claude models. A model that answers with thinking (streamed, or as
// JSON) gets its own blocks back from its second request on; a model that never did gets
// none, on that backend, while the backend that did answer it with
// thinking gets its own back.
func TestAnUnlistedModelThatThinksGetsItsBlocksBack(t *testing.T) {
	g := newGateway(t, map[string]llmtest.Flavor{"glm": llmtest.Lenient, "ollama": llmtest.Unsigned}, "",
		byHeader, withHandler("thinking_models claude-*"))
	glm, ollama := g.upstreams["glm"], g.upstreams["ollama"]
	ollama.NeverThink("plain")

	c, ok := g.session("unlisted-thinks")
	c.Model = "glm-4.6"
	c.Header.Set("X-Backend", "glm")
	ok(c.Say("first"))
	ok(c.Say("second"))
	assertBlocks(t, thinkingBlocks(t, lastRequest(t, glm).Body), historyBlocks(c)[:1])

	p := g.conversation("unlisted-never")
	p.Stream = false // answers as JSON: learned from them as from streams
	p.Model = "plain"
	p.Header.Set("X-Backend", "glm")
	ok(p.Say("on glm, which thinks"))
	own := historyBlocks(p)
	p.Header.Set("X-Backend", "ollama")
	ok(p.Say("on ollama, which never thinks for this model"))
	ok(p.Say("still on ollama"))
	assertBlocks(t, thinkingBlocks(t, lastRequest(t, ollama).Body), nil)
	p.Header.Set("X-Backend", "glm")
	ok(p.Say("back on glm"))
	assertBlocks(t, thinkingBlocks(t, lastRequest(t, glm).Body), own)

	learned := map[string]string{}
	for _, c := range g.stats().Capabilities {
		learned[c.Backend+" "+c.Model] = strings.Join(c.Names, "+")
	}
	if len(learned) != 2 || learned["glm glm-4.6"] != "thinks" || learned["glm plain"] != "thinks" {
		t.Fatalf("learned %v", learned)
	}
}

// TestABackendThatRefusesContextManagement: an Anthropic-compatible server
// that does not know context_management refuses it once; thinking and the
// backend's own blocks go on as before.
func TestABackendThatRefusesContextManagement(t *testing.T) {
	g := newGateway(t, map[string]llmtest.Flavor{"vllm": llmtest.Lenient}, "vllm")
	vllm := g.upstreams["vllm"]
	vllm.RefuseFields("context_management")
	c, ok := g.session("no-context-management")
	ok(c.Say("first"))
	ok(c.Say("second"))
	turn := ok(c.Say("third"))
	if n := refusals(vllm); n != 1 {
		t.Fatalf("vllm refused %d times, want once", n)
	}
	last := lastRequest(t, vllm).Body
	if strings.Contains(string(last), "context_management") || !strings.Contains(string(last), `"thinking":{`) {
		t.Fatalf("the last request:\n%s", last)
	}
	assertBlocks(t, thinkingBlocks(t, last), historyBlocks(c)[:2])
	if len(turn.Header.Values("X-LLM-Thinking-Warning")) != 0 {
		t.Errorf("warning on a request that lost nothing but a field: %q", turn.Header.Values("X-LLM-Thinking-Warning"))
	}
	if f := g.stats().Capabilities; len(f) != 1 || strings.Join(f[0].Names, "+") != registry.NoContextManagement.String() {
		t.Fatalf("learned %+v", f)
	}
}
