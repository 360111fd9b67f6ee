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
// results of no call the upstream saw, as text, and the message's text,
// images and documents.
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
	// The tool results went before, media and all (see output).
	for b := range content.Elements() {
		if b.Get("type").Is("text") {
			if t := b.Get("text"); len(t) > 2 {
				m.part()
				w.Raw(`{"type":"input_text","text":`)
				w.Str(t)
				w.Raw("}")
			}
		} else if inputPart(b) != noPart {
			m.part()
			w.writePart(b)
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
// error said so; a result with images or documents (Claude Code's Read of
// an image or a PDF) as the array of parts the API takes there, its text,
// images and documents in their order.
func (w *requestWriter) output(b jsonscan.Value) {
	w.next()
	w.Raw(`{"type":"function_call_output","call_id":`)
	w.callID(toolcall.IDOf(b.Get("tool_use_id")))
	content := b.Get("content")
	if hasMedia(content) {
		w.Raw(`,"output":[`)
		w.outputParts(content, b.Get("is_error").Bool())
		w.Raw(`]}`)
		return
	}
	w.Raw(`,"output":"`)
	if b.Get("is_error").Bool() {
		w.Raw("Error: ")
	}
	messagesapi.WriteToolResult(&w.Writer, b)
	w.Raw(`"}`)
}

// hasMedia reports whether a tool result's content holds an image or a
// document that goes as a part.
func hasMedia(content jsonscan.Value) bool {
	for c := range content.Elements() {
		if k := inputPart(c); k != noPart && k != textPart {
			return true
		}
	}
	return false
}

// outputParts writes a tool result's text, images and documents as input
// parts; an error is said so before the first.
func (w *requestWriter) outputParts(content jsonscan.Value, isError bool) {
	n := 0
	for c := range content.Elements() {
		k := inputPart(c)
		if k == noPart {
			continue
		}
		if n > 0 {
			w.Raw(",")
		}
		n++
		switch {
		case k == textPart:
			w.Raw(`{"type":"input_text","text":"`)
			if isError {
				w.Raw("Error: ")
			}
			w.StrContent(c.Get("text"))
			w.Raw(`"}`)
		case isError:
			w.Raw(`{"type":"input_text","text":"Error:"},`)
			fallthrough
		default:
			w.writePart(c)
		}
		isError = false
	}
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

// A part is how a content block goes as an input part, if at all.
type part int

const (
	noPart    part = iota
	textPart       // a text block: input_text
	imagePart      // an image from base64 or a URL: input_image
	filePart       // a PDF from base64 or a URL: input_file
	docText        // a document of plain text or of content: input_text
)

// inputPart says how block b goes as an input part. A source the API has
// no form for (a file of Anthropic's Files API) goes nowhere.
func inputPart(b jsonscan.Value) part {
	var name [32]byte
	src := b.Get("source")
	switch string(b.Get("type").Name(&name)) {
	case "text":
		return textPart
	case "image":
		switch string(src.Get("type").Name(&name)) {
		case "base64":
			return imagePart
		case "url":
			if src.Get("url").Kind() == jsonscan.String {
				return imagePart
			}
		}
	case "document":
		switch string(src.Get("type").Name(&name)) {
		case "base64":
			return filePart
		case "url":
			if src.Get("url").Kind() == jsonscan.String {
				return filePart
			}
		case "text", "content":
			return docText
		}
	}
	return noPart
}

// writePart writes block b as the part inputPart says it is.
func (w *requestWriter) writePart(b jsonscan.Value) {
	src := b.Get("source")
	switch inputPart(b) {
	case textPart:
		w.Raw(`{"type":"input_text","text":`)
		w.Str(b.Get("text"))
		w.Raw("}")
	case imagePart:
		w.Raw(`{"type":"input_image","image_url":`)
		w.mediaURL(src)
		w.Raw("}")
	case filePart:
		if src.Get("type").Is("base64") {
			// The API wants a filename with inline data, and reads the
			// type from the data URL.
			w.Raw(`{"type":"input_file","filename":"document.pdf","file_data":`)
		} else {
			w.Raw(`{"type":"input_file","file_url":`)
		}
		w.mediaURL(src)
		w.Raw("}")
	case docText:
		w.Raw(`{"type":"input_text","text":"`)
		w.documentText(src)
		w.Raw(`"}`)
	}
}

// mediaURL writes the URL of a base64 or URL source: a data URL, or the
// URL.
func (w *requestWriter) mediaURL(src jsonscan.Value) {
	if !src.Get("type").Is("base64") {
		w.Str(src.Get("url"))
		return
	}
	w.Raw(`"data:`)
	w.StrContent(src.Get("media_type"))
	w.Raw(`;base64,`)
	w.StrContent(src.Get("data"))
	w.Raw(`"`)
}

// documentText writes, escaped, the text of a plain-text document (its
// data) or of a content document (its content, a string or text blocks
// joined by blank lines).
func (w *requestWriter) documentText(src jsonscan.Value) {
	if src.Get("type").Is("text") {
		w.StrContent(src.Get("data"))
		return
	}
	messagesapi.WriteToolResult(&w.Writer, src)
}
