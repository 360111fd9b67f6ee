package chatcompletions

import (
	"errors"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/jsonout"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/jsonscan"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/messagesapi"
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
	// InputTokens estimates the input (see messagesapi.EstimateTokens).
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
func TranslateRequest(body []byte, opts RequestOptions) (t Translated, err error) {
	if !jsonscan.Valid(body) {
		return Translated{}, ErrNotMessages
	}
	root := jsonscan.Parse(body)
	r := readMembers(root)
	if !r.thinking.Exists() && jsonscan.Valid(opts.ThinkingOff) {
		r.thinking = jsonscan.Value(opts.ThinkingOff)
	}
	msgs := r.messages
	if root.Kind() != jsonscan.Object || msgs.Kind() != jsonscan.Array {
		return Translated{}, ErrNotMessages
	}
	defer func() {
		if err != nil {
			t = Translated{}
		}
	}()
	defer jsonout.Recover(&err)
	t = Translated{Model: r.model.Str(), Stream: r.stream.Bool(), InputTokens: messagesapi.Estimate(r.system, r.tools, msgs)}
	w := requestWriter{Writer: jsonout.Writer{Grow: opts.Grow, Hold: opts.Hold}, opts: opts}
	w.names = w.toolNames(r.tools)
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
	w.gemini = opts.Reasoning == ReasoningDetails && isGemini(model)
	w.Room(len(body))
	w.Raw(`{"model":`)
	w.Quote([]byte(model))
	w.Raw(`,"messages":[`)
	// One system message, first: Claude Code sends system messages inside
	// messages too (after the first user message, for models it does not
	// know), and chat templates such as Qwen3's refuse a system message
	// anywhere but first.
	w.system(r.system, msgs)
	for m := range msgs.Elements() {
		w.message(m)
	}
	w.answerPending()
	w.Raw("]")

	if v := r.maxTokens; v.Kind() == jsonscan.Number {
		n := v.Int()
		if opts.MaxTokens > 0 && (n <= 0 || n > int64(opts.MaxTokens)) {
			n = int64(opts.MaxTokens)
		}
		w.Room(32)
		name := "max_tokens"
		if opts.MaxCompletionTokens {
			name = "max_completion_tokens"
		}
		w.Out = appendIntMember(w.Out, name, n)
	}
	for _, f := range []struct {
		name string
		v    jsonscan.Value
	}{{"temperature", r.temperature}, {"top_p", r.topP}} {
		if f.v.Kind() == jsonscan.Number {
			w.Raw(`,"` + f.name + `":`)
			w.RawBytes(f.v)
		}
	}
	if v := r.stopSequences; v.Len() > 0 {
		w.Raw(`,"stop":`)
		w.RawBytes(v)
	}
	if v := r.metadata.Get("user_id"); v.Kind() == jsonscan.String && len(v) > 2 {
		w.Raw(`,"user":`)
		w.Str(v)
	}
	w.toolChoice(r.toolChoice, w.tools(r.tools))
	w.Room(128)
	w.Out = thinkingSwitch(w.Out, opts.ThinkingSwitch, r.thinking, r.outputConfig, opts.AlwaysThinks)
	if t.Stream {
		w.Raw(`,"stream":true,"stream_options":{"include_usage":true}`)
	}
	w.Raw("}")
	t.Body = w.Out
	return t, nil
}

// requestMembers are the top-level members of a Messages request that the
// translation reads, read in one walk over it: the messages array is by
// far the largest member, and is passed over once.
type requestMembers struct {
	model, stream, messages, system, tools, toolChoice, maxTokens, temperature,
	topP, stopSequences, metadata, thinking, outputConfig jsonscan.Value
}

var memberNames = []string{"model", "stream", "messages", "system", "tools", "tool_choice", "max_tokens", "temperature",
	"top_p", "stop_sequences", "metadata", "thinking", "output_config"}

// readMembers reads the members of the request root.
func readMembers(root jsonscan.Value) requestMembers {
	var v [13]jsonscan.Value
	root.Pick(memberNames, v[:])
	return requestMembers{v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8], v[9], v[10], v[11], v[12]}
}
