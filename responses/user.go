package responses

import (
	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/jsonscan"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/jsonstr"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/messagesapi"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/toolcall"
)

// user writes a user message: the outputs of the last assistant message's
// function calls first (each call must have one: those the message does
// not answer get a placeholder), then a user message item with the
// results of no call the upstream saw, as text, the message's text,
// images and documents, and the images of its tool results.
func (w *requestWriter) user(content jsonscan.Value) {
	m := userMessage{w: w}
	if content.Kind() == jsonscan.String {
		w.outputsPending()
		if len(content) > 2 {
			m.part()
			w.Raw(`{"type":"input_text","text":`)
			w.Str(content)
			w.Raw("}")
		}
		m.close()
		return
	}
	orphans := w.orphans.Sort(content, &w.pending, w.Held, func(_ int, b jsonscan.Value) { w.output(b) })
	w.outputsPending()
	if orphans {
		m.part()
		w.Raw(`{"type":"input_text","text":"`)
		w.orphans.Write(&w.Writer, content)
		w.Raw(`"}`)
	}
	var name [32]byte
	for b := range w.orphans.Parts(content) {
		switch string(b.Get("type").Name(&name)) {
		case "text":
			if t := b.Get("text"); len(t) > 2 {
				m.part()
				w.Raw(`{"type":"input_text","text":`)
				w.Str(t)
				w.Raw("}")
			}
		case "image":
			m.part()
			w.image(b)
		case "document":
			m.part()
			w.document(b)
		}
	}
	m.close()
}

// userMessage writes one user message item, opened at its first part.
type userMessage struct {
	w     *requestWriter
	parts int
}

func (m *userMessage) part() {
	if m.parts == 0 {
		m.w.next()
		m.w.Raw(`{"type":"message","role":"user","content":[`)
	} else {
		m.w.Raw(",")
	}
	m.parts++
}

func (m *userMessage) close() {
	if m.parts > 0 {
		m.w.Raw("]}")
	}
}

// output writes the function_call_output of a tool result: its text, an
// error said so.
func (w *requestWriter) output(b jsonscan.Value) {
	w.next()
	w.Raw(`{"type":"function_call_output","call_id":`)
	w.callID(toolcall.IDOf(b.Get("tool_use_id")))
	w.Raw(`,"output":"`)
	if b.Get("is_error").Bool() {
		w.Raw("Error: ")
	}
	messagesapi.WriteToolResult(&w.Writer, b)
	w.Raw(`"}`)
}

// outputsPending writes a placeholder output for each call still waiting
// for one, and forgets the calls.
func (w *requestWriter) outputsPending() {
	for _, id := range w.pending.Waiting {
		w.next()
		w.Raw(`{"type":"function_call_output","call_id":`)
		w.callID(id)
		w.Raw(`,"output":"(no result)"}`)
	}
}

// callID writes the call_id the tool_use id literal lit stands for.
func (w *requestWriter) callID(lit jsonscan.Value) {
	var id []byte
	id, w.scratch, _ = jsonstr.Value(w.scratch[:0], lit)
	w.Quote(callIDOf(id))
}

// image writes an image block as an input_image: a data URL from base64,
// or its URL.
func (w *requestWriter) image(b jsonscan.Value) {
	src := b.Get("source")
	w.Raw(`{"type":"input_image","image_url":`)
	if src.Get("type").Is("base64") {
		w.Raw(`"data:`)
		w.StrContent(src.Get("media_type"))
		w.Raw(`;base64,`)
		w.StrContent(src.Get("data"))
		w.Raw(`"}`)
		return
	}
	w.Str(src.Get("url"))
	w.Raw("}")
}

// document writes a document block: a PDF as an input_file (a data URL
// from base64, or its URL), plain text as input_text.
func (w *requestWriter) document(b jsonscan.Value) {
	src := b.Get("source")
	var typ [32]byte
	switch string(src.Get("type").Name(&typ)) {
	case "base64":
		w.Raw(`{"type":"input_file","filename":"document.pdf","file_data":"data:`)
		w.StrContent(src.Get("media_type"))
		w.Raw(`;base64,`)
		w.StrContent(src.Get("data"))
		w.Raw(`"}`)
	case "text":
		w.Raw(`{"type":"input_text","text":`)
		w.Str(src.Get("data"))
		w.Raw("}")
	default:
		w.Raw(`{"type":"input_file","file_url":`)
		w.Str(src.Get("url"))
		w.Raw("}")
	}
}
