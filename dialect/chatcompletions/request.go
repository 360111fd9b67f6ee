package chatcompletions

import (
	"cmp"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/jsonout"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/jsonscan"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/messagesapi"
)

// Translated is a Messages request translated for a chat-completions server.
type Translated struct {
	// Body is the chat-completions request body.
	Body []byte
	// Model is the model the client asked for, which the answer names.
	Model string
	// Stream reports that the client asked for a stream.
	Stream bool
	// ToolNames maps the tool names shortened for the server (OpenAI
	// refuses names over 64 characters) back to the client's; nil when
	// none was.
	ToolNames map[string]string
	// InputTokens estimates the input (see messagesapi.Estimate).
	InputTokens int
}

// TranslateRequest translates a Messages request body: the system prompt
// becomes the first message, tool results become tool messages right after
// the assistant message that called them, the server's own reasoning (a
// thinking block signed with block.ReasoningPrefix) goes back where
// opts.Reasoning says, any other thinking is dropped, and no field the
// Messages API alone defines is forwarded (context_management,
// output_config, thinking unless opts.ThinkingSwitch is the server's own
// thinking field, top_k, service_tier, cache_control, ...). The stream
// always asks for usage. A body that is no Messages request is
// messagesapi.ErrNotMessages.
func TranslateRequest(body []byte, opts RequestOptions) (Translated, error) {
	r, err := messagesapi.ReadRequest(body, opts.ThinkingOff)
	if err != nil {
		return Translated{}, err
	}
	t := Translated{Model: r.Model.Str(), Stream: r.Stream.Bool(), InputTokens: r.InputTokens()}
	w := requestWriter{Writer: jsonout.Writer{Grow: opts.Grow, Hold: opts.Hold}, opts: opts}
	if err := w.request(&r, len(body), &t); err != nil {
		return Translated{}, err
	}
	return t, nil
}

// request writes the translation of r, a body of size bytes, into t.
func (w *requestWriter) request(r *messagesapi.Request, size int, t *Translated) (err error) {
	defer jsonout.Recover(&err)
	w.names = w.toolNames(r.Tools)
	if len(w.names) > 0 {
		t.ToolNames = make(map[string]string, len(w.names))
		for orig, short := range w.names {
			t.ToolNames[short] = orig
		}
	}

	model := cmp.Or(w.opts.Model, t.Model)
	w.gemini = w.opts.Reasoning == ReasoningDetails && isGemini(model)
	w.Room(size)
	w.Raw(`{"model":`)
	w.Quote([]byte(model))
	w.Raw(`,"messages":[`)
	// One system message, first: Claude Code sends system messages inside
	// messages too (after the first user message, for models it does not
	// know), and chat templates such as Qwen3's refuse a system message
	// anywhere but first.
	w.system(r.System, r.Messages)
	for m := range r.Messages.Elements() {
		w.message(m)
	}
	w.answerPending()
	w.Raw("]")

	if r.MaxTokens.Kind() == jsonscan.Number {
		w.Room(32)
		name := "max_tokens"
		if w.opts.MaxCompletionTokens {
			name = "max_completion_tokens"
		}
		w.Out = appendIntMember(w.Out, name, r.CappedMaxTokens(w.opts.MaxTokens))
	}
	for _, f := range []struct {
		name string
		v    jsonscan.Value
	}{{"temperature", r.Temperature}, {"top_p", r.TopP}} {
		if f.v.Kind() == jsonscan.Number {
			w.Raw(`,"` + f.name + `":`)
			w.RawBytes(f.v)
		}
	}
	if v := r.StopSequences; v.Len() > 0 {
		w.Raw(`,"stop":`)
		w.RawBytes(v)
	}
	if v := r.Metadata.Get("user_id"); v.Kind() == jsonscan.String && len(v) > 2 {
		w.Raw(`,"user":`)
		w.Str(v)
	}
	w.toolsAndChoice(r)
	w.Room(128)
	w.Out = thinkingSwitch(w.Out, w.opts.ThinkingSwitch, r.Thinking, r.OutputConfig, w.opts.AlwaysThinks)
	if t.Stream {
		w.Raw(`,"stream":true,"stream_options":{"include_usage":true}`)
	}
	w.Raw("}")
	t.Body = w.Out
	return nil
}
