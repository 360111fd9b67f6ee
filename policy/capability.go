package policy

import (
	"strings"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/registry"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/thinking"
)

// capabilityRefusal is a refusal that says what a backend's model does not
// take: every piece must be in the upstream's message. The pieces are
// short parts of the messages of the servers we know, never whole
// sentences, since servers word them differently from version to version.
type capabilityRefusal struct {
	pieces []string
	facts  registry.Capability
}

// capabilityRefusals are the refusals learned from, first match wins. The
// refusals about thinking blocks and where they are (blockRefusals,
// structureRefusals) are looked at before these: a clear_thinking edit sent
// with thinking off is the request's fault, not the backend's.
var capabilityRefusals = []capabilityRefusal{
	// Ollama, for a model without thinking: "\"llama3.2\" does not support thinking".
	{[]string{"does not support thinking"}, registry.CannotThink},
	// Other servers, for a model without thinking.
	{[]string{"thinking is not supported"}, registry.CannotThink},
	// Servers that validate with pydantic and do not know the field: the
	// whole thinking config, its display, context_management.
	{[]string{"thinking: Extra inputs are not permitted"}, registry.CannotThink},
	{[]string{"thinking.display", "Extra inputs are not permitted"}, registry.NoThinkingDisplay},
	{[]string{"context_management", "Extra inputs are not permitted"}, registry.NoContextManagement},
	// Servers that know context_management but not the clear_thinking edit:
	// "context_management.edits.0.type: Input tag 'clear_thinking_20251015'
	// found using 'type' does not match any of the expected tags".
	{[]string{"clear_thinking_"}, registry.NoClearThinking},
	// Servers that know only enabled and disabled thinking:
	// "thinking.type: Input tag 'adaptive' found using 'type' does not match".
	{[]string{"thinking", "'adaptive'"}, registry.NoAdaptiveThinking},
}

// refusalFacts returns what a refusal's message says the backend's model
// does not take, or 0 when it says nothing of the kind, or names one of the
// API's thinking rules, which the request broke, not the backend.
func refusalFacts(msg string) registry.Capability {
	if thinkingRule(msg) {
		return 0
	}
	for _, r := range capabilityRefusals {
		all := true
		for _, p := range r.pieces {
			all = all && strings.Contains(msg, p)
		}
		if all {
			return r.facts
		}
	}
	return 0
}

// omissions returns the fields a request of thinking type typ goes
// without, for a model that facts were learned of.
func omissions(facts registry.Capability, typ string) thinking.Omission {
	var o thinking.Omission
	if facts&registry.CannotThink != 0 || facts&registry.NoAdaptiveThinking != 0 && typ == "adaptive" {
		o |= thinking.OmitThinking
	}
	if facts&registry.NoContextManagement != 0 {
		o |= thinking.OmitContextManagement
	}
	if facts&registry.NoClearThinking != 0 {
		o |= thinking.OmitClearThinking
	}
	if facts&registry.NoThinkingDisplay != 0 {
		o |= thinking.OmitThinkingDisplay
	}
	return o
}

// Learned is something new the policy learned of a backend's model, worth
// a log line: once per fact.
type Learned struct {
	Backend, Model string
	Facts          registry.Capability
	// Why says from what: the upstream's refusal, or an answer.
	Why string
}

// learn records facts of model as backend serves it, and returns what was
// new, from why.
func (p *Policy) learn(backend, model string, facts registry.Capability, why string) Learned {
	model = BoundedID(model)
	return Learned{Backend: backend, Model: model, Facts: p.Registry.Learn(backend, model, facts), Why: why}
}
