package registry

import (
	"cmp"
	"slices"
	"strings"
	"time"
)

// Capability is a set of facts learned about what a model, as one backend
// serves it, takes: from its answers (it thinks) and from its refusals (it
// cannot think, or does not know a thinking-related field). Stored as its
// number: a fact is never renumbered, and a new one takes the next bit.
type Capability uint16

// The facts.
const (
	// Thinks: the model answered with thinking, so it takes thinking
	// blocks whatever the configured list of thinking models says.
	Thinks Capability = 1 << iota
	// CannotThink: the model refused thinking; it gets neither thinking
	// blocks nor a thinking config.
	CannotThink
	// NoContextManagement: the backend refused the context_management
	// field.
	NoContextManagement
	// NoClearThinking: the backend refused clear_thinking_* context edits.
	NoClearThinking
	// NoThinkingDisplay: the backend refused the display of a thinking
	// config.
	NoThinkingDisplay
	// NoAdaptiveThinking: the model refused adaptive thinking, and takes
	// only enabled: a request that asks for adaptive goes with enabled
	// thinking and a budget (see thinking.Request.Retype).
	NoAdaptiveThinking
	// NoEnabledThinking: the model refused enabled thinking, and takes only
	// adaptive: a request that asks for enabled goes with adaptive thinking,
	// its budget carried as output_config.effort.
	NoEnabledThinking
	// ThinkingBackOnToolCalls: the backend refuses an assistant message
	// with a tool call that holds no thinking (Kimi): each gets one.
	ThinkingBackOnToolCalls
	// ThinkingBackEverywhere: the backend refuses any assistant message
	// that holds no thinking (DeepSeek V4): each gets one.
	ThinkingBackEverywhere
	// NoReasoningSummary: the backend refuses to summarize the model's
	// reasoning (OpenAI, for an organization that is not verified):
	// transport responses asks for no summary.
	NoReasoningSummary
	// NoThinkingLevel: the model refuses Gemini's thinkingLevel (2.5
	// models, also behind -latest aliases; Gemma): transport gemini asks
	// with a thinkingBudget.
	NoThinkingLevel
	// MaxCompletionTokens: the model refuses max_tokens and wants
	// max_completion_tokens (OpenAI's reasoning models): transport openai
	// sends the cap under that name.
	MaxCompletionTokens
	// AlwaysThinks: the model refuses to stop thinking (GLM-5.3; models
	// without reasoning_effort "none"): a request that asks for no
	// thinking goes with the model's least thinking instead (see
	// thinking.Request.Omit and the transports).
	AlwaysThinks
)

// capabilityNames name the facts, bit by bit, as logs and stats write them.
var capabilityNames = [...]string{
	"thinks", "cannot_think", "no_context_management", "no_clear_thinking", "no_thinking_display", "no_adaptive_thinking",
	"no_enabled_thinking", "thinking_back_tool_calls", "thinking_back_all", "no_reasoning_summary", "no_thinking_level",
	"max_completion_tokens", "always_thinks",
}

// CapabilityNames returns the name of every fact, in bit order.
func CapabilityNames() []string { return append([]string(nil), capabilityNames[:]...) }

// ParseCapability returns the fact a name names, as Names writes it.
func ParseCapability(name string) (Capability, bool) {
	for i, n := range capabilityNames {
		if n == name {
			return 1 << i, true
		}
	}
	return 0, false
}

// Names returns the names of the facts in c.
func (c Capability) Names() []string {
	var names []string
	for i, n := range capabilityNames {
		if c&(1<<i) != 0 {
			names = append(names, n)
		}
	}
	return names
}

// String returns the names of the facts in c, joined by "+".
func (c Capability) String() string { return strings.Join(c.Names(), "+") }

