package messagesapi

import "github.com/caddy-llm-thinking/caddy-llm-thinking/internal/jsonout"

// Translated is a Messages request translated for another API, with what
// the translation of its answer needs to know of it.
type Translated struct {
	// Body is the translated request body.
	Body []byte
	// Model is the model the client asked for, which the answer names.
	Model string
	// Stream reports that the client asked for a stream.
	Stream bool
	// InputTokens estimates the input (see Estimate).
	InputTokens int
}

// Translate reads body as a Messages request (see ReadRequest, which
// thinkingOff goes to) and has write translate it into w, given room for
// the body's size first. An error of w's Grow or Hold stops the writing
// and is Translate's (see jsonout.Recover). write gets copies, which keep
// the request and what it tells on the stack.
func Translate(body, thinkingOff []byte, w *jsonout.Writer, write func(Request, Translated)) (Translated, error) {
	r, err := ReadRequest(body, thinkingOff)
	if err != nil {
		return Translated{}, err
	}
	t := Translated{Model: r.Model.Str(), Stream: r.Stream.Bool(), InputTokens: r.InputTokens()}
	if err := writeTranslation(w, len(body), func() { write(r, t) }); err != nil {
		return Translated{}, err
	}
	t.Body = w.Out
	return t, nil
}

// writeTranslation has write write into w, given room for size bytes
// first, and returns the error of Grow or Hold that stopped it.
func writeTranslation(w *jsonout.Writer, size int, write func()) (err error) {
	defer jsonout.Recover(&err)
	w.Room(size)
	write()
	return nil
}
