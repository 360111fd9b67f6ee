package gemini

import (
	"cmp"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/jsonout"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/messagesapi"
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
	w := requestWriter{Writer: jsonout.Writer{Grow: opts.Grow, Hold: opts.Hold}, opts: opts}
	t, err := messagesapi.Translate(body, opts.ThinkingOff, &w.Writer, w.request)
	if err != nil {
		return Translated{}, err
	}
	return Translated{Translated: t, Upstream: w.upstream}, nil
}

// request writes the translation of r, which t tells of, for the model
// the options name, or else the one asked for: how it thinks and takes
// media is by its name (see Thinking).
func (w *requestWriter) request(r messagesapi.Request, t messagesapi.Translated) {
	upstream := cmp.Or(w.opts.Model, t.Model)
	w.upstream = upstream
	w.gemini3, w.byLevel, w.mediaInResponses = w.opts.Thinking.of(upstream)
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
	w.generationConfig(&r, upstream)
	w.Raw("}")
}
