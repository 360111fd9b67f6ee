package integration

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/messagesapi"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/tools/llmtest"
)

// isFiller reports whether b is the thinking block llm_thinking gives an
// assistant message for a backend that wants thinking back, when the
// message holds none of that backend's: unsigned, its text the message's
// filler (see messagesapi.AppendFiller).
func isFiller(b []byte) bool {
	var blk struct {
		Type, Thinking string
		Signature      *string
	}
	return json.Unmarshal(b, &blk) == nil && blk.Type == "thinking" && blk.Signature != nil && *blk.Signature == "" &&
		strings.HasPrefix(blk.Thinking, messagesapi.FillerHead)
}

// shapedBackend is a backend that refuses requests not in a shape of its
// own, as a strict mock speaking that server's words plays it.
type shapedBackend struct {
	name   string
	flavor llmtest.Flavor
	demand func(*llmtest.Upstream)
	// profile declares the shape up front (a backend_profile block).
	profile string
	// fact is what the gateway learns from the backend's refusal.
	fact string
	// wantsBack: the backend's requests hold fillers; adaptive: its
	// thinking requests go adaptive.
	wantsBack, adaptive bool
}

var shapedBackends = []shapedBackend{{
	name: "kimi", flavor: llmtest.Lenient,
	demand:  func(u *llmtest.Upstream) { u.WantThinkingBack(llmtest.KimiThinkingBack) },
	profile: "backend_profile kimi {\n\tthinking_back tool_calls\n}",
	fact:    "thinking_back_tool_calls", wantsBack: true,
}, {
	name: "deepseek", flavor: llmtest.Lenient,
	demand:  func(u *llmtest.Upstream) { u.WantThinkingBack(llmtest.DeepSeekThinkingBack) },
	profile: "backend_profile deepseek {\n\tthinking_back all\n}",
	fact:    "thinking_back_all", wantsBack: true,
}, {
	name: "minimax", flavor: llmtest.Lenient,
	demand:  func(u *llmtest.Upstream) { u.RefuseThinkingType(llmtest.MiniMaxRefusesEnabled, "claude-sonnet-4-5") },
	profile: "backend_profile minimax {\n\tthinking_type adaptive\n}",
	fact:    "no_enabled_thinking", adaptive: true,
}, {
	// The newest Claude models take only adaptive thinking, and bind
	// their signatures to the conversation, as the Strict mock does.
	name: "opus", flavor: llmtest.Strict,
	demand:  func(u *llmtest.Upstream) { u.RefuseThinkingType(llmtest.ClaudeRefusesEnabled, "claude-sonnet-4-5") },
	profile: "backend_profile opus claude-sonnet-4-5 {\n\tthinking_type adaptive\n}",
	fact:    "no_enabled_thinking", adaptive: true,
}}

// TestSwitchingToBackendsThatWantAShape runs, for each backend that wants
// a shape of its own, a Claude Code conversation with tool loops that
// starts on Anthropic, switches to it inside a tool loop, goes back to
// Anthropic and to it again, with a restart in between: streamed and not,
// with the shape learned from the backend's refusal and declared up front.
// No client error; the backend refuses once when nothing was declared and
// never when its profile was, not even after the restart; Anthropic gets
// every block it produced back and nothing else; the backend gets its own
// blocks and fillers, never Anthropic's; a backend that takes only adaptive
// thinking keeps thinking.
func TestSwitchingToBackendsThatWantAShape(t *testing.T) {
	for _, b := range shapedBackends {
		for _, declared := range []bool{false, true} {
			for _, stream := range []bool{true, false} {
				t.Run(fmt.Sprintf("%s/declared=%v/stream=%v", b.name, declared, stream), func(t *testing.T) {
					testSwitchingToAShapedBackend(t, b, declared, stream)
				})
			}
		}
	}
}

