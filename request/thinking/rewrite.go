package thinking

import (
	"bytes"
	"errors"
	"fmt"
	"slices"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/block"
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
	// KeepAsTags gives the target its own reasoning back as the text it
	// wrote it in, wrapped in <think></think> (see package thinktags): the
	// block counts as kept, and a tool loop that starts with it has not
	// lost its thinking.
	KeepAsTags
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
	// ToolLoopRule reports that the thinking config was removed only for
	// the Messages API's rule on tool loops (repairToolLoop), not because
	// the backend's model cannot think: an upstream of another API, which
	// has no such rule, may think all the same (see
	// handoff.Pass).
	ToolLoopRule bool
	// Normalized counts the AI SDK reasoning parts sent as the API's
	// thinking blocks, and the messages whose thinking moved to the front.
	Normalized int
	// AsTags counts the kept blocks sent as the tagged text their producer
	// wrote (KeepAsTags).
	AsTags int
	// Omitted are the fields left out for the backend (see Omit).
	Omitted Omission
	// Backfilled counts the assistant messages given a thinking block
	// because the backend wants thinking back (see WantThinkingBack).
	Backfilled int
	// Retyped is the thinking type the request was sent with in place of
	// the one asked for (see Retype), or "".
	Retyped string
}

// Changed reports whether the body was edited.
func (r Result) Changed() bool {
	return r.Stripped > 0 || r.Converted > 0 || r.DroppedThinkingConfig || r.Normalized > 0 || r.AsTags > 0 || r.Omitted != 0 ||
		r.Backfilled > 0 || r.Retyped != ""
}

// piece is one content block of a rewritten message.
type piece struct {
	typ       partType // after rewriting: converted blocks are text
	raw       []byte
	block     int  // the Request block it came from, or -1
	converted bool // counted in Result.Converted
	ownTags   bool // the target's own reasoning, as tagged text (KeepAsTags)
	filled    bool // the thinking a message got from backfill
}

// reasons reports whether the piece carries reasoning the target can read
// as its own: a thinking block, or its own tagged text.
func (p piece) reasons() bool { return p.typ.isThinking() || p.ownTags }

// edit replaces a range of the body with repl or, for a content array,
// with the array of pieces.
type edit struct {
	span
	repl   []byte
	pieces []piece
	array  bool // replace with the array of pieces
}

// Rewrite applies one action per block (in Blocks order), keeps the request
// valid for the API, and returns the new body. Blocks left to Keep and
// everything outside edited content arrays stay byte-identical; with nothing
// to change, or when the body cannot be edited (the error says why), the
// body itself is returned with every block counted as kept.
//
// Repairs, all limited to what the actions caused:
//   - an assistant message left empty gets a short placeholder text, unless
//     it is the final message (the API allows an empty final assistant
//     message);
//   - an edited assistant message that would end in a thinking block gets
//     the placeholder after it;
//   - with thinking on ("enabled", or "adaptive", handled alike), when the
//     request ends in a tool loop and the loop's first assistant message
//     lost its leading thinking, the API would reject the request unless
//     thinking is off for it. The config is removed, never turned into
//     another type (newer models accept only "adaptive"). The rest of that
//     turn's thinking is removed too (the API refuses thinking in the final
//     turn when thinking is off) and the thinking config and clear_thinking_*
//     context edits are dropped for this request only.
func (r *Request) Rewrite(actions []Action) ([]byte, Result, error) {
	if len(actions) != len(r.blocks) {
		return r.unchanged(fmt.Errorf("rewrite: %d actions for %d blocks", len(actions), len(r.blocks)))
	}
	if r.shapes.reasoning == 0 && r.reorderAt() < 0 && r.omissions() == 0 && r.retyped() == "" &&
		!slices.ContainsFunc(actions, func(a Action) bool { return a != Keep }) && !r.mayBackfill(actions) {
		return r.unchanged(nil)
	}
	return r.rewrite(actions, false)
}

