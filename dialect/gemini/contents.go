package gemini

import (
	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/jsonout"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/jsonscan"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/toolcall"
)

// requestWriter writes the contents of a generateContent request.
type requestWriter struct {
	jsonout.Writer
	opts     RequestOptions
	upstream string // the model the upstream gets
	gemini3  bool   // by its name, the model checks the signatures of calls
	byLevel  bool   // the model thinks by level (see Thinking)
	// mediaInResponses says the media of a tool result go inside its
	// function response (Gemini 3), not after the responses.
	mediaInResponses bool
	n                int // contents written

	// The function calls of the last model content waiting for their
	// responses: their ids, and by place their names and Gemini's ids.
	pending toolcall.Pending
	names   []jsonscan.Value
	ids     []jsonscan.Value
	results []jsonscan.Value // of the user content being written, by place
	orphans toolcall.Orphans
	scratch []byte

	// Of the model content being written: where its last part ends, and
	// whether it holds a signature; the signature of the next part.
	partEnd    int
	partSigned bool
	nextSig    []byte
	parts      int
	calls      int
}

// contents writes the messages as contents.
func (w *requestWriter) contents(msgs jsonscan.Value) {
	current := currentTurn(msgs)
	var role [32]byte
	i := -1
	for m := range msgs.Elements() {
		i++
		switch string(m.Get("role").Name(&role)) {
		case "system":
			// In systemInstruction.
		case "assistant":
			w.answerPending()
			w.model(m.Get("content"), i > current)
		default:
			w.user(m.Get("content"))
		}
	}
	w.answerPending()
}

// currentTurn returns the index of the last user message with content of
// its own, not only tool results: the function calls after it are the
// current turn's, whose signatures Gemini checks.
func currentTurn(msgs jsonscan.Value) int {
	last, i := -1, -1
	var name [32]byte
	for m := range msgs.Elements() {
		i++
		if !m.Get("role").Is("user") {
			continue
		}
		c := m.Get("content")
		if c.Kind() == jsonscan.String {
			last = i
			continue
		}
		for b := range c.Elements() {
			if t := string(b.Get("type").Name(&name)); t == "text" || t == "image" || t == "document" {
				last = i
				break
			}
		}
	}
	return last
}

// open starts a content of role.
func (w *requestWriter) open(role string) {
	if w.n > 0 {
		w.Raw(",")
	}
	w.n++
	w.Raw(`{"role":"` + role + `","parts":[`)
	w.parts = 0
}

// part starts a part.
func (w *requestWriter) part() {
	if w.parts > 0 {
		w.Raw(",")
	}
	w.parts++
}
