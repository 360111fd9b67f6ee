package policy

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/block"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/state/registry"
)

// filler is the thinking block the first tool call message of loopBody
// gets for a backend that wants thinking back when it has none of its own:
// unsigned, its text the message's filler (see messagesapi.AppendFiller).
const filler = `{"type":"thinking","thinking":"Step without its reasoning: called Bash {} (t0).","signature":""}`

// TestThinkingBackIsLearnedFromTheRefusal: anthropic's tool loop goes to a
// Kimi-like backend, which refuses the tool call message left without
// thinking. The replay gives it an unsigned block in front, its filler, keeps
// thinking on, and so does every later request; anthropic's block never
// reaches it.
func TestThinkingBackIsLearnedFromTheRefusal(t *testing.T) {
	p := newPolicy()
	p.Plan(Request{Body: loopBody("kimi-k3"), Header: session("s1"), Backend: "anthropic"})
	p.Register(0, "anthropic", "kimi-k3", []block.Observed{{Kind: block.Thinking, Key: keyOf("a1")}})
	req := Request{Body: loopBody("kimi-k3", "a1"), Header: session("s1"), Backend: "kimi"}
	first := p.Plan(req)
	if !first.Result.DroppedThinkingConfig {
		t.Fatalf("before the refusal the loop lost its thinking: %+v", first.Result)
	}
	const msg = "thinking is enabled but reasoning_content is missing in assistant tool call message at index 1"
	replay := p.Replay(req, Refusal{Backend: "kimi", Message: msg, Sent: first.Body})
	p.Confirm(replay.Learned)
	if replay.Learned.Facts != registry.ThinkingBackOnToolCalls {
		t.Fatalf("learned %+v", replay.Learned)
	}
	p.Register(0, "kimi", "kimi-k3", []block.Observed{{Kind: block.Thinking, Key: keyOf("k1")}})
	next := p.Plan(Request{Body: loopBody("kimi-k3", "a1", "k1"), Header: session("s1"), Backend: "kimi"})
	for _, pl := range []Plan{replay, next} {
		b := string(pl.Body)
		if !strings.Contains(b, `[`+filler+`,{"type":"tool_use","id":"t0"`) || !strings.Contains(b, `"thinking":{"type":"enabled"`) ||
			strings.Contains(b, `"a1"`) || pl.Result.DroppedThinkingConfig || pl.Result.Backfilled != 1 {
			t.Fatalf("%+v\n%s", pl.Result, b)
		}
	}
	if !strings.Contains(string(next.Body), `[`+thinkingBlock("k1")+`,{"type":"tool_use","id":"t1"`) {
		t.Fatalf("kimi's own block is not its thinking:\n%s", next.Body)
	}
	// Anthropic gets its block back, and no filler.
	back := p.Plan(Request{Body: loopBody("kimi-k3", "a1", "k1"), Header: session("s1"), Backend: "anthropic"})
	if strings.Contains(string(back.Body), "Step without its reasoning") || !strings.Contains(string(back.Body), thinkingBlock("a1")) {
		t.Fatalf("back on anthropic:\n%s", back.Body)
	}
}

// TestEnabledThinkingRefusedGoesAdaptive: a model that takes only adaptive
// thinking keeps thinking, in the type it takes.
func TestEnabledThinkingRefusedGoesAdaptive(t *testing.T) {
	p := newPolicy()
	req := Request{Body: loopBody("MiniMax-M3"), Header: session("s1"), Backend: "minimax"}
	first := p.Plan(req)
	replay := p.Replay(req, Refusal{Backend: "minimax", Message: `invalid params, invalid thinking.type: "enabled" (allowed: adaptive, disabled) (2013)`, Sent: first.Body})
	p.Confirm(replay.Learned)
	next := p.Plan(Request{Body: loopBody("MiniMax-M3", "m1"), Header: session("s1"), Backend: "minimax"})
	for _, pl := range []Plan{replay, next} {
		if b := string(pl.Body); !strings.Contains(b, `"output_config":{"effort":"low"},"thinking":{"type":"adaptive","display":"omitted"}`) ||
			!strings.Contains(b, "clear_thinking") || pl.Result.Retyped != "adaptive" {
			t.Fatalf("%+v\n%s", pl.Result, b)
		}
	}
	if replay.Learned.Facts != registry.NoEnabledThinking {
		t.Fatalf("learned %+v", replay.Learned)
	}
}

// TestProfilesDeclareWhatIsNotLearnedYet: what an operator declares applies
// from the first request, per backend and model, and wins over what was
// learned.
func TestProfilesDeclareWhatIsNotLearnedYet(t *testing.T) {
	p := newPolicy()
	p.Profiles = Profiles{
		{Backend: "kimi", Facts: registry.ThinkingBackOnToolCalls},
		{Backend: "anthropic", Models: Models{"claude-opus-4-8*"}, Facts: registry.NoEnabledThinking},
	}
	p.Registry.Learn("anthropic", "claude-opus-4-8", registry.NoAdaptiveThinking)
	p.Plan(Request{Body: loopBody("claude-opus-4-8"), Header: session("s1"), Backend: "anthropic"})
	p.Register(0, "anthropic", "claude-opus-4-8", []block.Observed{{Kind: block.Thinking, Key: keyOf("a1")}})

	kimi := p.Plan(Request{Body: loopBody("claude-opus-4-8", "a1"), Header: session("s1"), Backend: "kimi"})
	if kimi.Result.Backfilled != 1 || kimi.Result.DroppedThinkingConfig || kimi.Result.Retyped != "" {
		t.Fatalf("kimi: %+v\n%s", kimi.Result, kimi.Body)
	}
	opus := p.Plan(Request{Body: loopBody("claude-opus-4-8", "a1"), Header: session("s1"), Backend: "anthropic"})
	if opus.Result.Retyped != "adaptive" || opus.Result.Backfilled != 0 || !strings.Contains(string(opus.Body), thinkingBlock("a1")) {
		t.Fatalf("opus: %+v\n%s", opus.Result, opus.Body)
	}
	sonnet := p.Plan(Request{Body: loopBody("claude-sonnet-4-5", "a1"), Header: session("s2"), Backend: "anthropic"})
	if sonnet.Result.Retyped != "" {
		t.Fatalf("a model the profile does not name: %+v", sonnet.Result)
	}
}