// RewriteCautiously is Rewrite for a request that must not be refused for
// its thinking, such as the replay of a refused one. On top of Rewrite's
// repairs, whatever the actions:
//   - when thinking is on and the latest assistant message lost a thinking
//     block, or the request ends in a tool loop whose first assistant
//     message does not start with thinking while it is on, thinking goes
//     off for this request (config and clear_thinking_* edits), and the
//     final turn loses its thinking;
//   - when thinking is off, the final turn (a trailing tool loop or
//     assistant message) holds no thinking and no clear_thinking_* edit is
//     sent;
//   - no assistant message ends in a thinking block.
//
// It costs the request its thinking in the cases where the API could
// refuse it, never more.
func (r *Request) RewriteCautiously(actions []Action) ([]byte, Result, error) {
	if len(actions) != len(r.blocks) {
		return r.unchanged(fmt.Errorf("rewrite: %d actions for %d blocks", len(actions), len(r.blocks)))
	}
	return r.rewrite(actions, true)
}

// rewrite applies the actions to a valid body with Rewrite's repairs, and
// RewriteCautiously's too when cautious.
func (r *Request) rewrite(actions []Action, cautious bool) ([]byte, Result, error) {
	if !r.valid() {
		return r.unchanged(ErrInvalidJSON)
	}
	rw := r.plan(actions)
	rw.cautious = cautious
	r.applyOmissions(rw)
	r.backfill(rw)
	r.repairToolLoop(rw)
	r.repairThinkingOff(rw)
	r.repairMessages(rw)
	r.applyRetype(rw)
	if !rw.changed() {
		return r.unchanged(nil)
	}
	return r.finish(rw)
}

// finish renders the rewritten body and completes the counts.
func (r *Request) finish(rw *rewrite) ([]byte, Result, error) {
	out, err := r.render(rw)
	if err != nil {
		return r.unchanged(err)
	}
	rw.res.Kept = len(r.blocks) - rw.res.Stripped - rw.res.Converted
	return out, rw.res, nil
}

// Output makes the next Rewrite write a changed body into dst's memory,
// when it has room, instead of allocating: the caller can recycle it.
func (r *Request) Output(dst []byte) { r.out = dst }

// valid reports whether the body is valid JSON: from where the checkpoint
// it was read from ends, when that prefix was checked before.
func (r *Request) valid() bool {
	// The prefix ends just after a message, inside the top-level object
	// and its messages array; the tail begins just after that array.
	switch {
	case r.resumedAt > 0 && r.prefixValid && r.tailAt > 0 && r.tailValid:
		r.validated = jsonscan.ValidBetween(r.body[:r.tailAt], r.resumedAt, []byte("{["), 1)
	case r.resumedAt > 0 && r.prefixValid:
		r.validated = jsonscan.ValidAfter(r.body, r.resumedAt, []byte("{["))
	default:
		r.validated = jsonscan.Valid(r.body)
	}
	return r.validated
}

// unchanged is Rewrite's answer when the body goes as it came.
func (r *Request) unchanged(err error) ([]byte, Result, error) {
	return r.body, Result{Kept: len(r.blocks)}, err
}

// rewrite is the new content of the messages one Rewrite changes. A
// Request keeps its rewrite, and the memory of its slices, from one use to
// the next.
type rewrite struct {
	actions  []Action
	plans    [][]piece // per message, the content it gets when touched
	touched  []bool
	arena    []piece // where plans are cut from
	bytes    []byte  // where normalized reasoning parts and fillers are written
	scratch  []byte  // a filler's text, before it is quoted
	reorder  int     // a message to start with thinking (see reorderAt), or -1
	edits    []edit
	res      Result
	cautious bool // see RewriteCautiously
	// dropEdits removes clear_thinking_* edits (with the thinking config,
	// which is harmless when thinking is off anyway).
	dropEdits bool
}

// recycled returns the rewrite emptied for the next request, keeping the
// memory of its slices but nothing they pointed to: pieces point into the
// body, which must not outlive its request.
func (rw *rewrite) recycled() rewrite {
	clear(rw.plans)
	clear(rw.arena)
	clear(rw.edits)
	return rewrite{plans: rw.plans[:0], touched: rw.touched[:0], arena: rw.arena[:0], edits: rw.edits[:0], bytes: rw.bytes[:0], scratch: rw.scratch[:0]}
}

// normalized writes the API's shape of the reasoning part p (see
// appendNormalized) into the rewrite's memory and returns it.
func (rw *rewrite) normalized(r *Request, p part, signed bool) []byte {
	start := len(rw.bytes)
	rw.bytes = r.appendNormalized(rw.bytes, p, signed)
	return rw.bytes[start:len(rw.bytes):len(rw.bytes)]
}

