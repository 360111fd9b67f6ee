package llmtest

import (
	"fmt"
	"slices"
	"strings"
)

// The Anthropic API's error messages, verbatim (the live API really writes
// "preceeding").
const (
	msgNonEmpty         = "messages.%d: all messages must have non-empty content except for the optional final assistant message"
	msgFieldRequired    = "messages.%d.content.%d.thinking.%s: Field required"
	msgBadSignature     = "messages.%d.content.%d: Invalid `signature` in `thinking` block"
	msgBadRedacted      = "messages.%d.content.%d: Invalid `data` in `redacted_thinking` block"
	msgFinalBlock       = "messages.%d: The final block in an assistant message cannot be `thinking`."
	msgExpectedThinking = "messages.%d.content.0.type: Expected `thinking` or `redacted_thinking`, but found `%s`. When `thinking` is enabled, a final `assistant` message must start with a thinking block (preceeding the lastmost set of `tool_use` and `tool_result` blocks). We recommend you include thinking blocks from previous turns. To avoid this requirement, disable `thinking`. Please consult our documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking"
	msgDisabled         = "messages.%d.content.%d: When thinking is disabled, an `assistant` message in the final position cannot contain `thinking`. To use thinking blocks, enable `thinking` in your request."
	msgClearThinking    = "`%s` strategy requires `thinking` to be enabled"
	msgModified         = "messages.%d.content.%d: `thinking` or `redacted_thinking` blocks in the latest assistant message cannot be modified. These blocks must remain as they were in the original response."
	msgNoBudget         = "thinking.enabled.budget_tokens: Field required"
	msgSmallBudget      = "thinking.enabled.budget_tokens: Input should be greater than or equal to 1024"
	msgBudgetOverMax    = "`max_tokens` must be greater than `thinking.budget_tokens`. Please consult our documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking#max-tokens-and-context-window-size"
	msgBadEffort        = "output_config.effort: Input should be 'low', 'medium', 'high', 'xhigh' or 'max'"
	msgBound            = "messages.%d.content.%d: thinking block is bound to a different conversation: the system prompt, tools or earlier messages changed since it was produced"
)

// violation applies the Strict rules in the API's order and returns the
// message of the first one req breaks, or "".
func (u *Upstream) violation(req *request) string {
	u.mu.Lock()
	keys, unbound := u.signer, u.unbound
	u.mu.Unlock()
	for _, rule := range []func(*request) string{
		schemaRule,
		nonEmptyRule,
		func(req *request) string { return keys.blockRule(req, !unbound) },
		thinkingConfigRule,
		finalTurnRule,
		contextEditRule,
		u.unmodifiedRule,
	} {
		if msg := rule(req); msg != "" {
			return msg
		}
	}
	return ""
}

func nonEmptyRule(req *request) string {
	for i, m := range req.messages {
		if m.empty() && !(i == len(req.messages)-1 && m.role == "assistant") {
			return fmt.Sprintf(msgNonEmpty, i)
		}
	}
	return ""
}

// blockRule checks every thinking block's signature and every redacted
// payload against the instance's current key, each signature's binding to
// the conversation before its message, and that no assistant message ends
// in thinking.
func (s signer) blockRule(req *request, bind bool) string {
	var bound [][]byte
	for i, m := range req.messages {
		if m.role != "assistant" {
			continue
		}
		for j, b := range m.blocks {
			switch b.typ {
			case "thinking":
				if !b.has("thinking") {
					return fmt.Sprintf(msgFieldRequired, i, j, "thinking")
				}
				if !b.has("signature") {
					return fmt.Sprintf(msgFieldRequired, i, j, "signature")
				}
				text, _ := b.str("thinking")
				sig, _ := b.str("signature")
				if !s.validThinkingSignature(text, sig) {
					return fmt.Sprintf(msgBadSignature, i, j)
				}
				if bind && bound == nil {
					bound = prefixes(req)
				}
				if bind && !s.boundTo(sig, bound[i]) {
					return fmt.Sprintf(msgBound, i, j)
				}
			case "redacted_thinking":
				data, _ := b.str("data")
				if !s.validRedactedData(data) {
					return fmt.Sprintf(msgBadRedacted, i, j)
				}
			}
		}
		if n := len(m.blocks); n > 0 && isThinking(m.blocks[n-1].typ) {
			return fmt.Sprintf(msgFinalBlock, i)
		}
	}
	return ""
}