func testSwitchingToAShapedBackend(t *testing.T, b shapedBackend, declared, stream bool) {
	var opts []func(*gateway)
	if declared {
		opts = append(opts, withHandler(b.profile))
	}
	g := newGateway(t, map[string]llmtest.Flavor{"anthropic": llmtest.Strict, b.name: b.flavor}, "anthropic", opts...)
	other, anthropic := g.upstreams[b.name], g.upstreams["anthropic"]
	b.demand(other)
	c := g.conversation("shaped-" + b.name)
	c.Stream = stream
	tr := &tracker{t: t, g: g, c: c, own: map[string][]json.RawMessage{}, fillersFor: map[string]bool{b.name: b.wantsBack}}

	tr.turn("anthropic", func() (*llmtest.Turn, error) { return c.Say("[tool] look around") })
	tr.turn("anthropic", func() (*llmtest.Turn, error) { return c.ToolResult("a.go b.go [tool]") })
	tr.turn("anthropic", func() (*llmtest.Turn, error) { return c.ToolResult("done") })
	tr.turn("anthropic", func() (*llmtest.Turn, error) { return c.Say("[tool] once more") })
	// The switch, inside Anthropic's tool loop.
	tr.turn(b.name, func() (*llmtest.Turn, error) { return c.ToolResult("out") })
	tr.turn(b.name, func() (*llmtest.Turn, error) { return c.Say("[tool] your turn") })
	tr.turn(b.name, func() (*llmtest.Turn, error) { return c.ToolResult("ok") })
	refusedBefore := refusals(other)
	restartCaddy(t, g)
	tr.turn(b.name, func() (*llmtest.Turn, error) { return c.Say("after the restart") })
	tr.turn("anthropic", func() (*llmtest.Turn, error) { return c.Say("[tool] back on anthropic") })
	tr.turn("anthropic", func() (*llmtest.Turn, error) { return c.ToolResult("fine") })
	tr.turn(b.name, func() (*llmtest.Turn, error) { return c.Say("[tool] and back") })
	tr.turn(b.name, func() (*llmtest.Turn, error) { return c.ToolResult("last") })

	want := 1
	if declared {
		want = 0
	}
	if n := refusals(other); n != want || refusedBefore != want {
		t.Errorf("%s refused %d times, %d before the restart; want %d", b.name, n, refusedBefore, want)
	}
	if n := refusals(anthropic); n != 0 {
		t.Errorf("anthropic refused %d times", n)
	}
	if b.wantsBack && tr.fillers == 0 {
		t.Errorf("%s never got a filler: the test proves nothing", b.name)
	}
	if len(tr.own[b.name]) == 0 {
		t.Errorf("%s never thought", b.name)
	}
	if b.adaptive {
		// Thinking goes off only for the request whose tool loop lost its
		// leading thinking (Anthropic's), as for any backend.
		adaptive := 0
		for i, r := range other.Requests() {
			top := topLevel(t, r.Body)
			switch typ := string(top["thinking"]); {
			case r.Status != 200:
			case strings.HasPrefix(typ, `{"type":"adaptive"`):
				adaptive++
			case typ != "" || i != 0:
				t.Errorf("%s request %d answered with thinking %s", b.name, i, typ)
			}
		}
		if adaptive < 5 {
			t.Errorf("%s thought adaptively in %d requests", b.name, adaptive)
		}
	}
	learned := map[string]string{}
	for _, l := range g.stats().Capabilities {
		learned[l.Backend] = strings.Join(l.Names, "+")
	}
	if got := learned[b.name]; declared && strings.Contains(got, b.fact) || !declared && !strings.Contains(got, b.fact) {
		t.Errorf("learned of %s: %q (declared %v, fact %s)", b.name, got, declared, b.fact)
	}
}

// tracker sends a conversation's turns to the backends a test names and
// checks, on each, that the backend got exactly the blocks it produced,
// plus fillers where it wants thinking back.
type tracker struct {
	t          *testing.T
	g          *gateway
	c          *llmtest.Conversation
	own        map[string][]json.RawMessage
	fillersFor map[string]bool
	fillers    int
}

// turn switches to backend (through the admin API, as users do) when
// another one is active, then sends.
func (tr *tracker) turn(backend string, send func() (*llmtest.Turn, error)) {
	tr.t.Helper()
	if tr.g.Active != backend {
		tr.g.use(backend)
	}
	before := len(historyBlocks(tr.c))
	okTurns(tr.t)(send())
	var own []json.RawMessage
	for _, b := range thinkingBlocks(tr.t, lastRequest(tr.t, tr.g.upstreams[backend]).Body) {
		if isFiller(b) {
			if !tr.fillersFor[backend] {
				tr.t.Fatalf("%s got a filler", backend)
			}
			tr.fillers++
			continue
		}
		own = append(own, b)
	}
	assertBlocks(tr.t, own, tr.own[backend])
	tr.own[backend] = append(tr.own[backend], historyBlocks(tr.c)[before:]...)
}