// changed reports whether the rewrite changes the body at all.
func (rw *rewrite) changed() bool {
	return rw.dropEdits || rw.res.Changed() || slices.Contains(rw.touched, true)
}

// plan turns every message that holds a block not kept into pieces.
func (r *Request) plan(actions []Action) *rewrite {
	rw := &r.rw
	n := len(r.messages)
	*rw = rewrite{
		actions: actions,
		plans:   slices.Grow(rw.plans[:0], n)[:n],
		touched: slices.Grow(rw.touched[:0], n)[:n],
		arena:   rw.arena[:0],
		edits:   rw.edits[:0],
		bytes:   rw.bytes[:0],
		scratch: rw.scratch[:0],
		reorder: r.reorderAt(),
	}
	clear(rw.plans)
	clear(rw.touched)
	// Messages are touched in order (see touch): those with a block not
	// kept are marked first, from the blocks, without reading the others.
	for bi, b := range r.blocks {
		if actions[bi] != Keep {
			rw.touched[b.Message] = true
		}
	}
	for mi, marked := range rw.touched {
		if marked || r.msg(mi).reasoning || mi == rw.reorder {
			r.touch(rw, mi)
		}
	}
	return rw
}

// touch plans message mi by the actions.
func (r *Request) touch(rw *rewrite, mi int) {
	rw.plans[mi] = r.apply(rw, r.parts(mi))
	if (r.msg(mi).reasoning || mi == rw.reorder) && thinkingFirst(rw.plans[mi]) {
		rw.res.Normalized++
	}
	rw.touched[mi] = true
}

// repairToolLoop keeps a trailing tool loop acceptable while thinking is
// on: when the loop's first assistant message lost its leading
// thinking, the whole turn loses its thinking and the request its thinking
// config. A cautious rewrite also turns thinking off when the loop's first
// message does not start with thinking at all, or when thinking is on and
// the latest assistant message lost any thinking block.
func (r *Request) repairToolLoop(rw *rewrite) {
	typ := string(r.thinkingType)
	turn, first := r.finalTurn()
	switch {
	case thinkingOn(typ) && first >= 0 && r.lostLeadingThinking(first, rw.plans[first], rw.touched[first]):
	case rw.cautious && thinkingOn(typ) && first >= 0 && !r.startsWithThinking(rw, first):
	case rw.cautious && thinkingOn(typ) && r.latestLostThinking(rw):
	default:
		return
	}
	r.stripTurn(rw, turn)
	rw.res.DroppedThinkingConfig = true
	rw.res.ToolLoopRule = rw.res.Omitted&OmitThinking == 0
}

// repairThinkingOff keeps a cautious request with thinking off acceptable:
// no thinking in its final turn, no clear_thinking_* edit.
func (r *Request) repairThinkingOff(rw *rewrite) {
	if !rw.cautious || thinkingOn(string(r.thinkingType)) || rw.res.DroppedThinkingConfig {
		return
	}
	turn, _ := r.finalTurn()
	if last := r.lastRole(); last >= 0 && r.msg(last).role == assistantRole {
		turn = append(turn, last)
	}
	r.stripTurn(rw, turn)
	rw.dropEdits = r.contextEdits.End != 0
}

// stripTurn removes every thinking block left in the given messages.
func (r *Request) stripTurn(rw *rewrite, turn []int) {
	for _, mi := range turn {
		if !slices.ContainsFunc(r.parts(mi), func(p part) bool { return p.typ.isThinking() }) {
			continue
		}
		if !rw.touched[mi] {
			r.touch(rw, mi)
		}
		rw.plans[mi] = stripThinking(rw.plans[mi], &rw.res)
	}
}

// startsWithThinking reports whether message mi starts with a thinking
// block after the rewrite.
func (r *Request) startsWithThinking(rw *rewrite, mi int) bool {
	if rw.touched[mi] {
		return len(rw.plans[mi]) > 0 && rw.plans[mi][0].reasons()
	}
	parts := r.parts(mi)
	return len(parts) > 0 && parts[0].typ.isThinking()
}

