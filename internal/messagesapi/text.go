package messagesapi

import (
	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/jsonout"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/jsonscan"
)

// The text of Messages content as the translations into other APIs join
// it: a string, or the text of text blocks joined by a blank line.

// HasText reports whether WriteJoined writes anything of v.
func HasText(v jsonscan.Value) bool {
	if v.Kind() == jsonscan.String {
		return len(v) > 2
	}
	for b := range v.Elements() {
		if t := b.Get("text"); b.Get("type").Is("text") && t.Kind() == jsonscan.String && len(t) > 2 {
			return true
		}
	}
	return false
}

// WriteJoined writes, escaped for the inside of a string literal, a string,
// or the text of text blocks joined by a blank line (a separator follows
// every block once one had text).
func WriteJoined(w *jsonout.Writer, v jsonscan.Value) { writeJoined(w, v, true) }

// writeJoined writes a string, or the text of text blocks joined by a
// blank line: after every block, or with afterText only once one had
// text.
func writeJoined(w *jsonout.Writer, v jsonscan.Value, afterText bool) {
	if v.Kind() == jsonscan.String {
		w.StrContent(v)
		return
	}
	sep := false
	for b := range v.Elements() {
		if !b.Get("type").Is("text") {
			continue
		}
		if sep {
			w.Raw(`\n\n`)
		}
		t := b.Get("text")
		w.StrContent(t)
		sep = sep || !afterText || (t.Kind() == jsonscan.String && len(t) > 2)
	}
}

// HasSystem reports whether a request's system prompt or its system
// messages hold text (see WriteSystem).
func HasSystem(prompt, msgs jsonscan.Value) bool {
	if HasText(prompt) {
		return true
	}
	for m := range msgs.Elements() {
		if m.Get("role").Is("system") && HasText(m.Get("content")) {
			return true
		}
	}
	return false
}

// WriteSystem writes, escaped, the system prompt and the text of system
// messages (Claude Code sends some among the messages, for models it does
// not know) joined by blank lines: one system text, as the APIs that take
// one want it.
func WriteSystem(w *jsonout.Writer, prompt, msgs jsonscan.Value) {
	wrote := false
	part := func(v jsonscan.Value) {
		if !HasText(v) {
			return
		}
		if wrote {
			w.Raw(`\n\n`)
		}
		wrote = true
		WriteJoined(w, v)
	}
	part(prompt)
	for m := range msgs.Elements() {
		if m.Get("role").Is("system") {
			part(m.Get("content"))
		}
	}
}

// WriteToolResult writes, escaped, the text of a tool result: its content
// string, or its text blocks joined by blank lines (the text of a content
// document's source, likewise).
func WriteToolResult(w *jsonout.Writer, b jsonscan.Value) {
	writeJoined(w, b.Get("content"), false)
}
