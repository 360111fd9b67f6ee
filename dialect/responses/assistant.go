package responses

import (
	"crypto/sha256"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/dialect/envelope"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/jsonscan"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/jsonstr"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/toolcall"
)

// assistant writes an assistant message as output items, in its order:
// the reasoning item each thinking block's envelope carries, a message of
// the text blocks between other items, a function call per tool_use. A
// reasoning item goes only where an item it led to follows it: one left
// last is taken back out, since the API refuses a reasoning item without
// its following item.
func (w *requestWriter) assistant(content jsonscan.Value) {
	a := assistantWriter{w: w, dangling: -1}
	if content.Kind() == jsonscan.String {
		a.text(content)
		a.end()
		return
	}
	var name [32]byte
	for b := range content.Elements() {
		switch string(b.Get("type").Name(&name)) {
		case "thinking":
			a.reasoning(b)
		case "text":
			a.text(b.Get("text"))
		case "tool_use":
			a.call(b)
		}
	}
	a.end()
}

// assistantWriter writes the items of one assistant message.
type assistantWriter struct {
	w       *requestWriter
	message bool // a message item is open
	// dangling is where the last reasoning item written starts, while no
	// item follows it, else -1; danglingN is the item count before it.
	dangling, danglingN int
}

// followed marks the last reasoning item as followed.
func (a *assistantWriter) followed() { a.dangling = -1 }

// closeMessage ends the open message item.
func (a *assistantWriter) closeMessage() {
	if a.message {
		a.w.Raw("]}")
		a.message = false
	}
}

// end ends the message's items, and takes a last reasoning item back out.
func (a *assistantWriter) end() {
	a.closeMessage()
	if a.dangling >= 0 {
		a.w.Out, a.w.n = a.w.Out[:a.dangling], a.danglingN
	}
}

// text writes a text block as an output_text part of a message item.
func (a *assistantWriter) text(t jsonscan.Value) {
	if t.Kind() != jsonscan.String || len(t) <= 2 {
		return
	}
	w := a.w
	if !a.message {
		w.next()
		w.Raw(`{"type":"message","role":"assistant","content":[`)
		a.message = true
	} else {
		w.Raw(",")
	}
	w.Raw(`{"type":"output_text","text":`)
	w.Str(t)
	w.Raw("}")
	a.followed()
}

// call writes a tool_use as a function_call, its input as the arguments.
func (a *assistantWriter) call(b jsonscan.Value) {
	a.closeMessage()
	w := a.w
	w.next()
	id := toolcall.IDOf(b.Get("id"))
	w.Raw(`{"type":"function_call","call_id":`)
	w.callID(id)
	w.Raw(`,"name":`)
	w.Str(b.Get("name"))
	w.Raw(`,"arguments":`)
	if input := b.Get("input"); input.Kind() == jsonscan.Object {
		w.Quote(input)
	} else {
		w.Raw(`"{}"`)
	}
	w.Raw("}")
	a.followed()
	if w.pending.Add(id) {
		w.Held(w.pending.Held())
	}
}

// reasoning writes the reasoning item a thinking block's envelope carries;
// a block whose envelope does not open (another backend's, a forged or
// altered one, one of another upstream or key) goes nowhere, nor does an
// item the upstream could not take back: one of only a summary without
// its encrypted content (the API keeps nothing with store false).
func (a *assistantWriter) reasoning(b jsonscan.Value) {
	w := a.w
	sigLit := b.Get("signature")
	if sigLit.Kind() != jsonscan.String || !w.opts.Signer.Mine(sigLit[1:]) {
		return
	}
	var text, sig []byte
	var ok bool
	if textLit := b.Get("thinking"); textLit.Kind() == jsonscan.String {
		if text, w.scratch, ok = jsonstr.Value(w.scratch[:0], textLit); !ok {
			return
		}
	}
	if sig, w.sigBuf, ok = jsonstr.Value(w.sigBuf[:0], sigLit); !ok {
		return
	}
	place, payload, ok := w.opts.Signer.Open(sha256.Sum256(text), sig)
	it := &w.item
	if !ok || place != envelope.OnBlock || !it.parse(payload) || (len(it.encrypted) == 0 && !it.content) ||
		!it.split(text, func([]byte) {}) {
		return
	}
	a.closeMessage()
	mark, n := len(w.Out), w.n
	w.next()
	// Without its id, as OpenAI's own clients send it with store false:
	// nothing was kept to find it by, and the encrypted content is all the
	// model needs.
	w.Raw(`{"type":"reasoning","summary":[`)
	if !it.content {
		a.parts(text, `{"type":"summary_text","text":`)
	}
	w.Raw("]")
	if it.content {
		w.Raw(`,"content":[`)
		a.parts(text, `{"type":"reasoning_text","text":`)
		w.Raw("]")
	}
	if len(it.encrypted) > 0 {
		w.Raw(`,"encrypted_content":`)
		w.Quote(it.encrypted)
	}
	w.Raw("}")
	a.dangling, a.danglingN = mark, n
}

// parts writes the parts of the item's text, each opened with head.
func (a *assistantWriter) parts(text []byte, head string) {
	w := a.w
	first := true
	w.item.split(text, func(p []byte) {
		if !first {
			w.Raw(",")
		}
		first = false
		w.Raw(head)
		w.Quote(p)
		w.Raw("}")
	})
}