// With returns c with the facts of add, a fact replacing its opposite:
// a model that answers with thinking can think, and one that refuses it
// cannot; a model that refuses one thinking type takes the other. A model
// that has refused both types cannot think: it is not sent either again.
func (c Capability) With(add Capability) Capability {
	if both := NoAdaptiveThinking | NoEnabledThinking; add&both != 0 && (c|add)&both == both {
		return (c &^ (both | Thinks)) | (add &^ both) | CannotThink
	}
	return c.Override(add)
}

// Override returns c with the facts of d in place of their opposites,
// without the rule for a model that refused both thinking types: what an
// operator declares of a model (see policy.Profiles) wins over what was learned.
func (c Capability) Override(d Capability) Capability {
	if d&Thinks != 0 {
		c &^= CannotThink
	}
	if d&CannotThink != 0 {
		c &^= Thinks
	}
	if d&NoAdaptiveThinking != 0 {
		c &^= NoEnabledThinking
	}
	if d&NoEnabledThinking != 0 {
		c &^= NoAdaptiveThinking
	}
	return c | d
}

// MaxCapabilities bounds the backends and models a registry remembers
// facts about; the least recently used are forgotten first.
const MaxCapabilities = 4096

// capabilityKey names a model as one backend serves it.
type capabilityKey struct{ backend, model string }

// learned is what the registry knows of one model of one backend.
type learned struct {
	facts Capability
	at    time.Time // when the facts last changed
}

// LearnedCapability is what was learned of one model of one backend, as
// Capabilities lists it.
type LearnedCapability struct {
	Backend string     `json:"backend"`
	Model   string     `json:"model"`
	Facts   Capability `json:"-"`
	// Names are the names of the facts.
	Names []string  `json:"learned"`
	At    time.Time `json:"at"`
}

// Learn adds facts about model as backend serves it, and returns those
// that are new: a caller logs each fact once.
func (r *Registry) Learn(backend, model string, facts Capability) (added Capability) {
	if backend == "" || model == "" || facts == 0 {
		return 0
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	k := capabilityKey{backend, model}
	l, ok := r.capabilities.Get(k)
	if !ok {
		l = &learned{}
	}
	next := l.facts.With(facts)
	if ok && next == l.facts {
		return 0
	}
	added = next &^ l.facts
	l.facts, l.at = next, r.now()
	r.capabilities.Add(k, l)
	r.journal.add(Change{Op: Learned, Backend: backend, Model: model, Facts: next, At: l.at})
	return added
}

// Capabilities returns the facts learned about model as backend serves it.
func (r *Registry) Capabilities(backend, model string) Capability {
	if backend == "" || model == "" {
		return 0
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if l, ok := r.capabilities.Get(capabilityKey{backend, model}); ok {
		return l.facts
	}
	return 0
}

// Forget drops what was learned about model as backend serves it, or about
// every model of backend when model is "", and returns how many models it
// forgot: for the day an operator serves another model under an old name.
func (r *Registry) Forget(backend, model string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := r.forget(backend, model)
	r.journal.add(Change{Op: Forgot, Backend: backend, Model: model, At: r.now()})
	return n
}

func (r *Registry) forget(backend, model string) int {
	n := 0
	for _, k := range r.capabilities.Keys() {
		if k.backend == backend && (model == "" || k.model == model) {
			r.capabilities.Remove(k)
			n++
		}
	}
	return n
}

// LearnedCapabilities returns everything learned, by backend and model.
func (r *Registry) LearnedCapabilities() []LearnedCapability {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]LearnedCapability, 0, r.capabilities.Len())
	for _, k := range r.capabilities.Keys() {
		l, _ := r.capabilities.Peek(k)
		out = append(out, LearnedCapability{Backend: k.backend, Model: k.model, Facts: l.facts, Names: l.facts.Names(), At: l.at})
	}
	slices.SortFunc(out, func(a, b LearnedCapability) int {
		return cmp.Or(cmp.Compare(a.Backend, b.Backend), cmp.Compare(a.Model, b.Model))
	})
	return out
}
