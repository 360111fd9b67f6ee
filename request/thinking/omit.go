package thinking

import (
	"bytes"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/jsonscan"
)

// Omission is a set of thinking-related fields a request goes without,
// because its backend does not take them (see Request.Omit).
type Omission uint8

// The fields.
const (
	// OmitThinking leaves out the thinking config and clear_thinking_*
	// context edits, and the thinking of the final turn, which the API
	// refuses with thinking off: the model cannot think.
	OmitThinking Omission = 1 << iota
	// OmitContextManagement leaves out the context_management member.
	OmitContextManagement
	// OmitClearThinking leaves out clear_thinking_* context edits, and
	// context_management when nothing else is left in it.
	OmitClearThinking
	// OmitThinkingDisplay leaves out the display of the thinking config.
	OmitThinkingDisplay
	// OmitThinkingOff leaves out a thinking config that turns thinking
	// off ({"type":"disabled"}): the model always thinks, and refuses to
	// be told otherwise; without a config it thinks as it does anyway.
	OmitThinkingOff
)

// Omit makes the next Rewrite (or RewriteCautiously) leave out the fields
// in o that the body holds; Result.Omitted says which it left out.
func (r *Request) Omit(o Omission) { r.omit = o }

// omissions returns the fields of r.omit the body holds.
func (r *Request) omissions() Omission {
	var o Omission
	if (r.omit&OmitThinking != 0 || r.cannotRetype()) && (r.hasMember(thinkingMember) || r.contextEdits.End != 0) {
		o |= OmitThinking
	}
	if r.omit&OmitContextManagement != 0 && r.hasMember(contextMember) {
		o |= OmitContextManagement
	}
	if r.omit&OmitClearThinking != 0 && r.contextEdits.End != 0 && r.hasClearThinkingEdit() {
		o |= OmitClearThinking
	}
	if r.omit&OmitThinkingDisplay != 0 && r.thinkingDisplay {
		o |= OmitThinkingDisplay
	}
	if r.omit&OmitThinkingOff != 0 && string(r.thinkingType) == "disabled" {
		o |= OmitThinkingOff
	}
	return o
}

// hasClearThinkingEdit reports whether context_management.edits holds a
// clear_thinking_* edit.
func (r *Request) hasClearThinkingEdit() bool {
	it := jsonscan.Elements(r.body, r.contextEdits.Start)
	for _, edit, ok := it.Item(); ok; _, edit, ok = it.Item() {
		if bytes.HasPrefix(editType(edit), []byte("clear_thinking_")) {
			return true
		}
	}
	return false
}

// applyOmissions plans the omissions of the rewrite: leaving thinking out
// is dropping the thinking config, with the repairs that go with it.
func (r *Request) applyOmissions(rw *rewrite) {
	rw.res.Omitted = r.omissions()
	if rw.res.Omitted&OmitThinking == 0 {
		return
	}
	turn, _ := r.finalTurn()
	if last := r.lastRole(); last >= 0 && r.msg(last).role == assistantRole {
		turn = append(turn, last)
	}
	r.stripTurn(rw, turn)
	rw.res.DroppedThinkingConfig = r.hasMember(thinkingMember)
	rw.dropEdits = r.contextEdits.End != 0
}

// withoutMember returns the object obj with every member called name left
// out.
func withoutMember(obj []byte, name string) []byte {
	out := []byte{'{'}
	var buf [32]byte
	it := jsonscan.Members(obj, 0)
	n := 0
	for key, value, ok := it.Item(); ok; key, value, ok = it.Item() {
		if string(jsonscan.Name(key, &buf)) == name {
			continue
		}
		if n > 0 {
			out = append(out, ',')
		}
		n++
		out = append(append(append(out, key...), ':'), value...)
	}
	return append(out, '}')
}
