package integration

import (
	"bufio"
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/tools/llmtest"
)

// mixed runs a first turn of c on GLM and moves the gateway to Anthropic, so
// that from then on a block the registry forgot would be stripped: what these
// tests check can only hold if the registry kept every block.
func mixed(t *testing.T, g *gateway, c *llmtest.Conversation) *llmtest.Conversation {
	t.Helper()
	g.use("glm")
	okTurns(t)(c.Say("warm up on glm"))
	g.use("anthropic")
	return c
}

func TestInterleavedConversationsKeepAllTheirBlocks(t *testing.T) {
	g := newGateway(t, anthropicAndGLM, "glm")
	ok := okTurns(t)
	anthropic := g.upstreams["anthropic"]
	c1 := mixed(t, g, g.conversation("interleaved-1"))
	c2 := mixed(t, g, g.conversation("interleaved-2"))

	own := map[*llmtest.Conversation]int{}
	for round := range 4 {
		for _, c := range []*llmtest.Conversation{c1, c2, c2, c1} {
			ok(c.Say("round"))
			// Every earlier Anthropic block of this conversation came back;
			// the GLM warm-up block did not.
			got := thinkingBlocks(t, lastRequest(t, anthropic).Body)
			assertBlocks(t, got, historyBlocks(c)[1:1+own[c]])
			own[c]++
		}
		if s := g.stats(); s.Conversations != 2 {
			t.Fatalf("round %d: %d conversations tracked, want 2", round, s.Conversations)
		}
	}
}

func TestSideRequestWithoutThinkingEvictsNothing(t *testing.T) {
	g := newGateway(t, anthropicAndGLM, "glm")
	ok := okTurns(t)
	anthropic := g.upstreams["anthropic"]
	c := mixed(t, g, g.conversation("side-request"))
	ok(c.Say("first on anthropic"))
	ok(c.Say("second on anthropic"))
	before := g.stats()

	// Claude Code's title generation: same session, no history, no thinking.
	side := g.conversation("side-request")
	side.Thinking = "disabled"
	ok(side.Say("write a title for this session"))
	if after := g.stats(); after.Blocks != before.Blocks || after.Confirmed != before.Confirmed {
		t.Fatalf("side request changed the registry: %+v, then %+v", before, after)
	}

	ok(c.Say("third on anthropic"))
	assertBlocks(t, thinkingBlocks(t, lastRequest(t, anthropic).Body), historyBlocks(c)[1:3])
}

// TestReloadKeepsTheRegistry changes the config through the admin API: the
// registry survives with everything it learned, and the new values apply.
func TestReloadKeepsTheRegistry(t *testing.T) {
	g := newGateway(t, anthropicAndGLM, "glm")
	ok := okTurns(t)
	anthropic := g.upstreams["anthropic"]
	// The new mode changes what Anthropic gets for the GLM message before
	// its block, which a model that binds signatures to their conversation
	// refuses: see TestAModeChangeCostsABindingBackendOneRefusal.
	anthropic.BindSignatures(false)
	c := g.conversation("reload")
	c.ShowThinking = true // blocks with text, so that they can be converted
	mixed(t, g, c)
	ok(c.Say("on anthropic"))
	before := g.stats()

	g.Handler += "\nmax_blocks 5000\nmode convert_to_text"
	g.load()
	if after := g.stats(); after.Blocks != before.Blocks || after.Switches != before.Switches {
		t.Fatalf("registry lost state on reload: %+v, then %+v", before, after)
	}

	turn := ok(c.Say("after the reload"))
	// Anthropic's block is still known as Anthropic's...
	assertBlocks(t, thinkingBlocks(t, lastRequest(t, anthropic).Body), historyBlocks(c)[1:2])
	// ...and the GLM block is now converted, as the new config says.
	if got := turn.Header.Get("X-LLM-Thinking-Warning"); got != "thinking_converted" {
		t.Errorf("warning after reload = %q, want thinking_converted", got)
	}
}

