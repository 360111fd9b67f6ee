// Package jsonout writes JSON into memory it asks for before it writes: a
// translation of a request into another API's JSON, whose size the client
// decides, never writes into memory nobody counted. Every piece whose size
// the input decides (a string, a schema, an id) asks for room first, a long
// string piece by piece; the pieces of constant size in between take the
// slack each ask leaves.
package jsonout

import (
	"slices"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/jsonscan"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/jsonstr"
)

const (
	// Slack is the room each ask leaves beyond the piece asked for: the
	// most a writer may write of constant pieces between two asks.
	Slack = 512
	// pieceRoom is the room a long string is written in at a time.
	pieceRoom = 32 << 10
)

// Writer writes JSON into Out.
type Writer struct {
	// Out is what was written.
	Out []byte
	// Grow, when set, gives the memory to write into: it returns a buffer
	// that holds p's bytes and room for at least n more (memory a budget
	// counts, say), or an error that stops the writing (see Recover).
	// Without it, Out grows as append does.
	Grow func(p []byte, n int) ([]byte, error)
	// Hold, when set, is told how many bytes the writer's user holds
	// beside what it writes, each time that grows (see Held); its error
	// stops the writing.
	Hold func(bytes int) error
}

// abort carries the error of Grow or Hold out of the writing, which
// Recover turns into the writer's user's error.
type abort struct{ err error }

// Recover, deferred by the function that writes, stops a panic of Grow or
// Hold's error and sets *err to it; any other panic goes on.
func Recover(err *error) {
	if v := recover(); v != nil {
		a, ok := v.(abort)
		if !ok {
			panic(v)
		}
		*err = a.err
	}
}

// Room makes Out hold n more bytes, and Slack beyond.
func (w *Writer) Room(n int) {
	if cap(w.Out)-len(w.Out) >= n+Slack {
		return
	}
	if w.Grow == nil {
		w.Out = slices.Grow(w.Out, max(n+Slack, cap(w.Out)))
		return
	}
	out, err := w.Grow(w.Out, n+Slack)
	if err != nil {
		panic(abort{err})
	}
	w.Out = out
}

// Held tells Hold what the writer's user holds beside what it writes.
func (w *Writer) Held(bytes int) {
	if w.Hold == nil {
		return
	}
	if err := w.Hold(bytes); err != nil {
		panic(abort{err})
	}
}

// Raw writes s as it is.
func (w *Writer) Raw(s string) {
	w.Room(len(s))
	w.Out = append(w.Out, s...)
}

// RawBytes writes b as it is.
func (w *Writer) RawBytes(b []byte) {
	w.Room(len(b))
	w.Out = append(w.Out, b...)
}

// Str writes the value of the string literal lit as a literal, as
// jsonstr.Quote writes it; a value that is not a string as "".
func (w *Writer) Str(lit jsonscan.Value) {
	w.Raw(`"`)
	w.StrContent(lit)
	w.Raw(`"`)
}

// StrContent writes the value of the string literal lit escaped for the
// inside of a literal, nothing when lit is not a string.
func (w *Writer) StrContent(lit jsonscan.Value) {
	if lit.Kind() != jsonscan.String {
		return
	}
	for s := lit[1 : len(lit)-1]; len(s) > 0; {
		// An input byte becomes at most three (an invalid byte, U+FFFD; a
		// \b, \u0008).
		r := min(pieceRoom, 3*len(s)+jsonstr.MinRequoteRoom)
		w.Room(r)
		var n int
		w.Out, n = jsonstr.Requote(w.Out, s, r)
		s = s[n:]
	}
}

// Quote writes b as a string literal.
func (w *Writer) Quote(b []byte) {
	w.Raw(`"`)
	w.Escaped(b)
	w.Raw(`"`)
}

// Escaped writes b escaped for the inside of a literal.
func (w *Writer) Escaped(b []byte) {
	for len(b) > 0 {
		r := min(pieceRoom, 6*len(b)+jsonstr.MinRequoteRoom)
		w.Room(r)
		var n int
		w.Out, n = jsonstr.EscapePiece(w.Out, b, r)
		b = b[n:]
	}
}
