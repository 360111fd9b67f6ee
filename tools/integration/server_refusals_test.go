package integration

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/tools/llmtest"
)

// thinkingConfigOf returns the thinking member of a request body, or nil.
func thinkingConfigOf(t *testing.T, body []byte) map[string]any {
	t.Helper()
	var top struct {
		Thinking map[string]any `json:"thinking"`
	}
	if err := json.Unmarshal(body, &top); err != nil {
		t.Fatalf("%v: %s", err, body)
	}
	return top.Thinking
}

// TestAFastAPIServerThatRefusesAdaptiveIsLearnedOnce: an MLX server behind
// FastAPI (omlx) knows only enabled and disabled thinking, and refuses
// adaptive with a 422 and FastAPI's detail list, not an error envelope.
// The gateway reads it, replays with enabled thinking, and learns it:
// one refusal in all, across a tool loop and a restart.
func TestAFastAPIServerThatRefusesAdaptiveIsLearnedOnce(t *testing.T) {
	g := newGateway(t, map[string]llmtest.Flavor{"omlx": llmtest.Unsigned}, "omlx")
	omlx := g.upstreams["omlx"]
	omlx.RefuseAsServer(llmtest.FastAPIRefusesAdaptive, "qwen3-mlx")
	c, ok := g.session("omlx")
	c.Model, c.Thinking = "qwen3-mlx", "adaptive"
	ok(c.Say("[tool] list the files"))
	ok(c.ToolResult("a.go"))
	ok(c.Say("thanks"))
	for _, r := range refusedFirstOnly(t, "omlx", omlx, http.StatusUnprocessableEntity, "") {
		if cfg := thinkingConfigOf(t, r.Body); cfg["type"] != "enabled" || cfg["budget_tokens"] == nil {
			t.Fatalf("a request after the refusal asks for %v:\n%s", cfg, r.Body)
		}
	}
	if s := g.stats(); len(s.Capabilities) != 1 || strings.Join(s.Capabilities[0].Names, "+") != "no_adaptive_thinking" {
		t.Fatalf("learned %+v", s.Capabilities)
	}
	refusalsAfterRestart(t, g, c, "omlx", omlx, 1)
}

// TestAModelThatAlwaysThinksIsNeverToldToStop: GLM-5.3 refuses a request
// that turns thinking off with z.ai's code 1210. A client that asks for no
// thinking costs one refusal, absorbed and learned: from then on the
// config that turns thinking off is left out, even after a restart. What
// the gateway itself does to thinking (a switch into a tool loop, which
// drops the config for the Messages API's rule) never writes "disabled".
func TestAModelThatAlwaysThinksIsNeverToldToStop(t *testing.T) {
	g := newGateway(t, map[string]llmtest.Flavor{"anthropic": llmtest.Strict, "zai": llmtest.Lenient}, "", byHeader)
	zai := g.upstreams["zai"]
	zai.RefuseAsServer(llmtest.GLMAlwaysThinks, "glm-5.3")
	ok := okTurns(t)

	// A switch into a tool loop: the gateway drops the loop's thinking and
	// config for the Messages API's rule, without writing "disabled".
	loop := g.conversation("loop")
	loop.Model = "glm-5.3"
	loop.Header.Set("X-Backend", "anthropic")
	ok(loop.Say("[tool] list the files"))
	loop.Header.Set("X-Backend", "zai")
	ok(loop.ToolResult("a.go"))
	if n := failures(zai); n != 0 {
		t.Fatalf("zai refused %d requests of a switch into a tool loop", n)
	}

	c := g.conversation("off")
	c.Model, c.Thinking = "glm-5.3", "disabled"
	c.Header.Set("X-Backend", "zai")
	ok(c.Say("no thinking, please"))
	ok(c.Say("still none"))
	if n := failures(zai); n != 1 {
		t.Fatalf("zai refused %d times, want once", n)
	}
	if cfg := thinkingConfigOf(t, lastRequest(t, zai).Body); cfg != nil {
		t.Fatalf("the request after the refusal still says %v", cfg)
	}
	if s := g.stats(); len(s.Capabilities) != 1 || s.Capabilities[0].Model != "glm-5.3" ||
		!strings.Contains(strings.Join(s.Capabilities[0].Names, "+"), "always_thinks") {
		t.Fatalf("learned %+v", s.Capabilities)
	}
	refusalsAfterRestart(t, g, c, "zai", zai, 1)
}
