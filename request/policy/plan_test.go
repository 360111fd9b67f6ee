package policy

import (
	"bytes"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/block"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/request/thinking"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/request/threads"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/state/registry"
)

func TestDecide(t *testing.T) {
	p := &Policy{Foreign: thinking.ConvertToText}
	tests := []struct {
		origin string
		mixed  bool
		action thinking.Action
		reason Reason
	}{
		{"a", false, thinking.Keep, ReasonOwn},
		{"a", true, thinking.Keep, ReasonOwn},
		{"b", false, thinking.ConvertToText, ReasonForeign},
		{"b", true, thinking.ConvertToText, ReasonForeign},
		{"", false, thinking.Keep, ReasonUnknown},
		{"", true, thinking.ConvertToText, ReasonUnknownAfterSwitch},
	}
	for _, tt := range tests {
		action, reason := p.decide(tt.origin, "a", tt.mixed, false, false)
		if action != tt.action || reason != tt.reason {
			t.Errorf("origin %q mixed %v to a: %d %q, want %d %q", tt.origin, tt.mixed, action, reason, tt.action, tt.reason)
		}
	}
}

// thinkingBlock is a signed block as a response carries it and a request
// replays it.
func thinkingBlock(sig string) string {
	return fmt.Sprintf(`{"type":"thinking","thinking":"","signature":%q}`, sig)
}

func keyOf(sig string) block.Key {
	var h block.Hasher
	return h.Thinking([]byte(sig))
}

// body is a request whose history holds one assistant message per
// signature, each a thinking block and a text.
func body(sigs ...string) []byte {
	msgs := []string{`{"role":"user","content":"hi"}`}
	for _, s := range sigs {
		msgs = append(msgs, `{"role":"assistant","content":[`+thinkingBlock(s)+`,{"type":"text","text":"x"}]}`, `{"role":"user","content":"go on"}`)
	}
	return []byte(`{"model":"m","messages":[` + strings.Join(msgs, ",") + `],"thinking":{"type":"enabled","budget_tokens":2000},"stream":true}`)
}

func newPolicy() *Policy {
	reg := registry.New(registry.Config{})
	return &Policy{Registry: reg, Foreign: thinking.Strip, Threads: threads.New(threads.Limits{}, reg)}
}

func session(id string) http.Header {
	h := http.Header{}
	h.Set("X-Claude-Code-Session-Id", id)
	return h
}

func TestPlanKeepsOwnBlocksAndStripsForeignOnes(t *testing.T) {
	p := newPolicy()
	p.Plan(Request{Body: body(), Header: session("s1"), Backend: "glm"})
	p.Register(0, "glm", "m", []block.Observed{{Kind: block.Thinking, Key: keyOf("g1")}})
	p.Plan(Request{Body: body("g1"), Header: session("s1"), Backend: "anthropic"})
	p.Register(0, "anthropic", "m", []block.Observed{{Kind: block.Thinking, Key: keyOf("a1")}})

	// "new" is unknown, and the conversation has seen glm: it cannot be
	// proven to be anthropic's.
	in := body("g1", "a1", "new")
	pl := p.Plan(Request{Body: in, Header: session("s1"), Backend: "anthropic"})
	if pl.Passthrough != nil {
		t.Fatal(pl.Passthrough)
	}
	want := []struct {
		origin string
		action thinking.Action
		reason Reason
	}{
		{"glm", thinking.Strip, ReasonForeign},
		{"anthropic", thinking.Keep, ReasonOwn},
		{"", thinking.Strip, ReasonUnknownAfterSwitch},
	}
	if len(pl.Decisions) != len(want) {
		t.Fatalf("%d decisions, want %d", len(pl.Decisions), len(want))
	}
	for i, w := range want {
		d := pl.Decisions[i]
		if d.Origin != w.origin || d.Action != w.action || d.Reason != w.reason || d.Message != int32(1+2*i) || d.Index != 0 {
			t.Errorf("decision %d = %+v, want %+v", i, d, w)
		}
	}
	if pl.Result != (thinking.Result{Kept: 1, Stripped: 2}) {
		t.Errorf("result = %+v", pl.Result)
	}
	if got := string(pl.Body); strings.Contains(got, `"g1"`) || strings.Contains(got, `"new"`) || !strings.Contains(got, thinkingBlock("a1")) {
		t.Errorf("body = %s", got)
	}
	if pl.Conversation != hashedID("s1") || !pl.Stream {
		t.Errorf("conversation %q, stream %v", pl.Conversation, pl.Stream)
	}
}

