package chatcompletions

import (
	"bytes"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/block"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/jsonscan"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/jsonstr"
)

// reasoningPlaceholder stands for the reasoning of a tool call message
// that has none (a call another backend made), and of a message whose
// thinking is not this server's (the empty block llm_thinking gives a
// message for a server that wants thinking back on every one, DeepSeek V4):
// DeepSeek and Kimi refuse such a message without the field, and some
// servers read an empty string as missing.
const reasoningPlaceholder = " "

// requestWriter writes the messages of a chat-completions request.
type requestWriter struct {
	opts    RequestOptions
	names   map[string]string // client tool name -> the name the server gets
	out     []byte
	n       int      // messages written
	pending []string // tool calls of the last assistant message not answered yet
}

func (w *requestWriter) open(role string) {
	if w.n > 0 {
		w.out = append(w.out, ',')
	}
	w.n++
	w.out = append(w.out, `{"role":"`+role+`","content":`...)
}

// system writes the system prompt, when there is one.
func (w *requestWriter) system(text []byte) {
	if len(text) > 0 {
		w.open("system")
		w.out = append(jsonstr.Quote(w.out, text), '}')
	}
}

// joinText returns a string, or the text of text blocks joined by a blank
// line.
func joinText(v jsonscan.Value) []byte {
	if v.Kind() == jsonscan.String {
		return v.Text()
	}
	var text []byte
	for b := range v.Elements() {
		if !b.Get("type").Is("text") {
			continue
		}
		if len(text) > 0 {
			text = append(text, "\n\n"...)
		}
		text = append(text, b.Get("text").Text()...)
	}
	return text
}

func (w *requestWriter) message(m jsonscan.Value) {
	var name [32]byte
	switch string(m.Get("role").Name(&name)) {
	case "system":
		// Joined into the first message (see TranslateRequest).
	case "assistant":
		w.answerPending()
		w.assistant(m.Get("content"))
	default:
		w.user(m.Get("content"))
	}
}

// user writes a user message: its tool results first, as tool messages,
// then the rest as one user message.
func (w *requestWriter) user(content jsonscan.Value) {
	if content.Kind() == jsonscan.String {
		w.answerPending()
		w.open("user")
		w.out = append(jsonstr.Quote(w.out, content.Text()), '}')
		return
	}
	var parts []jsonscan.Value
	var orphans []byte
	var name [32]byte
	for b := range content.Elements() {
		switch string(b.Get("type").Name(&name)) {
		case "tool_result":
			id := b.Get("tool_use_id").Str()
			if !w.answer(id) {
				// A result of no call the server saw: tool messages must
				// follow their call, so it is told as text.
				orphans = append(orphans, "Tool result "+id+":\n"...)
				orphans = append(orphans, toolResultText(b)...)
				orphans = append(orphans, "\n\n"...)
				continue
			}
			w.open("tool")
			w.out = jsonstr.Quote(w.out, toolResultText(b))
			w.out = append(w.out, `,"tool_call_id":`...)
			w.out = append(jsonstr.Quote(w.out, []byte(id)), '}')
			for c := range b.Get("content").Elements() {
				if c.Get("type").Is("image") {
					parts = append(parts, c)
				}
			}
		case "text", "image":
			parts = append(parts, b)
		}
	}
	w.answerPending()
	if len(orphans) > 0 {
		parts = append([]jsonscan.Value{append(jsonstr.Quote([]byte(`{"type":"text","text":`), orphans), '}')}, parts...)
	}
	if len(parts) == 0 {
		return
	}
	w.open("user")
	if len(parts) == 1 && parts[0].Get("type").Is("text") {
		w.out = append(jsonstr.Quote(w.out, parts[0].Get("text").Text()), '}')
		return
	}
	w.out = append(w.out, '[')
	for i, p := range parts {
		if i > 0 {
			w.out = append(w.out, ',')
		}
		w.out = appendPart(w.out, p)
	}
	w.out = append(w.out, "]}"...)
}

// appendPart appends a text or image content part.
func appendPart(out []byte, p jsonscan.Value) []byte {
	if p.Get("type").Is("text") {
		out = append(out, `{"type":"text","text":`...)
		return append(jsonstr.Quote(out, p.Get("text").Text()), '}')
	}
	src := p.Get("source")
	url := src.Get("url").Str()
	if src.Get("type").Is("base64") {
		url = "data:" + src.Get("media_type").Str() + ";base64," + src.Get("data").Str()
	}
	out = append(out, `{"type":"image_url","image_url":{"url":`...)
	return append(jsonstr.Quote(out, []byte(url)), "}}"...)
}

