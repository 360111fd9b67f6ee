package integration

import (
	"net/http"
	"slices"
	"strings"
	"testing"

	llmthinking "github.com/caddy-llm-thinking/caddy-llm-thinking"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/tools/llmtest"
)

// autoIdentity leaves llm_thinking's backend unset and routes everything to
// the upstream called active with one reverse_proxy: a switch is then a
// change of upstreams through the admin API, and nothing else.
func autoIdentity(active string) func(*gateway) {
	return func(g *gateway) {
		g.Handler = "registry " + registryName(g.t)
		g.Proxy = g.Upstreams[active]
	}
}

// upstreamTo points the single reverse_proxy at another upstream and loads
// the config.
func (g *gateway) upstreamTo(name string) {
	g.t.Helper()
	g.Proxy = g.Upstreams[name]
	g.load()
}

// refusals returns the statuses the upstream answered, in order.
func statuses(u *llmtest.Upstream) []int {
	var out []int
	for _, r := range u.Requests() {
		out = append(out, r.Status)
	}
	return out
}

func TestUpstreamOnlySwitchStreaming(t *testing.T) { testUpstreamOnlySwitch(t, true) }

func TestUpstreamOnlySwitchJSON(t *testing.T) { testUpstreamOnlySwitch(t, false) }

// testUpstreamOnlySwitch switches the way the admin API invites to: only
// reverse_proxy's upstream changes. The first request after the switch is
// planned for the old upstream and refused; the client never sees it.
func testUpstreamOnlySwitch(t *testing.T, stream bool) {
	g := newGateway(t, anthropicAndGLM, "", autoIdentity("glm"))
	anthropic := g.upstreams["anthropic"]
	anthropic.SetGzip(!stream) // a compressed refusal is read all the same
	c, ok := g.session("upstream-switch")
	c.Stream = stream
	ok(c.Say("hello"))
	ok(c.Say("tell me more"))
	glmBlocks := historyBlocks(c)

	g.upstreamTo("anthropic")
	turn := ok(c.Say("now on anthropic"))
	if got := turn.Header.Values(llmthinking.WarningHeader); !slices.Contains(got, "thinking_retried") {
		t.Errorf("warning header = %q, want thinking_retried among them", got)
	}
	reqs := anthropic.Requests()
	if got := statuses(anthropic); !slices.Equal(got, []int{400, 200}) {
		t.Fatalf("anthropic answered %v, want one refusal then the replay", got)
	}
	if !strings.Contains(reqs[0].ErrorMessage, "Invalid `signature`") {
		t.Fatalf("the first attempt was refused for %q", reqs[0].ErrorMessage)
	}
	assertBlocks(t, thinkingBlocks(t, reqs[0].Body), glmBlocks)
	assertBlocks(t, thinkingBlocks(t, reqs[1].Body), nil)
	if s := g.stats(); s.Retries != 1 || s.Switches != 1 {
		t.Errorf("stats %+v, want 1 retry and 1 switch", s.Stats)
	}
	retries := g.logEvents("thinking.retry")
	if len(retries) != 1 || !strings.Contains(retries[0]["upstream_message"].(string), "Invalid `signature`") {
		t.Errorf("retry events: %v", retries)
	}

	// From now on the conversation is anthropic's: its own block comes back,
	// GLM's do not, and nothing is refused.
	own := historyBlocks(c)[len(glmBlocks):]
	ok(c.Say("and now?"))
	assertBlocks(t, thinkingBlocks(t, lastRequest(t, anthropic).Body), own)
	if got := statuses(anthropic); !slices.Equal(got, []int{400, 200, 200}) {
		t.Fatalf("anthropic answered %v after the switch settled", got)
	}
}

