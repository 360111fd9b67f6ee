package chatcompletions

import (
	"unicode/utf8"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/jsonscan"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/jsonstr"
)

// A server that wants its reasoning back (DeepSeek, Kimi) refuses an
// assistant message without the field: a tool call another backend made,
// a message whose thinking is not the server's (the empty block
// llm_thinking gives every message for DeepSeek V4). Such a message gets a
// filler, written from the message itself: what the step did, its calls
// with their ids and the start of their input, or the start of its text.
//
// Byte-identical fillers on every message (a blank, a fixed sentence,
// even one that differs by a turn number) make DeepSeek V4 answer inside
// its reasoning, or answer nothing, in long agent contexts: 40-47% empty
// answers with such fillers, none with fillers that differ per step
// (Lingtai-AI/lingtai-kernel #9, 30 runs per condition on a 200K-token
// context); the final answer inside the thinking with a blank placeholder
// (lobehub #16294, 40 replays per condition on a 159K-token context). A
// filler made from the message is the same for that message on every
// request, whatever follows it, so prefix caches keep hitting: nothing in
// it comes from the request's position, time or chance.

// fillerHead starts every filler: the server reads that the step's
// reasoning is missing, not that it reasoned so.
const fillerHead = "Step without its reasoning: "

// fillerPiece bounds what a filler quotes of an input or a text, and
// fillerCalls how many calls it names.
const (
	fillerPiece = 48
	fillerCalls = 3
)

// filler writes, escaped, the filler of an assistant message.
func (w *requestWriter) filler(content jsonscan.Value) {
	w.Raw(fillerHead)
	calls := 0
	var name [32]byte
	for b := range content.Elements() {
		if string(b.Get("type").Name(&name)) != "tool_use" {
			continue
		}
		if calls == fillerCalls {
			w.Raw(", and more")
			break
		}
		if calls == 0 {
			w.Raw("called ")
		} else {
			w.Raw(", ")
		}
		calls++
		w.StrContent(b.Get("name"))
		w.Raw(" ")
		w.Escaped(cut(b.Get("input"), fillerPiece))
		w.Raw(" (")
		w.StrContent(b.Get("id"))
		w.Raw(")")
	}
	if calls > 0 {
		w.Raw(".")
		return
	}
	var text []byte
	for b := range content.Elements() {
		if t := b.Get("text"); b.Get("type").Is("text") && t.Kind() == jsonscan.String && len(t) > 2 {
			text, w.scratch, _ = jsonstr.Value(w.scratch[:0], t)
			break
		}
	}
	if content.Kind() == jsonscan.String {
		text, w.scratch, _ = jsonstr.Value(w.scratch[:0], content)
	}
	if len(text) == 0 {
		w.Raw("no call, no text.")
		return
	}
	w.Raw(`answered \"`)
	w.Escaped(cut(text, fillerPiece))
	if len(text) > fillerPiece {
		w.Raw("…")
	}
	w.Raw(`\".`)
}

// cut returns at most n bytes of b, cut between characters.
func cut(b []byte, n int) []byte {
	if len(b) <= n {
		return b
	}
	for n > 0 && !utf8.RuneStart(b[n]) {
		n--
	}
	return b[:n]
}
