package thinking

import (
	"bytes"
	"errors"
	"fmt"
	"slices"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/jsonscan"
)

// Action is what becomes of one block on its way to the backend.
type Action uint8

// Actions. Every one but Keep applies to blocks the target backend did not
// produce.
const (
	// Keep sends the block unchanged.
	Keep Action = iota
	// Strip removes the block.
	Strip
	// ConvertToText turns the thinking into a plain text block.
	ConvertToText
	// ConvertToTags turns the thinking into a text block wrapped in
	// <think></think>, for backends that read tagged reasoning.
	ConvertToTags
	// DropSignature keeps a thinking block without its signature, for
	// backends that accept unsigned thinking.
	DropSignature
)

// ErrInvalidJSON reports a body that would need edits but is not valid
// JSON. Rewrite returns such a body untouched.
var ErrInvalidJSON = errors.New("body is not valid JSON; forwarded untouched")

// placeholder replaces the content of an assistant message that held
// nothing but removed thinking, since the API refuses empty messages, and
// ends one that would otherwise end in a thinking block.
const placeholder = `{"type":"text","text":"(thinking omitted)"}`

// Result counts what Rewrite did to the blocks of a request.
type Result struct {
	// Kept blocks reach the backend unchanged.
	Kept int
	// Stripped blocks were removed, including blocks a convert action could
	// not use (redacted data, empty text) and blocks removed to repair a tool
	// loop.
	Stripped int
	// Converted blocks were turned into text or lost their signature.
	Converted int
	// DroppedThinkingConfig reports that the thinking config (and any
	// clear_thinking context edits) was removed for this request: the tool
	// loop's first assistant message lost its leading thinking.
	DroppedThinkingConfig bool
}

// Changed reports whether the body was edited.
func (r Result) Changed() bool {
	return r.Stripped > 0 || r.Converted > 0 || r.DroppedThinkingConfig
}

// piece is one content block of a rewritten message.
type piece struct {
	typ       partType // after rewriting: converted blocks are text
	raw       []byte
	block     int  // the Request block it came from, or -1
	converted bool // counted in Result.Converted
}

// edit replaces a range of the body.
type edit struct {
	span
	repl []byte
}

// Rewrite applies one action per block (in Blocks order), keeps the request
// valid for the API, and returns the new body. Blocks left to Keep and
// everything outside edited content arrays stay byte-identical; with nothing
// to change, the body itself is returned.
//
// Repairs, all limited to what the actions caused:
//   - an assistant message left empty gets a short placeholder text, unless
//     it is the final message (the API allows an empty final assistant
//     message);
//   - an edited assistant message that would end in a thinking block gets
//     the placeholder after it;
//   - with thinking.type "enabled", when the request ends in a tool loop and
//     the loop's first assistant message lost its leading thinking, the API
//     would reject the request unless thinking is off for it. The rest of that
//     turn's thinking is removed too (the API refuses thinking in the final
//     turn when thinking is off) and the thinking config and clear_thinking_*
//     context edits are dropped for this request only.
func (r *Request) Rewrite(actions []Action) ([]byte, Result, error) {
	if len(actions) != len(r.blocks) {
		return r.body, Result{Kept: len(r.blocks)}, fmt.Errorf("rewrite: %d actions for %d blocks", len(actions), len(r.blocks))
	}
	if !slices.ContainsFunc(actions, func(a Action) bool { return a != Keep }) {
		return r.body, Result{Kept: len(r.blocks)}, nil
	}
	if !jsonscan.Valid(r.body) {
		return r.body, Result{Kept: len(r.blocks)}, ErrInvalidJSON
	}

	var res Result
	plans := make([][]piece, len(r.messages))
	touched := make([]bool, len(r.messages))
	for mi, m := range r.messages {
		parts := r.content[m.parts.start:m.parts.end]
		if slices.ContainsFunc(parts, func(p part) bool { return p.block >= 0 && actions[p.block] != Keep }) {
			plans[mi] = r.apply(parts, actions, &res)
			touched[mi] = true
		}
	}

	if string(r.thinkingType) == "enabled" {
		turn, first := r.finalTurn()
		if first >= 0 && r.lostLeadingThinking(first, plans[first], touched[first]) {
			for _, mi := range turn {
				if !touched[mi] {
					plans[mi] = r.apply(r.content[r.messages[mi].parts.start:r.messages[mi].parts.end], actions, &res)
					touched[mi] = true
				}
				plans[mi] = stripThinking(plans[mi], &res)
			}
			res.DroppedThinkingConfig = true
		}
	}

	var edits []edit
	for mi, m := range r.messages {
		if !touched[mi] {
			continue
		}
		pl := plans[mi]
		switch {
		case len(pl) == 0 && mi == len(r.messages)-1:
		case len(pl) == 0 || pl[len(pl)-1].typ.isThinking():
			pl = append(pl, piece{typ: textPart, raw: []byte(placeholder), block: -1})
		}
		edits = append(edits, edit{m.content, renderArray(pl)})
	}
	if res.DroppedThinkingConfig {
		dropped, err := r.dropThinkingConfig()
		if err != nil {
			return r.body, Result{Kept: len(r.blocks)}, err
		}
		edits = append(edits, dropped...)
	}
	res.Kept = len(r.blocks) - res.Stripped - res.Converted
	out, err := applyEdits(r.body, edits)
	if err != nil {
		return r.body, Result{Kept: len(r.blocks)}, err
	}
	return out, res, nil
}

