package gemini

import (
	"cmp"
	"strings"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/jsonout"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/jsonscan"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/messagesapi"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/toolcall"
)

// TranslateRequest translates a Messages request body into a Gemini
// generateContent request: the system prompt and system messages become
// systemInstruction; messages become contents, user and model, with tool
// uses as function calls and tool results as function responses right
// after the calls they answer (calls left without one get a placeholder
// response); each signature a thinking block's envelope carries goes back
// on the part it came on, and a function call of the current turn that
// Gemini did not make gets DummySignature; tools become function
// declarations (their JSON Schema as parametersJsonSchema, without
// $schema), tool_choice the function calling mode, and max_tokens,
// temperature, top_p, top_k, stop_sequences and the thinking config the
// generation config. No field the Messages API alone defines is forwarded.
// A body that is no Messages request is messagesapi.ErrNotMessages.
func TranslateRequest(body []byte, opts RequestOptions) (Translated, error) {
	r, err := messagesapi.ReadRequest(body, opts.ThinkingOff)
	if err != nil {
		return Translated{}, err
	}
	t := Translated{Model: r.Model.Str(), Stream: r.Stream.Bool(), InputTokens: r.InputTokens()}
	t.Upstream = cmp.Or(opts.Model, t.Model)
	w := requestWriter{Writer: jsonout.Writer{Grow: opts.Grow, Hold: opts.Hold}, opts: opts, gemini3: thinksByLevel(t.Upstream)}
	w.byLevel = opts.Thinking == ThinkingLevel || opts.Thinking == ThinkingAuto && w.gemini3
	w.mediaInResponses = w.byLevel && !strings.HasPrefix(strings.TrimPrefix(t.Upstream, "models/"), "gemma")
	if t.Body, err = w.request(&r, len(body), t.Upstream); err != nil {
		return Translated{}, err
	}
	return t, nil
}

// request writes the translation of r, a body of size bytes, for the
// model upstream.
func (w *requestWriter) request(r *messagesapi.Request, size int, upstream string) (out []byte, err error) {
	defer jsonout.Recover(&err)
	w.Room(size)
	w.Raw(`{"contents":[`)
	w.contents(r.Messages)
	w.Raw("]")
	if messagesapi.HasSystem(r.System, r.Messages) {
		w.Raw(`,"systemInstruction":{"parts":[{"text":"`)
		messagesapi.WriteSystem(&w.Writer, r.System, r.Messages)
		w.Raw(`"}]}`)
	}
	messagesapi.WriteTools(&w.Writer, r.Tools, &toolForm, w.Str, w.schemaMembers)
	messagesapi.ReadToolChoice(r.ToolChoice).Write(&w.Writer, &choiceForm, w.Str)
	w.generationConfig(r, upstream)
	w.Raw("}")
	return w.Out, nil
}

// thinksByLevel reports whether a model, by its name, takes thinkingLevel
// and wants its function calls signed: Gemini 3 and later, and any model
// not known to be older.
func thinksByLevel(model string) bool {
	model = strings.TrimPrefix(model, "models/")
	return !strings.HasPrefix(model, "gemini-1") && !strings.HasPrefix(model, "gemini-2")
}

// requestWriter writes the contents of a generateContent request.
type requestWriter struct {
	jsonout.Writer
	opts    RequestOptions
	gemini3 bool // by its name, the model checks the signatures of calls
	byLevel bool // the model thinks by level (see Thinking)
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
