package thinking

import (
	"slices"
	"strconv"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/jsonscan"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/jsonstr"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/messagesapi"
)

// Some backends take a request only in a shape of their own: thinking on
// every assistant message that has a tool call (Kimi) or on every one
// (DeepSeek V4), or thinking of one type only (the newest Claude models and
// MiniMax M3 take only adaptive, older Claude models only enabled). A
// Request is fitted to them with WantThinkingBack and Retype before Rewrite.
// What either adds is a function of the message and the backend's facts
// alone, so that a backend gets the same bytes for a message on every
// request of a conversation.

// ThinkingBack says which assistant messages a backend wants to hold
// thinking.
type ThinkingBack uint8

// Which messages.
const (
	// NoThinkingBack: none needs any.
	NoThinkingBack ThinkingBack = iota
	// ThinkingBackOnToolCalls: every assistant message with a tool_use.
	ThinkingBackOnToolCalls
	// ThinkingBackEverywhere: every assistant message.
	ThinkingBackEverywhere
)

// fillerBlock returns the thinking block message mi gets when it must hold
// thinking and holds none: unsigned, so that it carries nothing of another
// backend, and its text the message's filler (see
// messagesapi.AppendFiller), never the same for two messages, since
// identical fillers degrade the answers of the backends that read them.
// The signature member is there, empty, because Anthropic-style servers
// require the field. It is written into the rewrite's memory.
func (r *Request) fillerBlock(rw *rewrite, mi int) []byte {
	start := len(rw.bytes)
	rw.scratch = messagesapi.AppendFiller(rw.scratch[:0], jsonscan.Value(r.msg(mi).content.Of(r.body)))
	rw.bytes = append(rw.bytes, `{"type":"thinking","thinking":`...)
	rw.bytes = jsonstr.Quote(rw.bytes, rw.scratch)
	rw.bytes = append(rw.bytes, `,"signature":""}`...)
	return rw.bytes[start:len(rw.bytes):len(rw.bytes)]
}

// WantThinkingBack makes the next Rewrite (or RewriteCautiously) give each
// assistant message that tb names a thinking block at its front when,
// after the actions, it holds none, while the request turns thinking on.
// The block is unsigned and holds the message's filler (see fillerBlock),
// unless the action of one of the message's thinking blocks converted it
// to text (ConvertToText, ConvertToTags): that text then goes as the
// unsigned thinking block in place of the text. A final assistant message (a prefill) is left alone.
// Result.Backfilled counts the messages.
func (r *Request) WantThinkingBack(tb ThinkingBack) { r.thinkingBack = tb }

// Retype makes the next Rewrite send thinking in type typ ("adaptive" or
// "enabled") when the request turns it on in the other: enabled's budget
// goes as output_config.effort unless the request sets an effort, and
// enabled gets a budget from output_config.effort within max_tokens. A
// request whose max_tokens leaves no room for the smallest budget goes
// without thinking, as with OmitThinking. "" keeps the type asked for.
func (r *Request) Retype(typ string) { r.retypeTo = typ }

// Budgets, in tokens, of enabled thinking.
const (
	// minBudget is the smallest budget the API takes.
	minBudget = 1024
	// lowBudget and mediumBudget are the budgets of efforts low and medium,
	// and the largest budgets read as those efforts.
	lowBudget    = 4096
	mediumBudget = 16384
	// highBudget is the budget of effort high, the API's default effort:
	// the one Claude Code asks for with enabled thinking.
	highBudget = 31999
)

// retyped returns the type the thinking config changes to, or "".
func (r *Request) retyped() string {
	t := string(r.thinkingType)
	if r.retypeTo == "" || !thinkingOn(t) || t == r.retypeTo {
		return ""
	}
	if r.retypeTo == "enabled" {
		if _, ok := r.enabledBudget(); !ok {
			return ""
		}
	}
	return r.retypeTo
}

// cannotRetype reports that the request must go enabled but its
// max_tokens leaves no room for a budget.
func (r *Request) cannotRetype() bool {
	if r.retypeTo != "enabled" || string(r.thinkingType) != "adaptive" {
		return false
	}
	_, ok := r.enabledBudget()
	return !ok
}

// enabledBudget returns the budget of enabled thinking for the request's
// effort, below its max_tokens, and false when there is no room for one.
func (r *Request) enabledBudget() (int, bool) {
	b := highBudget
	switch string(r.effort) {
	case "low", "minimal":
		b = lowBudget
	case "medium":
		b = mediumBudget
	case "xhigh", "max":
		if r.maxTokens > 0 {
			b = r.maxTokens - 1
		}
	}
	if r.maxTokens > 0 {
		b = min(b, r.maxTokens-1)
	}
	return b, b >= minBudget
}

// carriedEffort returns the effort that stands for the request's budget
// when enabled thinking goes adaptive, or "" when there is none to carry:
// no budget, or an effort already set.
func (r *Request) carriedEffort() string {
	if r.budgetTokens == 0 || len(r.effort) > 0 || r.hasMember(outputConfigMember) && r.outputConfig.End == 0 {
		return ""
	}
	switch {
	case r.budgetTokens <= lowBudget:
		return "low"
	case r.budgetTokens <= mediumBudget:
		return "medium"
	}
	return "high"
}

// thinkingConfigAs returns the thinking config in type typ ("" to keep
// it), without its display when dropDisplay is set.
func (r *Request) thinkingConfigAs(typ string, dropDisplay bool) []byte {
	obj := r.memberValue(thinkingMember)
	if typ == "" {
		return withoutMember(obj, "display")
	}
	out := append([]byte(`{"type":"`), typ...)
	out = append(out, '"')
	if typ == "enabled" {
		b, _ := r.enabledBudget()
		out = strconv.AppendInt(append(out, `,"budget_tokens":`...), int64(b), 10)
	}
	var buf [32]byte
	it := jsonscan.Members(obj, 0)
	for key, value, ok := it.Item(); ok; key, value, ok = it.Item() {
		switch name := string(jsonscan.Name(key, &buf)); {
		case name == "type", name == "budget_tokens", name == "display" && dropDisplay:
			continue
		}
		out = append(append(append(append(out, ','), key...), ':'), value...)
	}
	return append(out, '}')
}