func TestPlanCountsSwitchesButReadOnlyRequestsDoNot(t *testing.T) {
	p := newPolicy()
	in := body()
	if pl := p.Plan(Request{Body: in, Header: session("s1"), Backend: "a"}); pl.Switched {
		t.Fatal("the first request switched")
	}
	if pl := p.Plan(Request{Body: in, Header: session("s1"), Backend: "b", ReadOnly: true}); pl.Switched {
		t.Fatal("a read-only request switched")
	}
	pl := p.Plan(Request{Body: in, Header: session("s1"), Backend: "b"})
	if !pl.Switched || pl.Previous != "a" {
		t.Fatalf("switched %v from %q, want from a", pl.Switched, pl.Previous)
	}
	if s := p.Registry.Stats(); s.Switches != 1 {
		t.Fatalf("switches = %d, want 1", s.Switches)
	}
}

func TestPlanPassesOtherBodiesThrough(t *testing.T) {
	p := newPolicy()
	for _, in := range []string{`not json`, `{"model":"m"}`, `[1]`} {
		pl := p.Plan(Request{Body: []byte(in), Header: http.Header{}, Backend: "a"})
		if string(pl.Body) != in || pl.Passthrough == nil || len(pl.Decisions) != 0 {
			t.Errorf("%s: body %q, passthrough %v", in, pl.Body, pl.Passthrough)
		}
	}
	// A body that would need an edit but is not valid JSON goes as it came.
	p.Register(0, "glm", "m", []block.Observed{{Kind: block.Thinking, Key: keyOf("g1")}})
	in := []byte(strings.Replace(string(body("g1")), `"model":"m"`, `"max_tokens":01`, 1))
	pl := p.Plan(Request{Body: in, Header: session("s1"), Backend: "anthropic"})
	if string(pl.Body) != string(in) || !errors.Is(pl.Passthrough, thinking.ErrInvalidJSON) || len(pl.Decisions) != 1 {
		t.Fatalf("invalid body: %q, %v", pl.Body, pl.Passthrough)
	}
}

func TestParseMode(t *testing.T) {
	for mode, want := range map[string]thinking.Action{
		"": thinking.Strip, ModeStrip: thinking.Strip, ModeConvertToText: thinking.ConvertToText,
		ModeConvertToTags: thinking.ConvertToTags, ModeDropSignature: thinking.DropSignature,
	} {
		if got, err := ParseMode(mode); got != want || err != nil {
			t.Errorf("ParseMode(%q) = %d, %v; want %d", mode, got, err, want)
		}
	}
	if _, err := ParseMode("erase"); err == nil || !strings.Contains(err.Error(), `unknown mode "erase"`) {
		t.Errorf("ParseMode(erase): %v", err)
	}
}

func TestAModelThatCannotThinkGetsNoThinking(t *testing.T) {
	p := newPolicy()
	p.Models = Models{"claude-*", "qwen3*"}
	p.Plan(Request{Body: body(), Header: session("s1"), Backend: "ollama"})
	p.Register(0, "glm", "m", []block.Observed{{Kind: block.Thinking, Key: keyOf("g1")}})

	// The body's model, "m", matches no pattern, and ollama never answered
	// it with thinking: even a block of another backend goes.
	pl := p.Plan(Request{Body: body("g1"), Header: session("s1"), Backend: "ollama"})
	defer pl.Release()
	if pl.Model != "m" || pl.ThinkingCapable {
		t.Fatalf("model %q, capable %v", pl.Model, pl.ThinkingCapable)
	}
	if len(pl.Decisions) != 1 || pl.Decisions[0].Action != thinking.Strip || pl.Decisions[0].Reason != ReasonModelNotCapable {
		t.Fatalf("decisions %+v", pl.Decisions)
	}
	if pl.Result.Stripped != 1 || strings.Contains(string(pl.Body), `"g1"`) {
		t.Fatalf("result %+v, body %s", pl.Result, pl.Body)
	}

	capable := bytes.Replace(body("g1"), []byte(`"model":"m"`), []byte(`"model":"qwen3:8b"`), 1)
	pl2 := p.Plan(Request{Body: capable, Header: session("s1"), Backend: "glm"})
	defer pl2.Release()
	if !pl2.ThinkingCapable || pl2.Result.Changed() {
		t.Fatalf("a capable model's own block: capable %v, result %+v", pl2.ThinkingCapable, pl2.Result)
	}
}

