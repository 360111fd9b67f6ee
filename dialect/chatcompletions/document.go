package chatcompletions

import "github.com/caddy-llm-thinking/caddy-llm-thinking/internal/jsonscan"

// Documents (the PDF Claude Code's Read tool returns in a tool result, or
// one attached to a message) go as chat completions takes a file: a file
// part, {"type":"file","file":{"filename","file_data":"data:...;base64,..."}},
// in the user message (OpenAI's chat completions and OpenRouter take PDFs
// so; a tool message holds text only, so a result's document follows the
// tool messages, as its images do). A text document goes as a text part,
// one by URL as a text part naming it (chat completions takes no file by
// URL).

// document writes a document block as a content part.
func (w *requestWriter) document(p jsonscan.Value) {
	src := p.Get("source")
	var typ [32]byte
	switch string(src.Get("type").Name(&typ)) {
	case "base64":
		w.Raw(`{"type":"file","file":{"filename":`)
		if title := p.Get("title"); title.Kind() == jsonscan.String && len(title) > 2 {
			w.Str(title)
		} else {
			w.Raw(`"document.pdf"`)
		}
		w.Raw(`,"file_data":"data:`)
		w.StrContent(src.Get("media_type"))
		w.Raw(";base64,")
		w.StrContent(src.Get("data"))
		w.Raw(`"}}`)
	case "text":
		w.Raw(`{"type":"text","text":`)
		w.Str(src.Get("data"))
		w.Raw("}")
	case "url":
		w.Raw(`{"type":"text","text":"[document: `)
		w.StrContent(src.Get("url"))
		w.Raw(`]"}`)
	default:
		w.Raw(`{"type":"text","text":"[document]"}`)
	}
}