// TestAModeChangeCostsABindingBackendOneRefusal: a reload that changes
// the mode changes what a backend gets for another backend's message, and
// so the conversation its later blocks were bound to. The backend refuses
// them once, the safety net absorbs it, and from then on they stay out and
// what follows is stable again.
func TestAModeChangeCostsABindingBackendOneRefusal(t *testing.T) {
	g := newGateway(t, anthropicAndGLM, "glm")
	anthropic := g.upstreams["anthropic"]
	c, ok := g.session("mode-change")
	c.ShowThinking = true
	ok(c.Say("on glm"))
	g.use("anthropic")
	ok(c.Say("on anthropic"))
	ok(c.Say("again on anthropic"))
	assertBlocks(t, thinkingBlocks(t, lastRequest(t, anthropic).Body), historyBlocks(c)[1:2])

	g.Handler += "\nmode convert_to_text"
	g.load()
	ok(c.Say("after the reload"))
	if n := refusals(anthropic); n != 1 {
		t.Fatalf("anthropic refused %d times, want once", n)
	}
	assertBlocks(t, thinkingBlocks(t, lastRequest(t, anthropic).Body), nil)
	// The replay went without thinking (it must not be refused, and the
	// latest message lost its block); the next turn thinks again.
	ok(c.Say("and on"))
	assertBlocks(t, thinkingBlocks(t, lastRequest(t, anthropic).Body), nil)
	newest := historyBlocks(c)[len(historyBlocks(c))-1:]
	ok(c.Say("once more"))
	assertBlocks(t, thinkingBlocks(t, lastRequest(t, anthropic).Body), newest)
	if n := refusals(anthropic); n != 1 {
		t.Fatalf("anthropic refused %d times in all, want once", n)
	}
}

// TestClientDisconnectRegistersNothing cuts a stream after its blocks are
// finished but before message_stop: the message never completed, so the
// client will not replay it and nothing may be registered.
func TestClientDisconnectRegistersNothing(t *testing.T) {
	g := newGateway(t, anthropicAndGLM, "anthropic")
	anthropic := g.upstreams["anthropic"]
	// The hold ends when the upstream request is cancelled, which happens
	// only once Caddy has seen the client go: message_stop cannot race the
	// disconnect.
	release := anthropic.HoldStreamAfterBlocks()
	defer release()

	c := g.conversation("disconnect")
	ctx, cancel := context.WithCancel(context.Background())
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, g.url()+"/v1/messages", strings.NewReader(string(c.Body())))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Claude-Code-Session-Id", "disconnect")
	resp, err := (&http.Client{Transport: g.transport}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	// Read up to the last content_block_stop, then hang up.
	r := bufio.NewReader(resp.Body)
	stops := 0
	for stops < 2 {
		line, err := r.ReadString('\n')
		if err != nil {
			t.Fatalf("stream ended early: %v", err)
		}
		if strings.HasPrefix(line, "event: content_block_stop") {
			stops++
		}
	}
	cancel()
	resp.Body.Close()

	// The next request of another conversation is served after the cut
	// request's handler has given up its response; no block of the cut
	// message may be known by then, and none may appear later.
	ok := okTurns(t)
	other := g.conversation("after-disconnect")
	ok(other.Say("hello"))
	if s := g.stats(); s.Blocks != 1 {
		t.Fatalf("registry holds %d blocks, want only the 1 of the completed reply: %+v", s.Blocks, s)
	}
}

// TestStreamInFlightSurvivesAReload loads a new config while a stream of
// the old one is held open: the old handler, already cleaned up, finishes
// its stream and registers its block in the registry that lives on.
func TestStreamInFlightSurvivesAReload(t *testing.T) {
	g := newGateway(t, anthropicAndGLM, "glm")
	ok := okTurns(t)
	anthropic := g.upstreams["anthropic"]
	c := mixed(t, g, g.conversation("in-flight"))

	release := anthropic.HoldStream()
	c.OnFirstByte = func() {
		// The stream is open and held: reload the config under it.
		g.Handler += "\nmax_blocks 1000"
		g.load()
		release()
	}
	ok(c.Say("streamed across a reload"))
	c.OnFirstByte = nil
	if lastRequest(t, anthropic).HoldTimedOut {
		t.Fatal("the held stream was not released by the test")
	}

	// The block of that stream was registered, so it comes back on the
	// next turn instead of being stripped as unknown.
	ok(c.Say("after the reload"))
	assertBlocks(t, thinkingBlocks(t, lastRequest(t, anthropic).Body), historyBlocks(c)[1:2])
}