// latestLostThinking reports whether the latest assistant message lost a
// thinking block in the rewrite.
func (r *Request) latestLostThinking(rw *rewrite) bool {
	for mi := len(r.messages) - 1; mi >= 0; mi-- {
		if r.msg(mi).role != assistantRole {
			continue
		}
		if !rw.touched[mi] {
			return false
		}
		before := 0
		for _, p := range r.parts(mi) {
			if p.typ.isThinking() {
				before++
			}
		}
		return before > len(slices.DeleteFunc(slices.Clone(rw.plans[mi]), func(p piece) bool { return !p.reasons() || p.filled }))
	}
	return false
}

// lastRole returns the index of the last message of role user or
// assistant, or -1.
func (r *Request) lastRole() int {
	last := len(r.messages) - 1
	for last >= 0 && r.msg(last).role == otherRole {
		last--
	}
	return last
}

// thinkingOn reports whether a thinking.type turns thinking on.
func thinkingOn(typ string) bool { return typ == "enabled" || typ == "adaptive" }

// repairMessages gives a placeholder text to every touched message left
// empty (but the final one) or ending in thinking; a cautious rewrite
// touches every assistant message that ends in thinking.
func (r *Request) repairMessages(rw *rewrite) {
	if rw.cautious {
		for mi := range r.messages {
			if parts := r.parts(mi); !rw.touched[mi] && r.msg(mi).role == assistantRole && len(parts) > 0 && parts[len(parts)-1].typ.isThinking() {
				r.touch(rw, mi)
			}
		}
	}
	for mi, pl := range rw.plans {
		switch {
		case !rw.touched[mi]:
		case len(pl) == 0 && mi == len(r.messages)-1:
		case len(pl) == 0 || pl[len(pl)-1].typ.isThinking():
			rw.plans[mi] = append(pl, piece{typ: textPart, raw: []byte(placeholder), block: -1})
		}
	}
}

// render writes the new body: the touched content arrays and, when the
// thinking config goes, the top-level members that go with it.
func (r *Request) render(rw *rewrite) ([]byte, error) {
	for mi, touched := range rw.touched {
		if touched {
			rw.edits = append(rw.edits, edit{span: r.msg(mi).content, pieces: rw.plans[mi], array: true})
		}
	}
	dropped, err := r.configEdits(rw)
	if err != nil {
		return nil, err
	}
	rw.edits = append(rw.edits, dropped...)
	return applyEdits(r.out[:0], r.body, rw.edits)
}

// apply turns the parts of one message into pieces according to the
// actions, cut from the rewrite's arena.
func (r *Request) apply(rw *rewrite, parts []part) []piece {
	start := len(rw.arena)
	for _, p := range parts {
		raw := p.span.Of(r.body)
		if p.block < 0 || rw.actions[p.block] == Keep {
			if p.reasoning {
				raw = rw.normalized(r, p, true)
				rw.res.Normalized++
			}
			rw.arena = append(rw.arena, piece{typ: p.typ, raw: raw, block: p.block})
			continue
		}
		converted, ok := r.convert(rw, p, rw.actions[p.block])
		switch {
		case !ok:
			rw.res.Stripped++
			continue
		case converted.ownTags:
			rw.res.AsTags++
		default:
			rw.res.Converted++
			converted.converted = true
		}
		rw.arena = append(rw.arena, converted)
	}
	// Capped, so that a plan that grows never writes over the next one.
	return rw.arena[start:len(rw.arena):len(rw.arena)]
}

// convert applies a converting action to a thinking part. It reports false
// when the block has nothing a conversion could keep: redacted data is
// opaque, and empty thinking (display "omitted") would make an empty text
// block, which the API refuses.
func (r *Request) convert(rw *rewrite, p part, a Action) (piece, bool) {
	lit := p.thinking.Of(r.body)
	if a == Strip || p.typ != thinkingPart || blank(lit) {
		return piece{}, false
	}
	var out []byte
	switch a {
	case ConvertToText:
		out = slices.Concat([]byte(`{"type":"text","text":`), lit, []byte(`}`))
	case ConvertToTags, KeepAsTags:
		out = slices.Concat([]byte(`{"type":"text","text":"<think>`), lit[1:len(lit)-1], []byte(`</think>"}`))
		return piece{typ: textPart, raw: out, block: p.block, ownTags: a == KeepAsTags}, true
	case DropSignature:
		if p.reasoning {
			return piece{typ: thinkingPart, raw: rw.normalized(r, p, false), block: p.block}, true
		}
		if p.signature.End == 0 {
			return piece{typ: thinkingPart, raw: p.span.Of(r.body), block: p.block}, true
		}
		cut := memberWithComma(r.body, p.signature)
		out = slices.Concat(r.body[p.span.Start:cut.Start], r.body[cut.End:p.span.End])
		return piece{typ: thinkingPart, raw: out, block: p.block}, true
	default:
		return piece{}, false
	}
	return piece{typ: textPart, raw: out, block: p.block}, true
}

