package chatcompletions

import (
	"errors"

	"github.com/tidwall/gjson"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/jsonscan"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/jsonstr"
)

// ErrNotMessages says a request body is not a Messages request.
var ErrNotMessages = errors.New("not a Messages request: want a JSON object with a messages array")

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
	// InputTokens estimates the input (see EstimateTokens).
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
// always asks for usage.
func TranslateRequest(body []byte, opts RequestOptions) (Translated, error) {
	if !jsonscan.Valid(body) {
		return Translated{}, ErrNotMessages
	}
	root := gjson.ParseBytes(body)
	messages := root.Get("messages")
	if !root.IsObject() || !messages.IsArray() {
		return Translated{}, ErrNotMessages
	}
	msgs := messages.Array()
	t := Translated{Model: root.Get("model").Str, Stream: root.Get("stream").Bool(), InputTokens: estimate(root, msgs)}
	w := requestWriter{opts: opts, names: toolNames(root.Get("tools"))}
	if len(w.names) > 0 {
		t.ToolNames = make(map[string]string, len(w.names))
		for orig, short := range w.names {
			t.ToolNames[short] = orig
		}
	}

	model := t.Model
	if opts.Model != "" {
		model = opts.Model
	}
	out := append(make([]byte, 0, len(body)+256), `{"model":`...)
	out = jsonstr.Quote(out, []byte(model))
	out = append(out, `,"messages":[`...)
	w.out = out
	// One system message, first: Claude Code sends system messages inside
	// messages too (after the first user message, for models it does not
	// know), and chat templates such as Qwen3's refuse a system message
	// anywhere but first.
	system := joinText(root.Get("system"))
	for _, m := range msgs {
		if m.Get("role").Str == "system" {
			if text := joinText(m.Get("content")); len(text) > 0 {
				if len(system) > 0 {
					system = append(system, "\n\n"...)
				}
				system = append(system, text...)
			}
		}
	}
	w.system(system)
	for _, m := range msgs {
		w.message(m)
	}
	w.answerPending()
	out = append(w.out, ']')

	if v := root.Get("max_tokens"); v.Type == gjson.Number {
		n := v.Int()
		if opts.MaxTokens > 0 && (n <= 0 || n > int64(opts.MaxTokens)) {
			n = int64(opts.MaxTokens)
		}
		out = appendIntMember(out, "max_tokens", n)
	}
	for _, f := range []string{"temperature", "top_p"} {
		if v := root.Get(f); v.Type == gjson.Number {
			out = append(append(out, `,"`+f+`":`...), v.Raw...)
		}
	}
	if v := root.Get("stop_sequences"); v.IsArray() && len(v.Array()) > 0 {
		out = append(append(out, `,"stop":`...), v.Raw...)
	}
	if v := root.Get("metadata.user_id"); v.Type == gjson.String && v.Str != "" {
		out = append(out, `,"user":`...)
		out = jsonstr.Quote(out, []byte(v.Str))
	}
	out = w.tools(out, root.Get("tools"))
	out = w.toolChoice(out, root.Get("tool_choice"))
	out = thinkingSwitch(out, opts.ThinkingSwitch, root)
	if t.Stream {
		out = append(out, `,"stream":true,"stream_options":{"include_usage":true}`...)
	}
	t.Body = append(out, '}')
	return t, nil
}
