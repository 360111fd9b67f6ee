package chatcompletions

import (
	"crypto/sha256"
	"errors"
	"strconv"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/jsonscan"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/jsonstr"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/toolargs"
)

// ErrNotAnswer says a body is not a chat-completions answer.
var ErrNotAnswer = errors.New("not a chat-completions answer: want a JSON object with choices")

// TranslateAnswer returns the Messages answer for a whole (not streamed)
// chat-completions answer: one thinking block from the reasoning (any of
// its fields, or <think> tags at the start of the content), then the text,
// then a tool_use block per tool call, with the stop reason and usage
// mapped. Tool arguments that are not a JSON object become
// {"raw_arguments": "<the text>"}, arguments cut short are completed.
func TranslateAnswer(body []byte, opts AnswerOptions) ([]byte, error) {
	if !jsonscan.Valid(body) {
		return nil, ErrNotAnswer
	}
	root := jsonscan.Parse(body)
	if root.Kind() != jsonscan.Object {
		return nil, ErrNotAnswer
	}
	if e := root.Get("error"); e.Exists() && e.Kind() != jsonscan.Null {
		return nil, errors.New("the upstream answered an error: " + chunkErrorMessage(e))
	}
	choices := root.Get("choices")
	if choices.Kind() != jsonscan.Array {
		return nil, ErrNotAnswer
	}
	choice := choices.Index(0)
	msg := choice.Get("message")
	finish := choice.Get("finish_reason").Text()

	var det details
	var thinking []byte
	if opts.Details.Key != nil {
		thinking = reasoningParts(msg, &det)
	}
	if len(det.parts) == 0 {
		thinking = reasoningOf(msg)
	}
	content := msg.Get("content").Text()
	if len(thinking) == 0 && !opts.NoTags {
		thinking, content = splitWhole(content, opts.AssumeOpen)
		det.segment(-1, len(thinking))
	}

	out := []byte(`{"id":"msg_`)
	if id := appendID(nil, root.Get("id")); len(id) > 0 {
		out = append(out, id...)
	} else {
		out = append(out, "chat"...)
	}
	out = append(out, `","type":"message","role":"assistant","model":`...)
	out = jsonstr.Quote(out, []byte(opts.Model))
	out = append(out, `,"content":[`...)
	n := 0
	sep := func() {
		if n > 0 {
			out = append(out, ',')
		}
		n++
	}
	if len(thinking) > 0 || len(det.parts) > 0 {
		sep()
		out = append(out, `{"type":"thinking","thinking":`...)
		out = jsonstr.Quote(out, thinking)
		out = append(out, `,"signature":`...)
		sig := opts.Sign
		if len(det.parts) > 0 {
			sig = func(sum [sha256.Size]byte) string { s, _ := det.seal(opts.Details, sum, nil); return s }
		}
		out = jsonstr.Quote(out, []byte(sig(sha256.Sum256(thinking))))
		out = append(out, '}')
	}
	if !isBlank(content) {
		sep()
		out = append(out, `{"type":"text","text":`...)
		out = jsonstr.Quote(out, content)
		out = append(out, '}')
	}
	calls := 0
	for tc := range msg.Get("tool_calls").Elements() {
		sep()
		out = appendToolUse(out, tc, calls, root.Get("id"), opts.ToolNames)
		calls++
	}
	out = append(out, `],"stop_reason":"`...)
	out = append(out, stopReason(finish, calls > 0)...)
	out = append(out, `","stop_sequence":null,"usage":`...)
	var u usage
	if raw := root.Get("usage"); raw.Kind() == jsonscan.Object {
		u.read(raw)
	}
	if u.prompt == 0 {
		u.prompt = opts.InputTokens
	}
	out = u.messages().AppendJSON(out)
	return append(out, '}'), nil
}

// reasoningParts reads the reasoning_details parts of an answer's message
// into d, and returns their texts, one after the other: the text of the
// block that carries them.
func reasoningParts(msg jsonscan.Value, d *details) []byte {
	var text []byte
	for v := range msg.Get("reasoning_details").Elements() {
		part, lit, _ := d.add(v, false)
		if lit == nil {
			continue
		}
		n := len(text)
		text, _ = jsonstr.Append(text, lit)
		d.segment(part, len(text)-n)
	}
	return text
}

// reasoningOf returns the reasoning of an answer's message, from the first
// field that has any.
func reasoningOf(msg jsonscan.Value) []byte {
	for _, f := range []string{"reasoning_content", "reasoning"} {
		if v := msg.Get(f).Text(); len(v) > 0 {
			return v
		}
	}
	var text []byte
	for d := range msg.Get("reasoning_details").Elements() {
		for _, f := range []string{"text", "summary"} {
			text = append(text, d.Get(f).Text()...)
		}
	}
	return text
}

// appendToolUse appends the tool_use block of one tool call.
func appendToolUse(out []byte, tc jsonscan.Value, i int, msgID []byte, names map[string]string) []byte {
	out = append(out, `{"type":"tool_use","id":"`...)
	start := len(out)
	out = appendID(out, tc.Get("id"))
	if len(out) == start {
		out = append(out, "toolu_"...)
		out = appendID(out, msgID)
		out = strconv.AppendInt(append(out, '_'), int64(i), 10)
	}
	out = append(out, `","name":`...)
	name := tc.Get("function", "name").Str()
	if orig, ok := names[name]; ok {
		name = orig
	}
	out = jsonstr.Quote(out, []byte(name))
	out = append(out, `,"input":`...)
	out = append(out, toolargs.Input(tc.Get("function", "arguments").Text())...)
	return append(out, '}')
}