func TestProfileFacts(t *testing.T) {
	for _, tc := range []struct {
		back, typ string
		want      registry.Capability
	}{
		{"", "", 0},
		{"tool_calls", "", registry.ThinkingBackOnToolCalls},
		{"all", "adaptive", registry.ThinkingBackEverywhere | registry.NoEnabledThinking},
		{"", "enabled", registry.NoAdaptiveThinking},
	} {
		if got, err := ProfileFacts(tc.back, tc.typ); err != nil || got != tc.want {
			t.Errorf("%q %q: %v %v, want %v", tc.back, tc.typ, got, err, tc.want)
		}
	}
	for _, bad := range [][2]string{{"some", ""}, {"", "disabled"}} {
		if _, err := ProfileFacts(bad[0], bad[1]); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

// stableChat is a conversation through anthropic, kimi and deepseek, with
// tool loops, whose history a test extends and rewrites for each backend.
type stableChat struct {
	msgs []string
	n    int
}

func (c *stableChat) body() []byte {
	return []byte(`{"model":"claude-sonnet-4-5","max_tokens":32000,"messages":[` + strings.Join(c.msgs, ",") +
		`],"thinking":{"type":"enabled","budget_tokens":31999,"display":"omitted"},"context_management":{"edits":[{"type":"clear_thinking_20251015","keep":"all"}]},"stream":true}`)
}

// answer appends backend's answer, a tool call and its result or a text
// and the user's next words, registering its block.
func (c *stableChat) answer(p *Policy, backend string, tool bool) {
	c.n++
	sig := backend + "-" + string(rune('a'+c.n))
	p.Register(0, backend, "claude-sonnet-4-5", []block.Observed{{Kind: block.Thinking, Key: keyOf(sig)}})
	id := "t" + string(rune('a'+c.n))
	if tool {
		c.msgs = append(c.msgs, `{"role":"assistant","content":[`+thinkingBlock(sig)+`,{"type":"tool_use","id":"`+id+`","name":"Bash","input":{}}]}`,
			`{"role":"user","content":[{"type":"tool_result","tool_use_id":"`+id+`","content":"ok"}]}`)
		return
	}
	c.msgs = append(c.msgs, `{"role":"assistant","content":[`+thinkingBlock(sig)+`,{"type":"text","text":"x"}]}`, `{"role":"user","content":"go on"}`)
}

// sentMessages returns the messages a planned body sends.
func sentMessages(t *testing.T, body []byte) []json.RawMessage {
	t.Helper()
	var b struct{ Messages []json.RawMessage }
	if err := json.Unmarshal(body, &b); err != nil {
		t.Fatalf("%v:\n%s", err, body)
	}
	return b.Messages
}

// TestARewriteIsStable: what a backend gets for a message is the same on
// every later request of the conversation, whatever other backends served
// it in between and whatever was learned of them; newer models bind each
// signature to the prefix before it.
func TestARewriteIsStable(t *testing.T) {
	p := newPolicy()
	p.Profiles = Profiles{{Backend: "deepseek", Facts: registry.ThinkingBackEverywhere}}
	c := &stableChat{msgs: []string{`{"role":"user","content":"do it"}`}}
	backends := []string{"anthropic", "kimi", "deepseek"}
	sent := map[string][]json.RawMessage{} // per backend, the messages it got last
	plan := func(backend string) []json.RawMessage {
		pl := p.Plan(Request{Body: c.body(), Header: session("s1"), Backend: backend})
		return sentMessages(t, pl.Body)
	}
	learnt := []struct {
		backend string
		facts   registry.Capability
	}{
		{"kimi", registry.ThinkingBackOnToolCalls},
		{"glm", registry.NoEnabledThinking},
		{"anthropic", registry.NoClearThinking},
		{"deepseek", registry.NoThinkingDisplay},
	}
	for turn := range 12 {
		backend := backends[turn%len(backends)]
		got := plan(backend)
		again := plan(backend)
		if l := learnt[turn%len(learnt)]; l.backend != backend {
			p.Registry.Learn(l.backend, "claude-sonnet-4-5", l.facts)
		}
		afterLearning := plan(backend)
		for i := range got {
			if string(got[i]) != string(again[i]) || string(got[i]) != string(afterLearning[i]) {
				t.Fatalf("turn %d, %s: message %d rewritten in two ways:\n%s\n%s\n%s", turn, backend, i, got[i], again[i], afterLearning[i])
			}
		}
		// Every message the backend got before comes to it the same way;
		// the last of them, the final user message then, too.
		for i, m := range sent[backend] {
			if string(got[i]) != string(m) {
				t.Fatalf("turn %d, %s: message %d changed since it last got it:\nbefore %s\nnow    %s", turn, backend, i, m, got[i])
			}
		}
		sent[backend] = got
		c.answer(p, backend, turn%2 == 0)
	}
}