func TestAModelThatAnswersWithThinkingCanThink(t *testing.T) {
	p := newPolicy()
	p.Models = Models{"claude-*"}
	// "m" is not in the list, but ollama answers it with thinking.
	first := p.Plan(Request{Body: body(), Header: session("s1"), Backend: "ollama"})
	if first.ThinkingCapable {
		t.Fatal("an unlisted model was capable before any answer")
	}
	learned := p.Register(first.Thread, "ollama", "m", []block.Observed{{Kind: block.Thinking, Key: keyOf("o1")}})
	if learned.Facts != registry.Thinks || learned.Backend != "ollama" || learned.Model != "m" {
		t.Fatalf("learned %+v", learned)
	}
	pl := p.Plan(Request{Body: body("o1"), Header: session("s1"), Backend: "ollama"})
	if !pl.ThinkingCapable || pl.Result.Changed() || pl.Decisions[0].Reason != ReasonOwn {
		t.Fatalf("the model's own block after it answered with thinking: capable %v, %+v", pl.ThinkingCapable, pl.Decisions)
	}
	// Learned for that backend only, and only once.
	if p.Register(0, "ollama", "m", []block.Observed{{Kind: block.Thinking, Key: keyOf("o2")}}).Facts != 0 {
		t.Fatal("a fact learned twice")
	}
	if pl := p.Plan(Request{Body: body("o1"), Header: session("s2"), Backend: "vllm"}); pl.ThinkingCapable {
		t.Fatal("what ollama's model does made another backend's capable")
	}
}

// planReplayed returns a request that replays a thinking block "plan"
// signed sig, and the block's key.
func planReplayed(sig string) ([]byte, block.Key) {
	body := []byte(`{"model":"m","messages":[{"role":"user","content":"hi"},{"role":"assistant","content":[` +
		`{"type":"thinking","thinking":"plan","signature":"` + sig + `"},{"type":"text","text":"x"}]},{"role":"user","content":"go on"}],"stream":true}`)
	var h block.Hasher
	h.Write([]byte("plan"))
	return body, h.Thinking([]byte(sig))
}

func TestSynthesizedBlocksGoOnlyToTheirProducer(t *testing.T) {
	const sig = "llmthinking.v1.mac"
	tagged, key := planReplayed(sig)
	tests := []struct {
		name     string
		origin   string // "" leaves the block unknown
		target   string
		asTags   bool
		action   thinking.Action
		reason   Reason
		contains string
	}{
		{"own, as thinking", "llama", "llama", false, thinking.Keep, ReasonOwn, sig},
		{"own, as tags", "llama", "llama", true, thinking.KeepAsTags, ReasonOwnAsTags, `"text":"<think>plan</think>"`},
		{"another backend's", "llama", "anthropic", true, thinking.Strip, ReasonForeign, `{"type":"text","text":"x"}`},
		{"unknown, though only the target served the conversation", "", "llama", false, thinking.Strip, ReasonForeign, `{"type":"text","text":"x"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := newPolicy()
			p.SynthesizedAsTags = tt.asTags
			if tt.origin != "" {
				p.Register(0, tt.origin, "m", []block.Observed{{Kind: block.Thinking, Key: key}})
			}
			pl := p.Plan(Request{Body: tagged, Header: session("s1"), Backend: tt.target})
			defer pl.Release()
			if len(pl.Decisions) != 1 || pl.Decisions[0].Action != tt.action || pl.Decisions[0].Reason != tt.reason {
				t.Fatalf("decisions %+v, want %v %v", pl.Decisions, tt.action, tt.reason)
			}
			if !strings.Contains(string(pl.Body), tt.contains) {
				t.Errorf("body %s lacks %s", pl.Body, tt.contains)
			}
		})
	}
}

// TestReasoningBlocksGoBackAsThinking: a block made from a chat-completions
// server's reasoning goes to its producer as the thinking block it is, even
// where think-tag blocks go back as tags, and to nobody else.
func TestReasoningBlocksGoBackAsThinking(t *testing.T) {
	body, key := planReplayed("llmthinking.v1.reasoning.mac")
	for _, tt := range []struct {
		target string
		action thinking.Action
	}{{"deepseek", thinking.Keep}, {"anthropic", thinking.Strip}} {
		p := newPolicy()
		p.SynthesizedAsTags = true
		p.Register(0, "deepseek", "m", []block.Observed{{Kind: block.Thinking, Key: key}})
		pl := p.Plan(Request{Body: body, Header: session("s1"), Backend: tt.target})
		if len(pl.Decisions) != 1 || pl.Decisions[0].Action != tt.action {
			t.Errorf("to %s: decisions %+v, want %v", tt.target, pl.Decisions, tt.action)
		}
		pl.Release()
	}
}
