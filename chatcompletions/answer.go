package chatcompletions

import (
	"crypto/sha256"
	"errors"
	"strconv"

	"github.com/tidwall/gjson"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/jsonscan"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/jsonstr"
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
	root := gjson.ParseBytes(body)
	if !root.IsObject() {
		return nil, ErrNotAnswer
	}
	if e := root.Get("error"); e.Exists() && e.Type != gjson.Null {
		return nil, errors.New("the upstream answered an error: " + chunkErrorMessage([]byte(e.Raw)))
	}
	choices := root.Get("choices")
	if !choices.IsArray() {
		return nil, ErrNotAnswer
	}
	msg := choices.Get("0.message")
	finish := choices.Get("0.finish_reason").Str

	thinking := reasoningOf(msg)
	content := []byte(msg.Get("content").Str)
	if len(thinking) == 0 && !opts.NoTags {
		thinking, content = splitWhole(content, opts.AssumeOpen)
	}

	out := []byte(`{"id":"msg_`)
	if id := appendID(nil, []byte(root.Get("id").Raw)); len(id) > 0 {
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
	if len(thinking) > 0 {
		sep()
		out = append(out, `{"type":"thinking","thinking":`...)
		out = jsonstr.Quote(out, thinking)
		out = append(out, `,"signature":`...)
		out = jsonstr.Quote(out, []byte(opts.Sign(sha256.Sum256(thinking))))
		out = append(out, '}')
	}
	if !isBlank(content) {
		sep()
		out = append(out, `{"type":"text","text":`...)
		out = jsonstr.Quote(out, content)
		out = append(out, '}')
	}
	calls := 0
	for i, tc := range msg.Get("tool_calls").Array() {
		sep()
		calls++
		out = appendToolUse(out, tc, i, root.Get("id").Raw, opts.ToolNames)
	}
	out = append(out, `],"stop_reason":"`...)
	out = append(out, stopReason([]byte(finish), calls > 0)...)
	out = append(out, `","stop_sequence":null,"usage":`...)
	var u usage
	if raw := root.Get("usage"); raw.IsObject() {
		u.read([]byte(raw.Raw))
	}
	if u.prompt == 0 {
		u.prompt = opts.InputTokens
	}
	out = u.appendJSON(out)
	return append(out, '}'), nil
}

// reasoningOf returns the reasoning of an answer's message, from the first
// field that has any.
func reasoningOf(msg gjson.Result) []byte {
	for _, f := range []string{"reasoning_content", "reasoning"} {
		if v := msg.Get(f); v.Type == gjson.String && v.Str != "" {
			return []byte(v.Str)
		}
	}
	var text []byte
	for _, d := range msg.Get("reasoning_details").Array() {
		for _, f := range []string{"text", "summary"} {
			if v := d.Get(f); v.Type == gjson.String {
				text = append(text, v.Str...)
			}
		}
	}
	return text
}

// appendToolUse appends the tool_use block of one tool call.
func appendToolUse(out []byte, tc gjson.Result, i int, msgID string, names map[string]string) []byte {
	out = append(out, `{"type":"tool_use","id":"`...)
	start := len(out)
	out = appendID(out, []byte(tc.Get("id").Raw))
	if len(out) == start {
		out = append(out, "toolu_"...)
		out = appendID(out, []byte(msgID))
		out = strconv.AppendInt(append(out, '_'), int64(i), 10)
	}
	out = append(out, `","name":`...)
	name := tc.Get("function.name").Str
	if orig, ok := names[name]; ok {
		name = orig
	}
	out = jsonstr.Quote(out, []byte(name))
	out = append(out, `,"input":`...)
	out = append(out, toolInput([]byte(tc.Get("function.arguments").Str))...)
	return append(out, '}')
}

// toolInput returns the input object for a call's arguments.
func toolInput(args []byte) []byte {
	first := firstNonSpace(args)
	if first < 0 {
		return []byte("{}")
	}
	if args[first] == '{' {
		if jsonscan.Valid(args) {
			return args
		}
		var t jsonTail
		t.feed(args)
		if fixed := t.appendRepair(append([]byte(nil), args...)); jsonscan.Valid(fixed) {
			return fixed
		}
	}
	return append(append([]byte(`{"`+rawArgumentsKey+`":`), jsonstr.Quote(nil, args)...), '}')
}
