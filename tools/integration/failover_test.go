package integration

import (
	"testing"
	"time"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/tools/llmtest"
)

// TestFailoverHoldsAndComesBack: Anthropic, strict about signatures and
// tool loops, answers a conversation's tool loops, then turns a request
// away with its rate limit's 429 and, on a later turn, a stream with its
// 529. Each time the client gets the answer of zai (a strict mock with a
// signing key of its own) and nothing of Anthropic's, and zai never gets a
// block of Anthropic's; while the conversation holds on zai (for the
// 429's retry-after of ten minutes, longer than the hold of five, then for
// five), Anthropic is not asked; once the hold is ended through the admin
// API, Anthropic gets every block it produced back, byte for byte. Nothing
// is refused, and the failovers are counted by status.
func TestFailoverHoldsAndComesBack(t *testing.T) {
	g := newGateway(t, map[string]llmtest.Flavor{"anthropic": llmtest.Strict, "zai": llmtest.Strict}, "anthropic",
		withFailover("anthropic", "zai"))
	anthropic, zai := g.upstreams["anthropic"], g.upstreams["zai"]
	metricsBefore, backendsBefore := scrape(t), g.backends()
	const session = "failover-holds"
	r := g.failoverRun(session)
	c := r.c
	onAnthropic, toZai, onZai := []string{"anthropic"}, []string{"anthropic", "zai"}, []string{"zai"}

	r.turn(onAnthropic, func() (*llmtest.Turn, error) { return c.Say("[tool] list the files") })
	r.turn(onAnthropic, func() (*llmtest.Turn, error) { return c.ToolResult("a.go b.go [tool]") })
	r.turn(onAnthropic, func() (*llmtest.Turn, error) { return c.ToolResult("package a") })
	c.Stream = false
	r.turn(onAnthropic, func() (*llmtest.Turn, error) { return c.Say("[tool] and the tests?") })
	r.turn(onAnthropic, func() (*llmtest.Turn, error) { return c.ToolResult("a_test.go") })

	// A retry-after longer than the hold holds as long.
	anthropic.FailNext(llmtest.RateLimited(600))
	turn := r.turn(toZai, func() (*llmtest.Turn, error) { return c.Say("[tool] run them") })
	assertAnsweredBy(t, turn, "zai")
	g.assertHold(session, "zai", 10*time.Minute)
	// The conversation holds on zai: its tool loop goes on there, and
	// Anthropic is asked nothing.
	r.turn(onZai, func() (*llmtest.Turn, error) { return c.ToolResult("PASS") })
	c.Stream = true
	r.turn(onZai, func() (*llmtest.Turn, error) { return c.Say("thanks") })
	if n := g.endHolds("zai"); n != 1 {
		t.Fatalf("DELETE /llm_thinking/holds?backend=zai ended %d holds, want 1", n)
	}
	r.turn(onAnthropic, func() (*llmtest.Turn, error) { return c.Say("[tool] back to work") })
	r.turn(onAnthropic, func() (*llmtest.Turn, error) { return c.ToolResult("done") })

	anthropic.FailNext(llmtest.Overloaded)
	turn = r.turn(toZai, func() (*llmtest.Turn, error) { return c.Say("[tool] once more") })
	assertAnsweredBy(t, turn, "zai")
	g.assertHold(session, "zai", 5*time.Minute)
	r.turn(onZai, func() (*llmtest.Turn, error) { return c.ToolResult("fine") })
	r.turn(onZai, func() (*llmtest.Turn, error) { return c.Say("and now?") })
	if n := g.endHolds("zai"); n != 1 {
		t.Fatalf("the second hold: %d ended, want 1", n)
	}
	r.turn(onAnthropic, func() (*llmtest.Turn, error) { return c.Say("last, on anthropic") })

	carriesNone(t, "zai", zai.Requests(), signaturesOf(t, r.own["anthropic"]))
	if len(r.own["anthropic"]) != 8 || len(r.own["zai"]) != 6 {
		t.Errorf("anthropic produced %d blocks, zai %d: want 8 and 6", len(r.own["anthropic"]), len(r.own["zai"]))
	}
	if n, m := refusals(anthropic), refusals(zai); n+m != 0 {
		t.Errorf("anthropic refused %d requests, zai %d", n, m)
	}
	if st := g.stats(); st.Retries != 0 {
		t.Errorf("%d refusals replayed", st.Retries)
	}
	metricsAfter, backendsAfter := scrape(t), g.backends()
	for _, status := range []string{"429", "529"} {
		labels := []string{"from", "anthropic", "to", "zai", "status", status}
		if d := metricsAfter.value(failoversTotal, labels...) - metricsBefore.value(failoversTotal, labels...); d != 1 {
			t.Errorf("%s{from=anthropic,to=zai,status=%s} grew by %v, want 1", failoversTotal, status, d)
		}
	}
	if d := backendsAfter["anthropic"].Failovers - backendsBefore["anthropic"].Failovers; d != 2 {
		t.Errorf("stats: anthropic failed over %d more times, want 2", d)
	}
}
