package policy

import (
	"github.com/caddy-llm-thinking/caddy-llm-thinking/request/thinking"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/state/registry"
)

// capabilityRefusal is a refusal that says what a backend's model does not
// take: every piece must be in the upstream's message, in its own words
// (see evidence). The pieces are short parts of the messages of the servers
// we know, never whole sentences, since servers word them differently from
// version to version, but each longer than any value of the request it
// quotes (a piece that a client's string holds whole is that client's).
type capabilityRefusal struct {
	pieces []string
	facts  registry.Capability
}

// capabilityRefusals are the refusals learned from, first match wins. The
// refusals about thinking blocks and where they are (blockRefusals,
// structureRefusals) are looked at before these: a clear_thinking edit sent
// with thinking off is the request's fault, not the backend's.
var capabilityRefusals = []capabilityRefusal{
	// Kimi: "thinking is enabled but reasoning_content is missing in
	// assistant tool call message at index N"; the same without naming
	// the tool call is taken to mean every message.
	{[]string{"reasoning_content is missing", "tool call"}, registry.ThinkingBackOnToolCalls},
	{[]string{"reasoning_content is missing"}, registry.ThinkingBackEverywhere},
	// DeepSeek V4: "The `content[].thinking` in the thinking mode must be
	// passed back to the API." on its Anthropic endpoint, "The
	// `reasoning_content` in the thinking mode must be passed back to the
	// API." on its chat completions; older DeepSeek servers: "Missing
	// `reasoning_content` field in the assistant message at message index
	// N". None says which messages: every one.
	{[]string{"thinking mode must be passed back"}, registry.ThinkingBackEverywhere},
	{[]string{"Missing `reasoning_content`"}, registry.ThinkingBackEverywhere},
	// Models that take only adaptive thinking. MiniMax M3: "invalid params,
	// invalid thinking.type: \"enabled\" (allowed: adaptive, disabled)
	// (2013)"; the newest Claude models: "\"thinking.type.enabled\" is not
	// supported for this model. Use \"thinking.type.adaptive\" and
	// \"output_config.effort\" to control thinking behavior."
	{[]string{`^thinking.type: "enabled"`, "allowed: adaptive"}, registry.NoEnabledThinking},
	{[]string{`"thinking.type.enabled" is not supported`}, registry.NoEnabledThinking},
	// Older Claude models, which take only enabled thinking: "adaptive
	// thinking is not supported on this model". Before the refusals of
	// thinking itself, whose wording it contains.
	{[]string{"adaptive thinking is not supported"}, registry.NoAdaptiveThinking},
	// OpenAI's Responses API, for an organization that is not verified:
	// "Your organization must be verified to generate reasoning
	// summaries. ..." (param reasoning.summary, code unsupported_value;
	// continuedev #9602, OpenHands SDK #987).
	{[]string{"must be verified to generate reasoning summaries"}, registry.NoReasoningSummary},
	// Gemini, for 2.5 models (also behind -latest aliases) and Gemma:
	// "Thinking level is not supported for this model." (Roo-Code
	// #10700, gemini-cli #14025); 2.0 models refuse any thinkingConfig:
	// "thinking_config is not supported".
	{[]string{"Thinking level is not supported"}, registry.NoThinkingLevel},
	{[]string{"thinking_config is not supported"}, registry.CannotThink},
	// OpenAI's reasoning models on chat completions: "Unsupported
	// parameter: 'max_tokens' is not supported with this model. Use
	// 'max_completion_tokens' instead." (param max_tokens, code
	// unsupported_parameter).
	{[]string{"Unsupported parameter: 'max_tokens' is not supported", "'max_completion_tokens'"}, registry.MaxCompletionTokens},
	// Models that cannot stop thinking. GLM-5.3, code 1210: "该模型始终思考，
	// 不支持关闭思考；请使用 low、high 或 max。" ("the model always thinks,
	// turning thinking off is not supported; use low, high or max";
	// cc-switch #6737); Kimi Code and others on chat completions:
	// "Unsupported value: 'reasoning_effort' does not support 'none' with
	// this model. Supported values are: 'minimal', 'low', 'medium', and
	// 'high'." (Kilo-Org/cloud #3807).
	{[]string{"不支持关闭思考"}, registry.AlwaysThinks},
	{[]string{"'reasoning_effort' does not support 'none'"}, registry.AlwaysThinks},
	// Ollama, for a model without thinking: "\"llama3.2\" does not support thinking".
	{[]string{"does not support thinking"}, registry.CannotThink},
	// Other servers, for a model without thinking.
	{[]string{"thinking is not supported"}, registry.CannotThink},
	// Servers that validate with pydantic and do not know the field: the
	// whole thinking config, its display, context_management. Each names
	// a top-level field ('^'): a path into the client's own content that
	// ends in the same name is not that field.
	{[]string{"^thinking: Extra inputs are not permitted"}, registry.CannotThink},
	{[]string{"^thinking.display: Extra inputs are not permitted"}, registry.NoThinkingDisplay},
	{[]string{"^context_management: Extra inputs are not permitted"}, registry.NoContextManagement},
	// Servers that know context_management but not the clear_thinking edit:
	// "context_management.edits.0.type: Input tag 'clear_thinking_20251015'
	// found using 'type' does not match any of the expected tags".
	{[]string{"^context_management.edits.", "Input tag 'clear_thinking_"}, registry.NoClearThinking},
	// Servers that know only enabled and disabled thinking:
	// "thinking.type: Input tag 'adaptive' found using 'type' does not
	// match"; some Qwen servers: "Only 'enabled' and 'disabled' are
	// supported for thinking; 'adaptive' is not supported."; FastAPI
	// servers (omlx), in a 422's detail: "thinking.type: Input should be
	// 'enabled' or 'disabled'".
	{[]string{"^thinking.type: Input tag 'adaptive'"}, registry.NoAdaptiveThinking},
	{[]string{"'adaptive' is not supported"}, registry.NoAdaptiveThinking},
	{[]string{"^thinking.type: Input should be 'enabled' or 'disabled'"}, registry.NoAdaptiveThinking},
}