// finalTurn returns the indices, in order, of the assistant messages of the
// final turn: a whole tool-use loop counts as one turn. It is empty unless
// the request ends in a tool result or an assistant message. Messages of
// other roles (a trailing "system" one) are passed over, the stricter of the
// readings the live API could have.
func finalTurn(msgs []message) []int {
	end := lastTurnMessage(msgs)
	if end < 0 {
		return nil
	}
	last := msgs[end]
	if last.role != "assistant" && !(last.role == "user" && last.hasToolResult()) {
		return nil
	}
	var turn []int
walk:
	for i := end; i >= 0; i-- {
		switch m := msgs[i]; {
		case m.role == "assistant":
			turn = append(turn, i)
		case m.role == "user" && !m.hasToolResult():
			break walk
		}
	}
	slices.Reverse(turn)
	return turn
}

func finalTurnRule(req *request) string {
	turn := finalTurn(req.messages)
	if len(turn) == 0 {
		return ""
	}
	last := req.messages[lastTurnMessage(req.messages)]
	switch {
	case req.thinkingType == "enabled" && last.role == "user":
		i := turn[0]
		first := req.messages[i]
		found := "text"
		if len(first.blocks) > 0 {
			found = first.blocks[0].typ
		}
		if !isThinking(found) {
			return fmt.Sprintf(msgExpectedThinking, i, found)
		}
	case !req.thinkingOn():
		for _, i := range turn {
			for j, b := range req.messages[i].blocks {
				if isThinking(b.typ) {
					return fmt.Sprintf(msgDisabled, i, j)
				}
			}
		}
	}
	return ""
}

func contextEditRule(req *request) string {
	if req.thinkingOn() {
		return ""
	}
	for _, t := range req.contextEditTypes {
		if strings.HasPrefix(t, "clear_thinking_") {
			return fmt.Sprintf(msgClearThinking, t)
		}
	}
	return ""
}

// unmodifiedRule checks that the latest assistant message, when it comes
// from one of this instance's responses, still holds that response's
// thinking blocks unchanged and in order.
func (u *Upstream) unmodifiedRule(req *request) string {
	if !req.thinkingOn() {
		return ""
	}
	i := len(req.messages) - 1
	for i >= 0 && req.messages[i].role != "assistant" {
		i--
	}
	if i < 0 {
		return ""
	}
	m := req.messages[i]
	u.mu.Lock()
	want, ok := u.ledger.producedThinking(m)
	u.mu.Unlock()
	if !ok {
		return ""
	}
	k := 0
	for j, b := range m.blocks {
		switch {
		case isThinking(b.typ):
			if k >= len(want) || !want[k].sameAs(b) {
				return fmt.Sprintf(msgModified, i, j)
			}
			k++
		case k < len(want):
			return fmt.Sprintf(msgModified, i, j)
		}
	}
	if k < len(want) {
		return fmt.Sprintf(msgModified, i, len(m.blocks))
	}
	return ""
}

// thinkingConfigRule checks the thinking config as the API does: enabled
// thinking needs a budget of at least 1024 tokens, below max_tokens; an
// effort must be one of the API's.
func thinkingConfigRule(req *request) string {
	if req.thinkingType == "enabled" {
		switch b := req.budgetTokens; {
		case b == nil:
			return msgNoBudget
		case *b < 1024:
			return msgSmallBudget
		case req.maxTokens > 0 && *b >= req.maxTokens:
			return msgBudgetOverMax
		}
	}
	switch req.effort {
	case "", "low", "medium", "high", "xhigh", "max":
		return ""
	}
	return msgBadEffort
}
