package gemini

import (
	"crypto/sha256"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/dialect/envelope"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/jsonscan"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/jsonstr"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/toolcall"
)

// geminiIDPrefix starts the id of a tool_use made from a function call
// Gemini gave an id: the id follows, and goes back to Gemini. Calls without
// one get an id of the translation's (mintedIDPrefix), which Gemini never
// sees: Gemini 2 refuses ids on function calls.
const (
	geminiIDPrefix = "toolu_g"
	mintedIDPrefix = "toolu_n"
)

// model writes an assistant message as a model content; current says it is
// in the current turn, whose function calls Gemini checks for signatures.
func (w *requestWriter) model(content jsonscan.Value, current bool) {
	if content.Kind() == jsonscan.String {
		if len(content) > 2 {
			w.open("model")
			w.part()
			w.Raw(`{"text":`)
			w.Str(content)
			w.Raw("}]}")
		}
		return
	}
	m := modelWriter{w: w, current: current}
	var name [32]byte
	for b := range content.Elements() {
		switch string(b.Get("type").Name(&name)) {
		case "thinking":
			m.thinking(b)
		case "text":
			m.text(b.Get("text"))
		case "tool_use":
			m.call(b)
		}
	}
	if m.next != nil {
		// A signature that came on a part Claude Code did not keep.
		m.start()
		w.Raw(`{"text":""`)
		m.signature(m.next)
		m.next = nil
		m.end()
	}
	if m.opened {
		w.Raw("]}")
	}
}

// modelWriter writes the parts of one model content.
type modelWriter struct {
	w       *requestWriter
	current bool
	opened  bool
	// next is the signature of the next part (a Next envelope).
	next  []byte
	calls int
	sig   []byte // where next is kept
}

// start opens the content when it must, and a part.
func (m *modelWriter) start() {
	if !m.opened {
		m.w.open("model")
		m.opened = true
	}
	m.w.part()
}

// end ends a part.
func (m *modelWriter) end() { m.w.Raw("}") }

// signature writes a part's thoughtSignature.
func (m *modelWriter) signature(sig []byte) {
	m.w.Raw(`,"thoughtSignature":`)
	m.w.Quote(sig)
}

// thinking puts back the signature a thinking block's envelope carries; a
// block whose envelope does not open is not Gemini's, and goes nowhere.
func (m *modelWriter) thinking(b jsonscan.Value) {
	w := m.w
	sigLit := b.Get("signature")
	if sigLit.Kind() != jsonscan.String || !envelope.Is(Provider, sigLit[1:]) {
		return
	}
	text := b.Get("thinking")
	var sum [sha256.Size]byte
	var ok bool
	if sum, ok = w.textSum(text); !ok {
		return
	}
	var sig []byte
	sig, w.scratch, ok = jsonstr.Value(w.scratch[:0], sigLit)
	if !ok {
		return
	}
	place, payload, ok := w.opts.Signer.Open(sum, sig)
	if !ok || len(payload) == 0 {
		return
	}
	switch place {
	case envelope.OnBlock:
		m.start()
		w.Raw(`{"text":`)
		w.Str(text)
		w.Raw(`,"thought":true`)
		m.signature(payload)
		m.end()
	case envelope.OnFollowing:
		m.sig = append(m.sig[:0], payload...)
		m.next = m.sig
	}
}

// textSum returns the SHA-256 of a thinking block's text, as the answer's
// translation hashed it.
func (w *requestWriter) textSum(lit jsonscan.Value) ([sha256.Size]byte, bool) {
	if lit.Kind() != jsonscan.String {
		return sha256.Sum256(nil), !lit.Exists()
	}
	text, buf, ok := jsonstr.Value(w.scratch[:0], lit)
	w.scratch = buf
	return sha256.Sum256(text), ok
}

// text writes a text part, with the signature a Next envelope gave it.
func (m *modelWriter) text(t jsonscan.Value) {
	if len(t) <= 2 && m.next == nil {
		return
	}
	m.start()
	m.w.Raw(`{"text":`)
	m.w.Str(t)
	if m.next != nil {
		m.signature(m.next)
		m.next = nil
	}
	m.end()
}

// call writes a function call part, with its signature: the one a Next
// envelope gave it, or, for the first call of a current-turn content that
// has none (a call Gemini did not make), DummySignature.
func (m *modelWriter) call(b jsonscan.Value) {
	w := m.w
	m.start()
	id := b.Get("id")
	w.Raw(`{"functionCall":{"name":`)
	w.Str(b.Get("name"))
	gid := w.geminiID(id)
	if gid != nil {
		w.Raw(`,"id":`)
		w.Quote(gid)
	}
	w.Raw(`,"args":`)
	if input := b.Get("input"); input.Kind() == jsonscan.Object {
		w.RawBytes(input)
	} else {
		w.Raw("{}")
	}
	w.Raw("}")
	switch {
	case m.next != nil:
		m.signature(m.next)
		m.next = nil
	case m.calls == 0 && m.current && w.gemini3:
		m.signature([]byte(DummySignature))
	}
	m.calls++
	m.end()
	if w.pending.Add(toolcall.IDOf(id)) {
		w.Held(w.pending.Held() + cap(w.names)*72) // names, ids and results
	}
	w.names = append(w.names, b.Get("name"))
	w.ids = append(w.ids, jsonscan.Value(gid))
}

// geminiID returns the id Gemini gave the call a tool_use id names, or nil
// for a call whose id is not Gemini's.
func (w *requestWriter) geminiID(id jsonscan.Value) []byte {
	if id.Kind() != jsonscan.String || len(id) <= len(geminiIDPrefix)+2 {
		return nil
	}
	v := id[1 : len(id)-1]
	if string(v[:len(geminiIDPrefix)]) != geminiIDPrefix {
		return nil
	}
	return v[len(geminiIDPrefix):]
}
