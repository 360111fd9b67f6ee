package messagesapi

import (
	"unicode/utf8"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/jsonscan"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/jsonstr"
)

// A backend that wants its reasoning back (DeepSeek, Kimi) refuses an
// assistant message without it: a tool call another backend made, a
// message whose thinking is not the backend's. Such a message gets a
// filler, written from the message itself: what the step did, its calls
// with their ids and the start of their input, or the start of its text.
// The same filler goes to a chat-completions server as the message's
// reasoning (package chatcompletions) and to an Anthropic endpoint as an
// unsigned thinking block (package thinking).
//
// Byte-identical fillers on every message (a blank, a fixed sentence,
// even one that differs by a turn number) make DeepSeek V4 answer inside
// its reasoning, or answer nothing, in long agent contexts: 40-47% empty
// answers with such fillers, none with fillers that differ per step
// (Lingtai-AI/lingtai-kernel #9, 30 runs per condition on a 200K-token
// context); the final answer inside the thinking with a blank placeholder
// (lobehub #16294, 40 replays per condition on a 159K-token context). A
// filler made from the message is the same for that message on every
// request, whatever follows it, so prefix caches keep hitting and
// signatures bound to the prefix stay good: nothing in it comes from the
// request's position, time or chance.

// FillerHead starts every filler: the backend reads that the step's
// reasoning is missing, not that it reasoned so.
const FillerHead = "Step without its reasoning: "

// fillerPiece bounds what a filler quotes of an input or a text, and
// fillerCalls how many calls it names.
const (
	fillerPiece = 48
	fillerCalls = 3
)

// AppendFiller appends the filler of an assistant message whose content
// is content (an array of blocks, or a string) to dst, as plain text.
func AppendFiller(dst []byte, content jsonscan.Value) []byte {
	dst = append(dst, FillerHead...)
	calls := 0
	var name [32]byte
	for b := range content.Elements() {
		if string(b.Get("type").Name(&name)) != "tool_use" {
			continue
		}
		if calls == fillerCalls {
			dst = append(dst, ", and more"...)
			break
		}
		if calls == 0 {
			dst = append(dst, "called "...)
		} else {
			dst = append(dst, ", "...)
		}
		calls++
		dst, _ = jsonstr.Append(dst, b.Get("name"))
		dst = append(dst, ' ')
		dst = append(dst, cut(b.Get("input"), fillerPiece)...)
		dst = append(dst, " ("...)
		dst, _ = jsonstr.Append(dst, b.Get("id"))
		dst = append(dst, ')')
	}
	if calls > 0 {
		return append(dst, '.')
	}
	text := content
	if content.Kind() != jsonscan.String {
		text = nil
		for b := range content.Elements() {
			if t := b.Get("text"); b.Get("type").Is("text") && t.Kind() == jsonscan.String && len(t) > 2 {
				text = t
				break
			}
		}
	}
	start := len(dst)
	if text != nil {
		dst, _ = jsonstr.Append(dst, text)
	}
	if len(dst) == start {
		return append(dst, "no call, no text."...)
	}
	said := dst[start:]
	cutAt := start + len(cut(said, fillerPiece))
	more := cutAt < len(dst)
	dst = append(dst[:start], append([]byte(`answered "`), dst[start:cutAt]...)...)
	if more {
		dst = append(dst, "…"...)
	}
	return append(dst, `".`...)
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
