package gemini

import (
	"slices"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/jsonout"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/jsonscan"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/messagesapi"
)

// user writes a user message as a user content: the responses to the last
// model content's function calls first (each call must have one: those
// the message does not answer get a placeholder), with the images and
// documents of their results inside them for a model that takes them
// there (see inResponse), then the results of no call Gemini saw, as
// text, then the media of the results that go after the responses, then
// the message's text, images and documents.
func (w *requestWriter) user(content jsonscan.Value) {
	u := userWriter{w: w}
	if content.Kind() == jsonscan.String {
		u.placeholders()
		if len(content) > 2 {
			u.start()
			w.Raw(`{"text":`)
			w.Str(content)
			w.Raw("}")
		}
		u.close()
		return
	}
	w.results = slices.Grow(w.results[:0], len(w.names))[:len(w.names)]
	clear(w.results)
	orphans := w.orphans.Sort(content, &w.pending, w.Held, func(place int, b jsonscan.Value) {
		w.results[place] = b
	})
	u.placeholders()
	if orphans {
		u.start()
		w.Raw(`{"text":"`)
		w.orphans.Write(&w.Writer, content)
		w.Raw(`"}`)
	}
	var name [32]byte
	for b, ofResult := range w.orphans.Following(content) {
		if ofResult && !w.afterResponses(b) {
			continue
		}
		switch string(b.Get("type").Name(&name)) {
		case "text":
			if t := b.Get("text"); len(t) > 2 {
				u.start()
				w.Raw(`{"text":`)
				w.Str(t)
				w.Raw("}")
			}
		case "image", "document":
			if carried(b) {
				u.start()
				w.media(b)
			}
		}
	}
	u.close()
}

// answerPending writes the placeholder responses of the calls left
// without one, in a user content of their own: a model content follows.
func (w *requestWriter) answerPending() {
	u := userWriter{w: w}
	u.placeholders()
	u.close()
}

// userWriter writes the parts of one user content, opened at its first.
type userWriter struct {
	w      *requestWriter
	opened bool
}

func (u *userWriter) start() {
	if !u.opened {
		u.w.open("user")
		u.opened = true
	}
	u.w.part()
}

func (u *userWriter) close() {
	if u.opened {
		u.w.Raw("]}")
	}
}

// placeholders writes the responses of the last model content's calls in
// the calls' order, whatever the order of the results (Claude Code sends
// them as its tools finish): each result kept in results, a placeholder
// for every call still waiting; and forgets the calls.
func (u *userWriter) placeholders() {
	w := u.w
	w.pending.Waiting(func(int, jsonscan.Value) bool { return false }) // forgets the calls
	for place := range w.names {
		u.start()
		if place < len(w.results) && w.results[place] != nil {
			w.response(place, w.results[place])
			continue
		}
		w.Raw(`{"functionResponse":{"name":`)
		w.Str(w.names[place])
		w.responseID(place)
		w.Raw(`,"response":{"output":"(no result)"}}}`)
	}
	w.names, w.ids, w.results = w.names[:0], w.ids[:0], w.results[:0]
}

// response writes the function response of the call at place: the tool
// result's text as its output, or as its error, and the media that go
// inside it as its parts.
func (w *requestWriter) response(place int, b jsonscan.Value) {
	w.Raw(`{"functionResponse":{"name":`)
	w.Str(w.names[place])
	w.responseID(place)
	if b.Get("is_error").Bool() {
		w.Raw(`,"response":{"error":"`)
	} else {
		w.Raw(`,"response":{"output":"`)
	}
	messagesapi.WriteToolResult(&w.Writer, b)
	w.Raw(`"}`)
	parts := jsonout.List{Open: `,"parts":[`, Close: "]"}
	for c := range b.Get("content").Elements() {
		if !w.inResponse(c) {
			continue
		}
		w.Next(&parts)
		w.media(c)
	}
	w.End(&parts)
	w.Raw("}}")
}

// responseMedia are the media types Google documents inside a function
// response (ai.google.dev/gemini-api/docs/function-calling#multimodal,
// "Available for Gemini 3 series models"): images and documents.
var responseMedia = []string{"image/png", "image/jpeg", "image/webp", "application/pdf", "text/plain"}

// inResponse reports whether a block of a tool result goes inside its
// function response: an image or a document given as base64, of a type
// Google documents there, for a model that thinks by level (Gemini 3;
// not Gemma). Every other image or document of a result follows the
// responses as a part of its own (afterResponses), as all of them do for
// older models, which refuse media inside a response.
func (w *requestWriter) inResponse(c jsonscan.Value) bool {
	if !w.mediaInResponses || !isMedia(c) {
		return false
	}
	src := c.Get("source")
	if !src.Get("type").Is("base64") {
		return false
	}
	mt := src.Get("media_type")
	for _, m := range responseMedia {
		if mt.Is(m) {
			return true
		}
	}
	return false
}

// afterResponses reports whether a block of a tool result follows the
// function responses as a part of its own: an image or a document that
// does not go inside its response.
func (w *requestWriter) afterResponses(c jsonscan.Value) bool {
	return isMedia(c) && carried(c) && !w.inResponse(c)
}

// isMedia reports whether a block is an image or a document.
func isMedia(b jsonscan.Value) bool {
	t := b.Get("type")
	return t.Is("image") || t.Is("document")
}

// responseID writes the id Gemini gave the call at place, if it gave one.
func (w *requestWriter) responseID(place int) {
	if id := w.ids[place]; id != nil {
		w.Raw(`,"id":`)
		w.Quote(id)
	}
}

// carried reports whether an image or a document has a form Gemini
// takes: base64 data, a URL, or plain text. A Files API id or a document
// of content blocks has none.
func carried(b jsonscan.Value) bool {
	t := b.Get("source", "type")
	return t.Is("base64") || t.Is("url") || t.Is("text")
}

// media writes an image or a document carried (see carried): inline data
// from base64, a file from a URL, the text of a plain-text document. The
// same objects are a functionResponse's parts.
func (w *requestWriter) media(b jsonscan.Value) {
	src := b.Get("source")
	if src.Get("type").Is("text") {
		w.Raw(`{"text":`)
		w.Str(src.Get("data"))
		w.Raw("}")
		return
	}
	if src.Get("type").Is("base64") {
		w.Raw(`{"inlineData":{"mimeType":`)
		w.Str(src.Get("media_type"))
		w.Raw(`,"data":`)
		w.Str(src.Get("data"))
		w.Raw("}}")
		return
	}
	w.Raw(`{"fileData":{"fileUri":`)
	w.Str(src.Get("url"))
	if mt := src.Get("media_type"); mt.Kind() == jsonscan.String {
		w.Raw(`,"mimeType":`)
		w.Str(mt)
	}
	w.Raw("}}")
}
