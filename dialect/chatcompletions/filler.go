package chatcompletions

import (
	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/jsonscan"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/messagesapi"
)

// filler writes, escaped, the filler of an assistant message (see
// messagesapi.AppendFiller): its reasoning for a server that wants it
// back, when it has none of that server's.
func (w *requestWriter) filler(content jsonscan.Value) {
	w.scratch = messagesapi.AppendFiller(w.scratch[:0], content)
	w.Escaped(w.scratch)
}
