package llmtest

import "fmt"

// Backends that want a request in a shape of their own, each refusing any
// other with its own words (see the protocol notes): Kimi and DeepSeek V4
// want thinking on the assistant messages of a thinking request, MiniMax M3
// and the newest Claude models take only adaptive thinking, older Claude
// models only enabled. Any flavor can be made to demand them.

// ThinkingBackRule is which assistant messages a backend refuses without a
// thinking block, while thinking is on. An empty, unsigned block will do.
type ThinkingBackRule int

const (
	// KimiThinkingBack refuses an assistant message with a tool call and
	// no thinking, as Kimi does.
	KimiThinkingBack ThinkingBackRule = iota + 1
	// DeepSeekThinkingBack refuses any earlier assistant message without
	// thinking, as DeepSeek V4's Anthropic endpoint does.
	DeepSeekThinkingBack
)

// The refusals' words, verbatim.
const (
	msgKimiThinkingBack     = "thinking is enabled but reasoning_content is missing in assistant tool call message at index %d"
	msgDeepSeekThinkingBack = "The `content[].thinking` in the thinking mode must be passed back to the API."
)

// WantThinkingBack makes u refuse a thinking request by rule.
func (u *Upstream) WantThinkingBack(rule ThinkingBackRule) { setLocked(&u.mu, &u.thinkingBack, rule) }

// refuse returns the message of the 400 for req, or "". The final
// assistant message, a prefill, is not an earlier one.
func (rule ThinkingBackRule) refuse(req *request) string {
	if rule == 0 || !req.thinkingOn() {
		return ""
	}
	last := lastTurnMessage(req.messages)
	for i, m := range req.messages {
		if m.role != "assistant" || i == last || m.hasBlock(isThinking) {
			continue
		}
		switch {
		case rule == DeepSeekThinkingBack:
			return msgDeepSeekThinkingBack
		case m.hasBlock(func(typ string) bool { return typ == "tool_use" }):
			return fmt.Sprintf(msgKimiThinkingBack, i)
		}
	}
	return ""
}

// hasBlock reports whether a block of m has a type that is.
func (m message) hasBlock(is func(typ string) bool) bool {
	for _, b := range m.blocks {
		if is(b.typ) {
			return true
		}
	}
	return false
}

// TypeRefusal is a refusal of one thinking type, in the words of the
// servers that refuse it.
type TypeRefusal int

const (
	// ClaudeRefusesEnabled: the newest Claude models take only adaptive.
	ClaudeRefusesEnabled TypeRefusal = iota + 1
	// MiniMaxRefusesEnabled: MiniMax M3 takes only adaptive.
	MiniMaxRefusesEnabled
	// ClaudeRefusesAdaptive: older Claude models take only enabled.
	ClaudeRefusesAdaptive
)

// RefuseThinkingType makes u refuse a request for one of models whose
// thinking is of the type r refuses, in r's words.
func (u *Upstream) RefuseThinkingType(r TypeRefusal, models ...string) {
	putLocked(&u.mu, &u.typeRefusals, r, models...)
}

// refuse returns the message of the 400 for req, or "".
func (r TypeRefusal) refuse(req *request) string {
	switch {
	case r == ClaudeRefusesEnabled && req.thinkingType == "enabled":
		return `"thinking.type.enabled" is not supported for this model. Use "thinking.type.adaptive" and "output_config.effort" to control thinking behavior.`
	case r == MiniMaxRefusesEnabled && req.thinkingType == "enabled":
		return `invalid params, invalid thinking.type: "enabled" (allowed: adaptive, disabled) (2013)`
	case r == ClaudeRefusesAdaptive && req.thinkingType == "adaptive":
		return "adaptive thinking is not supported on this model"
	}
	return ""
}
