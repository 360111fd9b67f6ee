package llmtest

import (
	"bytes"
	"encoding/json"
	"unicode/utf8"
)

// A Tagged instance plays llama.cpp with --reasoning-format none: the model's
// reasoning is part of its text, wrapped the way such models write it,
//
//	"<think>\n" + reasoning + "\n</think>\n\n" + answer
//
// with no opening tag when OmitOpeningTag is on. Its text is streamed in
// deltas of 3 to 5 runes, the cycle starting elsewhere on every response,
// so that the tags are cut at various points, as a token stream cuts them.
// Like llama.cpp it escapes only what JSON requires, and it writes its
// reasoning whatever display the request asks for.

// thinkSection is the reasoning text as a Tagged instance writes it in
// front of its answer. Callers hold u.mu.
func (u *Upstream) thinkSection(reasoning string) string {
	if u.omitOpen {
		return reasoning + "\n</think>\n\n"
	}
	return "<think>\n" + reasoning + "\n</think>\n\n"
}

// fineChunks splits s into pieces of 3, 4 and 5 runes in turn, the cycle
// starting at phase, never inside a rune; the last piece may be shorter.
func fineChunks(s string, phase int) []string {
	var out []string
	for k := phase; s != ""; k++ {
		end := 0
		for range 3 + k%3 {
			if end == len(s) {
				break
			}
			_, w := utf8.DecodeRuneInString(s[end:])
			end += w
		}
		out = append(out, s[:end])
		s = s[end:]
	}
	return out
}

// marshal encodes v as u writes JSON: as encoding/json does by default,
// except that a Tagged instance leaves "<", ">" and "&" unescaped.
func (u *Upstream) marshal(v any) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(u.flavor != Tagged)
	if err := enc.Encode(v); err != nil {
		panic("llmtest: encoding a response: " + err.Error())
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}