// blank reports whether the thinking literal lit (valid, as the body is)
// holds nothing but white space, or is absent or null.
func blank(lit []byte) bool {
	text, _ := block.AppendString(nil, lit)
	return len(bytes.TrimSpace(text)) == 0
}

// memberWithComma widens the span of an object member to take one adjacent
// comma with it, so that cutting it leaves a valid object. Only whitespace
// and commas lie between members, so a plain scan is safe.
func memberWithComma(b []byte, m span) span {
	if j := jsonscan.SkipSpace(b, m.End); j < len(b) && b[j] == ',' {
		return span{m.Start, jsonscan.SkipSpace(b, j+1)}
	}
	j := m.Start - 1
	for j >= 0 && (b[j] == ' ' || b[j] == '\t' || b[j] == '\n' || b[j] == '\r') {
		j--
	}
	if j >= 0 && b[j] == ',' {
		return span{j, m.End}
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
	last := r.lastRole()
	if last < 0 || r.msg(last).role != userRole || !r.hasToolResult(last) {
		return nil, -1
	}
	var turn []int
	first := -1
	for i := last - 1; i >= 0; i-- {
		m := r.msg(i)
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
	parts := r.parts(mi)
	// A message whose thinking moves to the front starts with thinking.
	m := r.msg(mi)
	leading := len(parts) > 0 && parts[0].typ.isThinking() ||
		(m.reasoning || m.misordered) && slices.ContainsFunc(parts, func(p part) bool { return p.typ.isThinking() })
	if !leading {
		return false
	}
	return touched && (len(plan) == 0 || !plan[0].reasons())
}

// stripThinking removes the thinking pieces left in a plan.
func stripThinking(pl []piece, res *Result) []piece {
	return slices.DeleteFunc(pl, func(p piece) bool {
		if !p.typ.isThinking() {
			return false
		}
		if p.filled {
			res.Backfilled--
		}
		if p.block < 0 {
			return true
		}
		if p.converted {
			res.Converted--
		}
		res.Stripped++
		return true
	})
}

// len returns the length of what the edit puts in place of its span.
func (e *edit) len() int {
	if !e.array {
		return len(e.repl)
	}
	n := 2 + max(len(e.pieces)-1, 0) // brackets and commas
	for _, p := range e.pieces {
		n += len(p.raw)
	}
	return n
}

// appendTo appends what the edit puts in place of its span to out.
func (e *edit) appendTo(out []byte) []byte {
	if !e.array {
		return append(out, e.repl...)
	}
	out = append(out, '[')
	for i, p := range e.pieces {
		if i > 0 {
			out = append(out, ',')
		}
		out = append(out, p.raw...)
	}
	return append(out, ']')
}

// applyEdits appends body with every edit applied to dst, which it grows
// when too small. Edits must not overlap.
func applyEdits(dst, body []byte, edits []edit) ([]byte, error) {
	slices.SortFunc(edits, func(a, b edit) int { return a.Start - b.Start })
	n := len(body)
	for i, e := range edits {
		if i > 0 && e.Start < edits[i-1].End {
			return nil, fmt.Errorf("rewrite: overlapping edits at bytes %d and %d", edits[i-1].Start, e.Start)
		}
		n += e.len() - (e.End - e.Start)
	}
	out := slices.Grow(dst, n)
	at := 0
	for i := range edits {
		out = append(out, body[at:edits[i].Start]...)
		out = edits[i].appendTo(out)
		at = edits[i].End
	}
	return append(out, body[at:]...), nil
}
