package responses

import (
	"cmp"
	"strconv"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/jsonout"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/jsonscan"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/messagesapi"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/toolcall"
)

// TranslateRequest translates a Messages request body into a Responses
// request with store false: the system prompt and system messages become
// instructions; messages become input items (message, function_call,
// function_call_output), each reasoning item a thinking block's envelope
// carries back in its place, before the item it led to; tools become
// function tools (strict off, schemas as given), tool_choice and
// disable_parallel_tool_use the same, max_tokens max_output_tokens (no
// fewer than MinOutputTokens), the thinking config reasoning (effort and
// summary, the encrypted content included), output_config's format
// text.format. Nothing only the Messages API defines is forwarded, nor
// temperature or top_p, which reasoning models refuse. A body that is no
// Messages request is messagesapi.ErrNotMessages.
func TranslateRequest(body []byte, opts RequestOptions) (Translated, error) {
	w := requestWriter{Writer: jsonout.Writer{Grow: opts.Grow, Hold: opts.Hold}, opts: opts}
	return messagesapi.Translate(body, opts.ThinkingOff, &w.Writer, w.request)
}

// request writes the translation of r, which t tells of, for the model
// the options name, or else the one asked for.
func (w *requestWriter) request(r messagesapi.Request, t messagesapi.Translated) {
	w.Raw(`{"model":`)
	w.Quote([]byte(cmp.Or(w.opts.Model, t.Model)))
	w.Raw(`,"input":[`)
	w.input(r.Messages)
	w.Raw("]")
	if messagesapi.HasSystem(r.System, r.Messages) {
		w.Raw(`,"instructions":"`)
		messagesapi.WriteSystem(&w.Writer, r.System, r.Messages)
		w.Raw(`"`)
	}
	messagesapi.WriteTools(&w.Writer, r.Tools, &toolForm, w.Str, nil)
	messagesapi.ReadToolChoice(r.ToolChoice).Write(&w.Writer, &choiceForm, w.Str)
	w.maxOutputTokens(r.CappedMaxTokens(w.opts.MaxTokens))
	w.reasoning(r.Thinking, r.OutputConfig)
	w.textFormat(r.OutputConfig)
	w.Raw(`,"store":false`)
	if t.Stream {
		w.Raw(`,"stream":true`)
	}
	w.Raw("}")
}

// requestWriter writes a Responses request.
type requestWriter struct {
	jsonout.Writer
	opts RequestOptions
	n    int // input items written

	// The function calls waiting for their outputs: their ids, and by
	// place their call ids.
	pending toolcall.Pending
	callIDs []jsonscan.Value
	orphans toolcall.Orphans
	scratch []byte // a thinking block's text, a call id
	sigBuf  []byte // a thinking block's signature
	item    item
}

// input writes the messages as input items.
func (w *requestWriter) input(msgs jsonscan.Value) {
	var role [32]byte
	for m := range msgs.Elements() {
		switch string(m.Get("role").Name(&role)) {
		case "system":
			// In instructions.
		case "assistant":
			w.outputsPending()
			w.assistant(m.Get("content"))
		default:
			w.user(m.Get("content"))
		}
	}
	w.outputsPending()
}

// next starts an input item.
func (w *requestWriter) next() {
	if w.n > 0 {
		w.Raw(",")
	}
	w.n++
}

// MinOutputTokens is the least max_output_tokens the Responses API takes
// ("Invalid 'max_output_tokens': integer below minimum value. Expected a
// value >= 16, but got 1 instead.").
const MinOutputTokens = 16

// maxOutputTokens writes max_tokens, n as capped, as max_output_tokens,
// raised to the API's least: Claude Code asks for max_tokens 1 to check
// its quota, warm up and test a key, which the Messages API takes and the
// Responses API refuses.
func (w *requestWriter) maxOutputTokens(n int64) {
	if n > 0 {
		n = max(n, MinOutputTokens)
		w.Raw(`,"max_output_tokens":`)
		w.Raw(strconv.FormatInt(n, 10))
	}
}

// reasoning writes the reasoning config of a request that thinks: its
// effort, the summary asked for, and the encrypted content included, so
// that the reasoning can come back. A request that does not think gets the
// model's default, and no encrypted content: models that do not reason
// refuse it.
func (w *requestWriter) reasoning(thinking, outputConfig jsonscan.Value) {
	if !messagesapi.Thinks(thinking) {
		return
	}
	w.Raw(`,"reasoning":{"effort":"` + messagesapi.Effort(thinking, outputConfig) + `"`)
	switch s := w.opts.Summary; s {
	case SummaryNone:
	case SummaryConcise, SummaryDetailed:
		w.Raw(`,"summary":"` + s + `"`)
	default:
		w.Raw(`,"summary":"auto"`)
	}
	w.Raw(`},"include":["reasoning.encrypted_content"]`)
}

// textFormat writes output_config's JSON Schema format as text.format.
func (w *requestWriter) textFormat(outputConfig jsonscan.Value) {
	f := outputConfig.Get("format")
	schema := f.Get("schema")
	if !f.Get("type").Is("json_schema") || schema.Kind() != jsonscan.Object {
		return
	}
	w.Raw(`,"text":{"format":{"type":"json_schema","name":"output","strict":false,"schema":`)
	w.RawBytes(schema)
	w.Raw("}}")
}
