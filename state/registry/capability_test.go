package registry

import (
	"fmt"
	"testing"
)

func TestLearningAddsFactsAndReportsOnlyNewOnes(t *testing.T) {
	r, _ := newTestRegistry(t, Config{})
	if added := r.Learn("vllm", "qwen3", NoContextManagement); added != NoContextManagement {
		t.Fatalf("added %v", added)
	}
	if added := r.Learn("vllm", "qwen3", NoContextManagement); added != 0 {
		t.Fatalf("a fact learned twice was new again: %v", added)
	}
	r.Learn("vllm", "qwen3", NoClearThinking)
	if got := r.Capabilities("vllm", "qwen3"); got != NoContextManagement|NoClearThinking {
		t.Fatalf("facts %v", got)
	}
	if got := r.Capabilities("vllm", "other") | r.Capabilities("other", "qwen3"); got != 0 {
		t.Fatalf("facts of one model leaked to another: %v", got)
	}
	if s := r.Stats(); s.Learned != 1 {
		t.Fatalf("stats %+v", s)
	}
	// Nothing is learned without a backend and a model.
	if r.Learn("", "m", Thinks) != 0 || r.Learn("b", "", Thinks) != 0 {
		t.Fatal("learned about nobody")
	}
}

func TestAnAnswerWithThinkingReversesCannotThink(t *testing.T) {
	r, _ := newTestRegistry(t, Config{})
	r.Learn("ollama", "qwen3", CannotThink|NoThinkingDisplay)
	if added := r.Learn("ollama", "qwen3", Thinks); added != Thinks {
		t.Fatalf("added %v", added)
	}
	if got := r.Capabilities("ollama", "qwen3"); got != Thinks|NoThinkingDisplay {
		t.Fatalf("after an answer with thinking: %v", got)
	}
	// And a refusal reverses it back.
	r.Learn("ollama", "qwen3", CannotThink)
	if got := r.Capabilities("ollama", "qwen3"); got != CannotThink|NoThinkingDisplay {
		t.Fatalf("after a refusal: %v", got)
	}
}

func TestForgetDropsAModelOrABackend(t *testing.T) {
	r, _ := newTestRegistry(t, Config{})
	r.Learn("ollama", "a", CannotThink)
	r.Learn("ollama", "b", CannotThink)
	r.Learn("vllm", "a", NoContextManagement)
	if n := r.Forget("ollama", "a"); n != 1 || r.Capabilities("ollama", "a") != 0 || r.Capabilities("ollama", "b") == 0 {
		t.Fatalf("forgot %d", n)
	}
	if n := r.Forget("ollama", ""); n != 1 || r.Capabilities("ollama", "b") != 0 || r.Capabilities("vllm", "a") == 0 {
		t.Fatalf("forgot %d", n)
	}
}

func TestLearnedCapabilitiesAreBounded(t *testing.T) {
	r, _ := newTestRegistry(t, Config{})
	for i := range MaxCapabilities + 10 {
		r.Learn("b", fmt.Sprint("model-", i), CannotThink)
	}
	if s := r.Stats(); s.Learned != MaxCapabilities {
		t.Fatalf("learned %d, bound %d", s.Learned, MaxCapabilities)
	}
	if r.Capabilities("b", "model-0") != 0 || r.Capabilities("b", fmt.Sprint("model-", MaxCapabilities+9)) == 0 {
		t.Fatal("not the least recently used forgotten first")
	}
}

func TestCapabilityNames(t *testing.T) {
	all := Thinks | CannotThink | NoContextManagement | NoClearThinking | NoThinkingDisplay | NoAdaptiveThinking |
		NoEnabledThinking | ThinkingBackOnToolCalls | ThinkingBackEverywhere
	if got := all.String(); got != "thinks+cannot_think+no_context_management+no_clear_thinking+no_thinking_display+no_adaptive_thinking+"+
		"no_enabled_thinking+thinking_back_tool_calls+thinking_back_all" {
		t.Fatalf("names %q", got)
	}
	for _, n := range all.Names() {
		if c, ok := ParseCapability(n); !ok || c.String() != n {
			t.Fatalf("%s parses as %v", n, c)
		}
	}
	if _, ok := ParseCapability("flies"); ok {
		t.Fatal("parsed an unknown fact")
	}
}

func TestLearningIsJournaled(t *testing.T) {
	r, _ := newTestRegistry(t, Config{})
	r.Record()
	r.Learn("ollama", "m", CannotThink)
	r.Forget("ollama", "m")
	changes, _ := r.TakeChanges(nil)
	if len(changes) != 2 || changes[0].Op != Learned || changes[0].Facts != CannotThink || changes[1].Op != Forgot || changes[1].Model != "m" {
		t.Fatalf("journal %+v", changes)
	}
	other := New(Config{})
	other.Apply(changes[:1])
	if other.Capabilities("ollama", "m") != CannotThink {
		t.Fatal("a learned change did not apply")
	}
	other.Apply(changes[1:])
	if other.Capabilities("ollama", "m") != 0 {
		t.Fatal("a forgot change did not apply")
	}
}

// TestOneThinkingTypeReplacesTheOther: a model takes one thinking type or
// the other; one that refused both cannot think. What an operator declares
// replaces what was learned, without that rule.
func TestOneThinkingTypeReplacesTheOther(t *testing.T) {
	r, _ := newTestRegistry(t, Config{})
	r.Learn("b", "m", Thinks|NoAdaptiveThinking)
	if got := r.Capabilities("b", "m"); got != Thinks|NoAdaptiveThinking {
		t.Fatalf("learned %v", got)
	}
	if added := r.Learn("b", "m", NoEnabledThinking); added != CannotThink {
		t.Fatalf("refusing both types added %v", added)
	}
	if got := r.Capabilities("b", "m"); got != CannotThink {
		t.Fatalf("a model that refused both types: %v", got)
	}
	if got := (Thinks | NoAdaptiveThinking | ThinkingBackEverywhere).Override(NoEnabledThinking); got != Thinks|NoEnabledThinking|ThinkingBackEverywhere {
		t.Fatalf("declared over learned: %v", got)
	}
}