// effortEdit returns the edit that sets output_config.effort to effort:
// in the output_config object, or as a member of its own before the
// thinking config m.
func (r *Request) effortEdit(m member, effort string) edit {
	if oc := r.outputConfig; oc.End != 0 {
		at := oc.Start + 1
		repl := `"effort":"` + effort + `"`
		if !emptyObject(oc.Of(r.body)) {
			repl += ","
		}
		return edit{span: span{at, at}, repl: []byte(repl)}
	}
	return edit{span: span{m.key.Start, m.key.Start}, repl: []byte(`"output_config":{"effort":"` + effort + `"},`)}
}

// memberValue returns the value of the last top-level member called n.
func (r *Request) memberValue(n memberName) []byte {
	for i := len(r.members) - 1; i >= 0; i-- {
		if r.members[i].name == n {
			return r.members[i].value.Of(r.body)
		}
	}
	return nil
}

// backfill gives a thinking block to every message WantThinkingBack names
// that holds none after the actions.
func (r *Request) backfill(rw *rewrite) {
	if r.thinkingBack == NoThinkingBack || !thinkingOn(string(r.thinkingType)) || rw.res.DroppedThinkingConfig {
		return
	}
	last := r.lastRole()
	for mi := range r.messages {
		if !r.wantsThinking(mi, last) || r.holdsThinking(rw, mi) {
			continue
		}
		if !rw.touched[mi] {
			r.touch(rw, mi)
		}
		rw.plans[mi] = r.withThinking(rw, mi)
		rw.res.Backfilled++
	}
}

// mayBackfill reports whether a message WantThinkingBack names could be
// left without thinking by the actions.
func (r *Request) mayBackfill(actions []Action) bool {
	if r.thinkingBack == NoThinkingBack || !thinkingOn(string(r.thinkingType)) {
		return false
	}
	last := r.lastRole()
	for mi := range r.messages {
		if !r.wantsThinking(mi, last) {
			continue
		}
		if !slices.ContainsFunc(r.parts(mi), func(p part) bool { return p.typ.isThinking() && actions[p.block] == Keep }) {
			return true
		}
	}
	return false
}

// wantsThinking reports whether message mi is one WantThinkingBack names;
// last is the last message of role user or assistant (see lastRole).
func (r *Request) wantsThinking(mi, last int) bool {
	m := r.msg(mi)
	if m.role != assistantRole || mi == last {
		return false
	}
	if r.thinkingBack == ThinkingBackEverywhere {
		return m.content.End != 0 && (m.contentArray || r.body[m.content.Start] == '"')
	}
	return slices.ContainsFunc(r.parts(mi), func(p part) bool { return p.typ == toolUsePart })
}

// holdsThinking reports whether message mi holds reasoning after the
// rewrite.
func (r *Request) holdsThinking(rw *rewrite, mi int) bool {
	if rw.touched[mi] {
		return slices.ContainsFunc(rw.plans[mi], piece.reasons)
	}
	return slices.ContainsFunc(r.parts(mi), func(p part) bool { return p.typ.isThinking() })
}

// withThinking returns the plan of message mi with a thinking block in
// front: the first of its blocks converted to text, as unsigned thinking,
// or its filler. A message whose content is a string gets it as a text
// block after.
func (r *Request) withThinking(rw *rewrite, mi int) []piece {
	pl := rw.plans[mi]
	front := piece{typ: thinkingPart, raw: r.fillerBlock(rw, mi), block: -1, filled: true}
	at := slices.IndexFunc(pl, func(p piece) bool { return p.converted && p.typ == textPart })
	if at >= 0 {
		lit := r.thinkingLiteral(mi, pl[at].block)
		raw := slices.Concat([]byte(`{"type":"thinking","thinking":`), lit, []byte(`,"signature":""}`))
		front = piece{typ: thinkingPart, raw: raw, block: pl[at].block, converted: true, filled: true}
	}
	start := len(rw.arena)
	rw.arena = append(rw.arena, front)
	for i, p := range pl {
		if i != at {
			rw.arena = append(rw.arena, p)
		}
	}
	if m := r.msg(mi); !m.contentArray {
		if lit := m.content.Of(r.body); len(lit) > 2 {
			raw := slices.Concat([]byte(`{"type":"text","text":`), lit, []byte(`}`))
			rw.arena = append(rw.arena, piece{typ: textPart, raw: raw, block: -1})
		}
	}
	return rw.arena[start:len(rw.arena):len(rw.arena)]
}

// thinkingLiteral returns the thinking literal of block bi of message mi.
func (r *Request) thinkingLiteral(mi, bi int) []byte {
	for _, p := range r.parts(mi) {
		if p.block == bi {
			return p.thinking.Of(r.body)
		}
	}
	return []byte(`""`)
}

// emptyObject reports whether the valid JSON object obj has no member.
func emptyObject(obj []byte) bool {
	for _, c := range obj[1:] {
		switch c {
		case ' ', '\t', '\n', '\r':
		case '}':
			return true
		default:
			return false
		}
	}
	return false
}

// applyRetype settles the thinking type the request goes with: the one
// Retype asked for, unless thinking goes off.
func (r *Request) applyRetype(rw *rewrite) {
	if !rw.res.DroppedThinkingConfig {
		rw.res.Retyped = r.retyped()
	}
}
