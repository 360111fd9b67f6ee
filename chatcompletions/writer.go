package chatcompletions

import (
	"slices"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/jsonscan"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/jsonstr"
)

// The translation writes into memory it asks for before it writes (see
// RequestOptions.Grow): every piece whose size the client decides (a
// string, a schema, an id) asks for room first, a long string piece by
// piece, and the pieces of constant size in between take the slack each
// ask leaves. So a request of a million tiny blocks, whose translation may
// be several times its size, never writes into memory nobody counted.

const (
	// slack is the room each ask leaves beyond the piece asked for.
	slack = 512
	// pieceRoom is the room a long string is written in at a time.
	pieceRoom = 32 << 10
)

// abort carries the error of Grow or Hold out of the translation, which
// TranslateRequest recovers.
type abort struct{ err error }

// room makes the output hold n more bytes, and slack beyond.
func (w *requestWriter) room(n int) {
	if cap(w.out)-len(w.out) >= n+slack {
		return
	}
	if w.opts.Grow == nil {
		w.out = slices.Grow(w.out, max(n+slack, cap(w.out)))
		return
	}
	out, err := w.opts.Grow(w.out, n+slack)
	if err != nil {
		panic(abort{err})
	}
	w.out = out
}

// raw writes s as it is.
func (w *requestWriter) raw(s string) {
	w.room(len(s))
	w.out = append(w.out, s...)
}

// rawBytes writes b as it is.
func (w *requestWriter) rawBytes(b []byte) {
	w.room(len(b))
	w.out = append(w.out, b...)
}

// str writes the value of the string literal lit as a literal, as Quote
// writes it; a value that is not a string as "".
func (w *requestWriter) str(lit jsonscan.Value) {
	w.raw(`"`)
	w.strContent(lit)
	w.raw(`"`)
}

// strContent writes the value of the string literal lit escaped for the
// inside of a literal, nothing when lit is not a string.
func (w *requestWriter) strContent(lit jsonscan.Value) {
	if lit.Kind() != jsonscan.String {
		return
	}
	for s := lit[1 : len(lit)-1]; len(s) > 0; {
		// An input byte becomes at most three (an invalid byte, U+FFFD; a
		// \b, \u0008).
		r := min(pieceRoom, 3*len(s)+jsonstr.MinRequoteRoom)
		w.room(r)
		var n int
		w.out, n = jsonstr.Requote(w.out, s, r)
		s = s[n:]
	}
}

// quote writes b as a string literal.
func (w *requestWriter) quote(b []byte) {
	w.raw(`"`)
	w.escaped(b)
	w.raw(`"`)
}

// escaped writes b escaped for the inside of a literal.
func (w *requestWriter) escaped(b []byte) {
	for len(b) > 0 {
		r := min(pieceRoom, 6*len(b)+jsonstr.MinRequoteRoom)
		w.room(r)
		var n int
		w.out, n = jsonstr.EscapePiece(w.out, b, r)
		b = b[n:]
	}
}

// hold tells Hold what the translation holds beside its output.
func (w *requestWriter) hold(bytes int) {
	if w.opts.Hold == nil {
		return
	}
	if err := w.opts.Hold(bytes); err != nil {
		panic(abort{err})
	}
}