// apply turns the parts of one message into pieces according to actions.
func (r *Request) apply(parts []part, actions []Action, res *Result) []piece {
	pl := make([]piece, 0, len(parts))
	for _, p := range parts {
		raw := p.span.of(r.body)
		if p.block < 0 || actions[p.block] == Keep {
			pl = append(pl, piece{typ: p.typ, raw: raw, block: p.block})
			continue
		}
		converted, ok := r.convert(p, actions[p.block])
		if !ok {
			res.Stripped++
			continue
		}
		res.Converted++
		converted.converted = true
		pl = append(pl, converted)
	}
	return pl
}

// convert applies a converting action to a thinking part. It reports false
// when the block has nothing a conversion could keep: redacted data is
// opaque, and empty thinking (display "omitted") would make an empty text
// block, which the API refuses.
func (r *Request) convert(p part, a Action) (piece, bool) {
	if a == Strip || p.typ != thinkingPart || len(bytes.TrimSpace(r.blocks[p.block].Thinking)) == 0 {
		return piece{}, false
	}
	lit := p.thinking.of(r.body)
	var out []byte
	switch a {
	case ConvertToText:
		out = slices.Concat([]byte(`{"type":"text","text":`), lit, []byte(`}`))
	case ConvertToTags:
		out = slices.Concat([]byte(`{"type":"text","text":"<think>`), lit[1:len(lit)-1], []byte(`</think>"}`))
	case DropSignature:
		if p.signature.end == 0 {
			return piece{typ: thinkingPart, raw: p.span.of(r.body), block: p.block}, true
		}
		cut := memberWithComma(r.body, p.signature)
		out = slices.Concat(r.body[p.span.start:cut.start], r.body[cut.end:p.span.end])
		return piece{typ: thinkingPart, raw: out, block: p.block}, true
	default:
		return piece{}, false
	}
	return piece{typ: textPart, raw: out, block: p.block}, true
}

// memberWithComma widens the span of an object member to take one adjacent
// comma with it, so that cutting it leaves a valid object. Only whitespace
// and commas lie between members, so a plain scan is safe.
func memberWithComma(b []byte, m span) span {
	if j := jsonscan.SkipSpace(b, m.end); j < len(b) && b[j] == ',' {
		return span{m.start, jsonscan.SkipSpace(b, j+1)}
	}
	j := m.start - 1
	for j >= 0 && (b[j] == ' ' || b[j] == '\t' || b[j] == '\n' || b[j] == '\r') {
		j--
	}
	if j >= 0 && b[j] == ',' {
		return span{j, m.end}
	}
	return m
}

// finalTurn returns the assistant messages of the trailing tool loop, last
// first, and the index of the loop's first assistant message, or -1 when
// the request does not end in a tool loop. The API treats a tool loop as one
// assistant turn: assistant messages joined by user messages that carry
// tool results, back to the last user message that carries none. Messages
// of other roles (Claude Code appends a "system" one for some models) are
// passed over: seeing a loop that the API would not costs one unneeded
// repair, missing one costs a 400.
func (r *Request) finalTurn() ([]int, int) {
	last := len(r.messages) - 1
	for last >= 0 && r.messages[last].role == otherRole {
		last--
	}
	if last < 0 || r.messages[last].role != userRole || !r.hasToolResult(last) {
		return nil, -1
	}
	var turn []int
	first := -1
	for i := last - 1; i >= 0; i-- {
		m := r.messages[i]
		if m.role == userRole && !r.hasToolResult(i) {
			break
		}
		if m.role == assistantRole {
			turn = append(turn, i)
			first = i
		}
	}
	return turn, first
}

// lostLeadingThinking reports whether message mi started with a thinking
// block before rewriting and no longer does.
func (r *Request) lostLeadingThinking(mi int, plan []piece, touched bool) bool {
	m := r.messages[mi]
	if m.parts.start == m.parts.end || !r.content[m.parts.start].typ.isThinking() {
		return false
	}
	return touched && (len(plan) == 0 || !plan[0].typ.isThinking())
}

// stripThinking removes the thinking pieces left in a plan.
func stripThinking(pl []piece, res *Result) []piece {
	return slices.DeleteFunc(pl, func(p piece) bool {
		if !p.typ.isThinking() {
			return false
		}
		if p.converted {
			res.Converted--
		}
		res.Stripped++
		return true
	})
}

// renderArray writes a content array of pieces.
func renderArray(pl []piece) []byte {
	n := 2
	for _, p := range pl {
		n += len(p.raw) + 1
	}
	out := make([]byte, 0, n)
	out = append(out, '[')
	for i, p := range pl {
		if i > 0 {
			out = append(out, ',')
		}
		out = append(out, p.raw...)
	}
	return append(out, ']')
}

// applyEdits returns body with every edit applied. Edits must not overlap.
func applyEdits(body []byte, edits []edit) ([]byte, error) {
	slices.SortFunc(edits, func(a, b edit) int { return a.start - b.start })
	n := len(body)
	for i, e := range edits {
		if i > 0 && e.start < edits[i-1].end {
			return nil, fmt.Errorf("rewrite: overlapping edits at bytes %d and %d", edits[i-1].start, e.start)
		}
		n += len(e.repl) - (e.end - e.start)
	}
	out := make([]byte, 0, n)
	at := 0
	for _, e := range edits {
		out = append(out, body[at:e.start]...)
		out = append(out, e.repl...)
		at = e.end
	}
	return append(out, body[at:]...), nil
}
