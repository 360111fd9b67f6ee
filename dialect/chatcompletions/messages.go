package chatcompletions

import (
	"github.com/caddy-llm-thinking/caddy-llm-thinking/block"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/jsonout"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/jsonscan"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/messagesapi"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/toolcall"
)

// requestWriter writes the messages of a chat-completions request.
type requestWriter struct {
	jsonout.Writer
	opts    RequestOptions
	names   map[string]string // client tool name -> the name the server gets
	n       int               // messages written
	pending toolcall.Pending  // tool calls of the last assistant message
	orphans toolcall.Orphans
	scratch []byte
	// gemini says the server serves a Gemini model (see details); env is
	// where the envelopes of reasoning_details are read, made on first use.
	gemini bool
	env    *envelopeBufs
}

func (w *requestWriter) open(role string) {
	if w.n > 0 {
		w.Raw(",")
	}
	w.n++
	w.Raw(`{"role":"` + role + `","content":`)
}

// system writes the system prompt and the text of system messages as one
// system message, when any has text.
func (w *requestWriter) system(prompt, msgs jsonscan.Value) {
	if !messagesapi.HasSystem(prompt, msgs) {
		return
	}
	w.open("system")
	w.Raw(`"`)
	messagesapi.WriteSystem(&w.Writer, prompt, msgs)
	w.Raw(`"}`)
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
// then the rest as one user message: the results of no call the server
// saw as text first, then the text and images.
func (w *requestWriter) user(content jsonscan.Value) {
	if content.Kind() == jsonscan.String {
		w.answerPending()
		w.open("user")
		w.Str(content)
		w.Raw("}")
		return
	}
	parts, orphans := 0, false
	firstText := false // the first part is text
	w.orphans.Reset()
	var name [32]byte
	k := -1
	for b := range content.Elements() {
		k++
		switch string(b.Get("type").Name(&name)) {
		case "tool_result":
			id := b.Get("tool_use_id")
			if _, ok := w.pending.Answer(id); !ok {
				// A result of no call the server saw: tool messages must
				// follow their call, so it is told as text.
				if w.orphans.Mark(k) {
					w.Held(w.orphans.Held())
				}
				orphans = true
				continue
			}
			w.open("tool")
			w.Raw(`"`)
			w.toolResultText(b)
			w.Raw(`","tool_call_id":`)
			w.Str(toolcall.IDOf(id))
			w.Raw("}")
			for c := range b.Get("content").Elements() {
				if c.Get("type").Is("image") || c.Get("type").Is("document") {
					parts++
				}
			}
		case "text":
			firstText = firstText || parts == 0
			parts++
		case "image", "document":
			parts++
		}
	}
	w.answerPending()
	if orphans {
		parts++
		firstText = true
	}
	if parts == 0 {
		return
	}
	w.open("user")
	if parts == 1 && firstText {
		w.Raw(`"`)
		if orphans {
			w.orphans.Write(&w.Writer, content)
		} else {
			for b := range content.Elements() {
				if b.Get("type").Is("text") {
					w.StrContent(b.Get("text"))
				}
			}
		}
		w.Raw(`"}`)
		return
	}
	w.Raw("[")
	n := 0
	sep := func() {
		if n > 0 {
			w.Raw(",")
		}
		n++
	}
	if orphans {
		sep()
		w.Raw(`{"type":"text","text":"`)
		w.orphans.Write(&w.Writer, content)
		w.Raw(`"}`)
	}
	for b := range w.orphans.Parts(content) {
		switch string(b.Get("type").Name(&name)) {
		case "text", "image", "document":
			sep()
			w.part(b)
		}
	}
	w.Raw("]}")
}

// part writes a text, image or document content part.
func (w *requestWriter) part(p jsonscan.Value) {
	if p.Get("type").Is("text") {
		w.Raw(`{"type":"text","text":`)
		w.Str(p.Get("text"))
		w.Raw("}")
		return
	}
	if p.Get("type").Is("document") {
		w.document(p)
		return
	}
	src := p.Get("source")
	w.Raw(`{"type":"image_url","image_url":{"url":`)
	if src.Get("type").Is("base64") {
		w.Raw(`"data:`)
		w.StrContent(src.Get("media_type"))
		w.Raw(";base64,")
		w.StrContent(src.Get("data"))
		w.Raw(`"`)
	} else {
		w.Str(src.Get("url"))
	}
	w.Raw("}}")
}

// toolResultText writes, escaped, the text of a tool result; an error
// says so, as the chat-completions API has no field for it.
func (w *requestWriter) toolResultText(b jsonscan.Value) {
	if b.Get("is_error").Bool() {
		w.Raw("Error: ")
	}
	messagesapi.WriteToolResult(&w.Writer, b)
}

// answerPending answers the calls left without a result (a turn the user
// interrupted): every tool call must be answered before the next message.
func (w *requestWriter) answerPending() {
	for _, id := range w.pending.Waiting {
		w.open("tool")
		w.Raw(`"(no result)","tool_call_id":`)
		w.Str(id)
		w.Raw("}")
	}
}

// assistant writes an assistant message: its text, its tool calls, and
// the server's own reasoning where the server reads it.
func (w *requestWriter) assistant(content jsonscan.Value) {
	if content.Kind() == jsonscan.String {
		w.open("assistant")
		w.Str(content)
		w.Raw("}")
		return
	}
	text, reasoning := false, false // some text, some of the server's reasoning
	thought := false                // the message holds a thinking block, the server's or not
	calls := 0
	var firstCall jsonscan.Value
	var name [32]byte
	for b := range content.Elements() {
		switch string(b.Get("type").Name(&name)) {
		case "text":
			t := b.Get("text")
			text = text || (t.Kind() == jsonscan.String && len(t) > 2)
		case "thinking":
			// Only this server's reasoning comes back; any other thinking
			// (llm_thinking strips it before) is never forwarded.
			thought = true
			t := b.Get("thinking")
			reasoning = reasoning || (block.IsReasoning(b.Get("signature")) && t.Kind() == jsonscan.String && len(t) > 2)
		case "tool_use":
			if calls == 0 {
				firstCall = b
			}
			calls++
		}
	}
	w.open("assistant")
	switch {
	case w.opts.Reasoning == ReasoningThinkTags && reasoning:
		// As the model wrote it: the splitter keeps the whitespace before
		// the closing tag, which goes back inside the tags.
		w.Raw(`"<think>\n`)
		start := len(w.Out)
		w.reasoningText(content)
		w.Out = trimEscapedSpace(w.Out, start)
		w.Raw(`\n</think>\n\n`)
		messagesapi.WriteJoined(&w.Writer, content)
		w.Raw(`"`)
	case !text && calls > 0:
		w.Raw("null")
	default:
		w.Raw(`"`)
		messagesapi.WriteJoined(&w.Writer, content)
		w.Raw(`"`)
	}
	if w.opts.Reasoning == ReasoningDetails && w.opts.Details.Key != nil {
		w.details(content, firstCall)
	} else {
		w.reasoning(content, reasoning, calls > 0 || thought)
	}
	if calls > 0 {
		w.Raw(`,"tool_calls":[`)
		i := 0
		for c := range content.Elements() {
			if !c.Get("type").Is("tool_use") {
				continue
			}
			if i > 0 {
				w.Raw(",")
			}
			i++
			id := c.Get("id")
			if w.pending.Add(id) {
				w.Held(w.pending.Held())
			}
			w.Raw(`{"id":`)
			w.Str(toolcall.IDOf(id))
			w.Raw(`,"type":"function","function":{"name":`)
			w.toolName(c.Get("name"))
			w.Raw(`,"arguments":`)
			args := []byte(c.Get("input"))
			if len(args) == 0 {
				args = []byte("{}")
			}
			w.Quote(args)
			w.Raw("}}")
		}
		w.Raw("]")
	}
	w.Raw("}")
}

// reasoningText writes, escaped, the server's own reasoning in content:
// the text of its thinking blocks, one after the other.
func (w *requestWriter) reasoningText(content jsonscan.Value) {
	for b := range content.Elements() {
		if b.Get("type").Is("thinking") && block.IsReasoning(b.Get("signature")) {
			w.StrContent(b.Get("thinking"))
		}
	}
}

// trimEscapedSpace cuts the spaces, tabs and line ends written escaped at
// the end of out, not before start.
func trimEscapedSpace(out []byte, start int) []byte {
	for len(out) > start {
		switch last := out[len(out)-1]; {
		case last == ' ':
			out = out[:len(out)-1]
			continue
		case (last == 'n' || last == 'r' || last == 't') && len(out)-2 >= start && out[len(out)-2] == '\\':
			// An escape only when the backslash is not itself escaped:
			// an odd run of backslashes.
			run := 0
			for i := len(out) - 2; i >= start && out[i] == '\\'; i-- {
				run++
			}
			if run%2 == 1 {
				out = out[:len(out)-2]
				continue
			}
		}
		return out
	}
	return out
}

// reasoning writes the reasoning field the server reads, a placeholder
// where it is needed and there is none.
func (w *requestWriter) reasoning(content jsonscan.Value, has, needed bool) {
	if !has && !needed {
		return
	}
	var field, end string
	switch w.opts.Reasoning {
	case ReasoningContent:
		field = `,"reasoning_content":"`
	case ReasoningField:
		field = `,"reasoning":"`
	case ReasoningDetails:
		if !has {
			return
		}
		field, end = `,"reasoning_details":[{"type":"reasoning.text","text":"`, "}]"
	default:
		return
	}
	w.Raw(field)
	if has {
		w.reasoningText(content)
	} else {
		w.filler(content)
	}
	w.Raw(`"` + end)
}
