package integration

import (
	"testing"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/state/budget"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/tools/llmtest"
)

// TestTheGlobalOptionSetsTheMemoryBudget: the process's budget is set
// once, in the global options; without it, it is the default.
func TestTheGlobalOptionSetsTheMemoryBudget(t *testing.T) {
	g := newGateway(t, map[string]llmtest.Flavor{"anthropic": llmtest.Strict}, "anthropic",
		func(g *gateway) { g.Global = "llm_thinking {\n\t\tmemory_budget 96MiB\n\t}" })
	if got := memoryStats(t).Budget; got != 96<<20 {
		t.Fatalf("budget %d, want the global option's 96 MiB", got)
	}
	okTurns(t)(g.conversation("global-budget").Say("hello"))
	g.Global = ""
	g.load()
	if got := memoryStats(t).Budget; got != budget.Default() {
		t.Fatalf("budget %d with nothing set, want the default %d", got, budget.Default())
	}
}