// toolResultText is the text of a tool result; an error says so, as the
// chat-completions API has no field for it.
func toolResultText(b jsonscan.Value) []byte {
	var text []byte
	if b.Get("is_error").Bool() {
		text = append(text, "Error: "...)
	}
	c := b.Get("content")
	if c.Kind() == jsonscan.String {
		return append(text, c.Text()...)
	}
	first := true
	for p := range c.Elements() {
		if !p.Get("type").Is("text") {
			continue
		}
		if !first {
			text = append(text, "\n\n"...)
		}
		first = false
		text = append(text, p.Get("text").Text()...)
	}
	return text
}

// answer marks the call id answered, and reports whether the last
// assistant message made it.
func (w *requestWriter) answer(id string) bool {
	for i, p := range w.pending {
		if p == id {
			w.pending = append(w.pending[:i], w.pending[i+1:]...)
			return true
		}
	}
	return false
}

// answerPending answers the calls left without a result (a turn the user
// interrupted): every tool call must be answered before the next message.
func (w *requestWriter) answerPending() {
	for _, id := range w.pending {
		w.open("tool")
		w.out = append(w.out, `"(no result)","tool_call_id":`...)
		w.out = append(jsonstr.Quote(w.out, []byte(id)), '}')
	}
	w.pending = w.pending[:0]
}

// assistant writes an assistant message: its text, its tool calls, and
// the server's own reasoning where the server reads it.
func (w *requestWriter) assistant(content jsonscan.Value) {
	if content.Kind() == jsonscan.String {
		w.open("assistant")
		w.out = append(jsonstr.Quote(w.out, content.Text()), '}')
		return
	}
	var text, reasoning []byte
	var calls []jsonscan.Value
	thought := false // the message holds a thinking block, the server's or not
	var name [32]byte
	for b := range content.Elements() {
		switch string(b.Get("type").Name(&name)) {
		case "text":
			if len(text) > 0 {
				text = append(text, "\n\n"...)
			}
			text = append(text, b.Get("text").Text()...)
		case "thinking":
			// Only this server's reasoning comes back; any other thinking
			// (llm_thinking strips it before) is never forwarded.
			thought = true
			if block.IsReasoning(b.Get("signature")) {
				reasoning = append(reasoning, b.Get("thinking").Text()...)
			}
		case "tool_use":
			calls = append(calls, b)
		}
	}
	w.open("assistant")
	switch {
	case w.opts.Reasoning == ReasoningThinkTags && len(reasoning) > 0:
		// As the model wrote it: the splitter keeps the whitespace before
		// the closing tag, which goes back inside the tags.
		tagged := append(append([]byte("<think>\n"), bytes.TrimRight(reasoning, " \t\r\n")...), "\n</think>\n\n"...)
		w.out = jsonstr.Quote(w.out, append(tagged, text...))
	case len(text) == 0 && len(calls) > 0:
		w.out = append(w.out, "null"...)
	default:
		w.out = jsonstr.Quote(w.out, text)
	}
	w.reasoning(reasoning, len(calls) > 0 || thought)
	if len(calls) > 0 {
		w.out = append(w.out, `,"tool_calls":[`...)
		for i, c := range calls {
			if i > 0 {
				w.out = append(w.out, ',')
			}
			id := c.Get("id").Str()
			w.pending = append(w.pending, id)
			w.out = append(w.out, `{"id":`...)
			w.out = jsonstr.Quote(w.out, []byte(id))
			w.out = append(w.out, `,"type":"function","function":{"name":`...)
			w.out = jsonstr.Quote(w.out, []byte(w.toolName(c.Get("name").Str())))
			w.out = append(w.out, `,"arguments":`...)
			args := []byte(c.Get("input"))
			if len(args) == 0 {
				args = []byte("{}")
			}
			w.out = append(jsonstr.Quote(w.out, args), "}}"...)
		}
		w.out = append(w.out, ']')
	}
	w.out = append(w.out, '}')
}

// reasoning writes the reasoning field the server reads, a placeholder
// where it is needed and there is none.
func (w *requestWriter) reasoning(text []byte, needed bool) {
	if len(text) == 0 && needed {
		text = []byte(reasoningPlaceholder)
	}
	if len(text) == 0 {
		return
	}
	switch w.opts.Reasoning {
	case ReasoningContent:
		w.out = jsonstr.Quote(append(w.out, `,"reasoning_content":`...), text)
	case ReasoningField:
		w.out = jsonstr.Quote(append(w.out, `,"reasoning":`...), text)
	case ReasoningDetails:
		if string(text) != reasoningPlaceholder {
			w.out = jsonstr.Quote(append(w.out, `,"reasoning_details":[{"type":"reasoning.text","text":`...), text)
			w.out = append(w.out, "}]"...)
		}
	}
}