// refusalFacts returns what a refusal's message says the backend's model
// does not take, or 0 when it says nothing of the kind, or names one of the
// API's thinking rules, which the request broke, not the backend. Only
// the server's own words count (see evidence).
func refusalFacts(e evidence) registry.Capability {
	if thinkingRule(e.msg) {
		return 0
	}
	for _, r := range capabilityRefusals {
		all := true
		for _, p := range r.pieces {
			all = all && e.has(p)
		}
		if all {
			return r.facts
		}
	}
	return 0
}

// omissions returns the fields a request goes without, for a model that
// facts were learned of.
func omissions(facts registry.Capability) thinking.Omission {
	var o thinking.Omission
	if facts&registry.CannotThink != 0 {
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
	if facts&registry.AlwaysThinks != 0 {
		o |= thinking.OmitThinkingOff
	}
	return o
}

// thinkingBack returns the assistant messages that must hold thinking,
// for a model that facts were learned of.
func thinkingBack(facts registry.Capability) thinking.ThinkingBack {
	switch {
	case facts&registry.ThinkingBackEverywhere != 0:
		return thinking.ThinkingBackEverywhere
	case facts&registry.ThinkingBackOnToolCalls != 0:
		return thinking.ThinkingBackOnToolCalls
	}
	return thinking.NoThinkingBack
}

// thinkingType returns the one thinking type a model takes, for a model
// that facts were learned of, or "" when it takes either.
func thinkingType(facts registry.Capability) string {
	switch {
	case facts&registry.NoEnabledThinking != 0:
		return "adaptive"
	case facts&registry.NoAdaptiveThinking != 0:
		return "enabled"
	}
	return ""
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

// Confirm records what the plan of a replay read in its backend's refusal
// (Plan.Learned), once the replay succeeded: the refusal was the server's,
// about what the fact turns off, and not text a client wrote and the
// server quoted back (see evidence). A replay refused again confirms
// nothing, so no one client's request changes what the others send. It
// returns the facts that were new.
func (p *Policy) Confirm(l Learned) Learned {
	if l.Facts == 0 {
		return Learned{}
	}
	return p.learn(l.Backend, l.Model, l.Facts, l.Why)
}