// TestBackendKeyChangeIsAbsorbed plays a backend whose signing key changes
// behind the same name: every block it signed before is refused from then
// on. One refusal is absorbed, and the next request does not pay again.
func TestBackendKeyChangeIsAbsorbed(t *testing.T) {
	g := newGateway(t, map[string]llmtest.Flavor{"anthropic": llmtest.Strict}, "anthropic")
	anthropic := g.upstreams["anthropic"]
	c, ok := g.session("key-change")
	ok(c.Say("first"))
	ok(c.Say("second"))
	anthropic.RotateKey()

	// The replay of the third turn loses the latest assistant message's
	// thinking, so it goes with thinking off: the API refuses an altered
	// latest message otherwise.
	ok(c.Say("third, after the key changed"))
	ok(c.Say("fourth"))
	assertBlocks(t, thinkingBlocks(t, lastRequest(t, anthropic).Body), nil)
	ok(c.Say("fifth"))
	if got := statuses(anthropic); !slices.Equal(got, []int{200, 200, 400, 200, 200, 200}) {
		t.Fatalf("anthropic answered %v, want exactly one refusal", got)
	}
	// The fifth request carries the block signed with the new key, and none
	// of the old ones.
	assertBlocks(t, thinkingBlocks(t, lastRequest(t, anthropic).Body), historyBlocks(c)[2:3])
	if s := g.stats(); s.Retries != 1 || s.Refusals != 2 {
		t.Errorf("stats %+v, want 1 retry and the 2 old blocks refused", s.Stats)
	}
}

func TestRoundRobinNeverSurfacesA400(t *testing.T) {
	testLoadBalancing(t, "round_robin", true)
}

// TestStickySessionsNeedNoRetry balances on Claude Code's session header:
// every turn of a conversation reaches the same upstream, so no block is
// ever refused.
func TestStickySessionsNeedNoRetry(t *testing.T) {
	testLoadBalancing(t, "header X-Claude-Code-Session-Id", false)
}

// testLoadBalancing runs conversations over two strict upstreams with
// different keys behind one reverse_proxy, llm_thinking learning the
// backend from the upstream dialed.
func testLoadBalancing(t *testing.T, policy string, refusals bool) {
	flavors := map[string]llmtest.Flavor{"a1": llmtest.Strict, "a2": llmtest.Strict}
	g := newGateway(t, flavors, "", autoIdentity("a1"))
	g.Proxy = g.Upstreams["a1"] + " " + g.Upstreams["a2"] + " {\n\t\tlb_policy " + policy + "\n\t}"
	g.load()
	ok := okTurns(t)
	for _, session := range []string{"lb-1", "lb-2"} {
		c := g.conversation(session)
		for i := range 6 {
			ok(c.Say("turn [tool]"[:4+5*(i%2)]))
		}
	}
	refused := 0
	for _, u := range g.upstreams {
		for _, s := range statuses(u) {
			if s == http.StatusBadRequest {
				refused++
			}
		}
	}
	s := g.stats()
	if uint64(refused) != s.Retries {
		t.Errorf("%d refusals at the upstreams, %d retries", refused, s.Retries)
	}
	if refusals && refused == 0 {
		t.Error("round robin over two keys produced no refusal: the test proves nothing")
	}
	if !refusals && refused != 0 {
		t.Errorf("sticky sessions still met %d refusals", refused)
	}
	t.Logf("%s: %d upstream refusals absorbed over 12 turns", policy, refused)
}

// TestOtherErrorsReachTheClientUnchanged: only refusals for thinking are
// held back and replayed; any other 400 is the client's, byte for byte.
func TestOtherErrorsReachTheClientUnchanged(t *testing.T) {
	g := newGateway(t, anthropicAndGLM, "anthropic")
	anthropic := g.upstreams["anthropic"]
	body := `{"model":"m","messages":"not a list","stream":true}`
	status, _, got := g.send(t, "/v1/messages", jsonHeader, []byte(body))
	if status != http.StatusBadRequest || !strings.Contains(string(got), "messages: Input should be a valid list") {
		t.Fatalf("client got %d %s", status, got)
	}
	if n := len(anthropic.Requests()); n != 1 {
		t.Fatalf("a 400 that is not about thinking was sent %d times", n)
	}
}

// TestRetryOff lets the refusal through, as plain reverse_proxy would.
func TestRetryOff(t *testing.T) {
	g := newGateway(t, anthropicAndGLM, "", autoIdentity("glm"), withHandler("retry_on_reject off"))
	c := g.conversation("retry-off")
	okTurns(t)(c.Say("hello"))
	g.upstreamTo("anthropic")
	wantSignatureRefusal(t)(c.Say("now on anthropic"))
}
