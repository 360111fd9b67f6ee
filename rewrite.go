package llmthinking

import (
	"io"
	"net/http"
	"strconv"
	"unsafe"

	"go.uber.org/zap"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/answer/modelname"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/answer/thinktags"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/guard"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/messagesapi"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/state/budget"
)

// A successful answer can be rewritten on its way to the client: think
// tags in its text become thinking blocks (think_tags), and its model can
// become the one the client asked for (response_model requested). A stream
// goes through the rewriters piece by piece, the model rewriter first; what
// they write is what the client gets and what the observers read, so the
// blocks synthesized from tags are registered like any other. A JSON answer
// is held whole (up to max_response_size, in memory the budget counts),
// rewritten, and sent with its new length; a larger one, or one the budget
// has no room for, passes as it came.

// Values of ThinkTags and ResponseModel.
const (
	thinkTagsOff  = "off"
	thinkTagsOn   = "on"
	thinkTagsOpen = "open"

	responseModelUpstream  = "upstream"
	responseModelRequested = "requested"

	thinkTagsReplayTags     = "tags"
	thinkTagsReplayThinking = "thinking"
)

// readsTags reports whether think tags in answers become thinking blocks.
func (h *Handler) readsTags() bool { return h.ThinkTags == thinkTagsOn || h.ThinkTags == thinkTagsOpen }

// renamesModel reports whether answers name the model the client asked for.
func (h *Handler) renamesModel() bool { return h.ResponseModel == responseModelRequested }

// rewritesAnswers reports whether successful answers may be rewritten.
func (h *Handler) rewritesAnswers() bool { return h.readsTags() || h.renamesModel() }

// tagOptions are the thinktags options for the answers of backend.
func (h *Handler) tagOptions(backend string) thinktags.Options {
	return thinktags.Options{AssumeOpen: h.ThinkTags == thinkTagsOpen, Sign: thinktags.DefaultSign(backend)}
}

// rewriteAnswer sets up the rewriting of a successful answer whose body is
// in an encoding the rewriters can read.
func (o *observer) rewriteAnswer(mediaType string) {
	h := o.h
	renames := h.renamesModel() && o.requested != ""
	switch mediaType {
	case messagesapi.EventStream:
		var w io.Writer = relayWriter{o}
		if h.readsTags() {
			o.tags = thinktags.NewSSE(w, h.tagOptions(o.backend))
			w = o.tags
		}
		if renames {
			o.names = modelname.NewSSE(w, o.requested)
			w = o.names
		}
		o.head = w
	case messagesapi.JSON:
		if (h.readsTags() || renames) && o.answer != nil {
			o.whole, o.remaining = true, -1 // the length changes
		}
	}
}

// relayWriter is the end of the rewriters: what they write is observed and
// sent to the client.
type relayWriter struct{ o *observer }

func (w relayWriter) Write(p []byte) (int, error) { return w.o.relay(p) }

// writeRewritten sends p through the stream's rewriters. A panic there (a
// bug) is logged and the rest of the answer passes as it comes.
func (o *observer) writeRewritten(p []byte) (n int, err error) {
	defer guard.Recover(o.h.logger, "handler", o.backend, func() { o.head, n, err = nil, len(p), nil })
	return o.head.Write(p)
}

// closeRewriters lets the stream's rewriters write what they hold back
// and close the blocks they opened, when the answer ended.
func (o *observer) closeRewriters() {
	defer guard.Recover(o.h.logger, "handler", o.backend, func() { o.head = nil })
	if o.names != nil {
		o.names.Close()
	}
	if o.tags != nil {
		o.tags.Close()
	}
}

// holdWhole keeps p of a JSON answer held to be rewritten, and reports
// whether it did; an answer past max_response_size, or that the budget has
// no room for, is released as it came and passes from then on.
func (o *observer) holdWhole(p []byte) bool {
	err := o.answer.Append(p)
	if err == nil {
		return true
	}
	o.unobserved("answer to rewrite", err)
	o.ResponseWriter.WriteHeader(http.StatusOK) // with the upstream's own length, if any
	o.toClient(o.answer.Bytes())
	o.releaseAnswer()
	return false
}

// sendWhole sends the held JSON answer, rewritten, with its header and
// its new length. Its blocks register before the client has them, as for
// an answer passed as it came.
func (o *observer) sendWhole() {
	body, done := o.rewriteJSON(o.answer.Bytes())
	defer done()
	o.whole = false
	o.Header().Set("Content-Length", strconv.Itoa(len(body)))
	o.ResponseWriter.WriteHeader(http.StatusOK)
	o.registered = true
	o.registerBody(body)
	o.toClient(body)
}

// rewriteJSON returns the rewritten JSON answer, and a function that gives
// back the memory of the copy. Room for two copies is taken from the budget
// while the rewriters work; the copy sent counts until done gives it back.
// Without room, or on a panic (a bug), the answer is left as it came.
func (o *observer) rewriteJSON(body []byte) (out []byte, done func()) {
	// The copy is a body of its own: room reserved, then the rewritten
	// answer adopted in its place, or the room given back when the answer
	// is left as it came.
	copied, err := budget.ReservedBody(o.ticket, 2*int64(len(body)), false)
	if err != nil {
		o.unobserved("answer to rewrite", err)
		return body, func() {}
	}
	defer func() {
		if cap(out) == 0 || unsafe.SliceData(out) == unsafe.SliceData(body) {
			copied.Set(nil)
		} else {
			copied.Set(out)
		}
		done = copied.Close
	}()
	defer guard.Recover(o.h.logger, "handler", o.backend, func() { out = body })
	out = body
	if o.h.renamesModel() && o.requested != "" {
		out, o.upstreamModel = modelname.RewriteJSON(out, o.requested)
		o.renamed = true
	}
	if o.h.readsTags() {
		tagged, _, err := thinktags.RewriteJSON(out, o.h.tagOptions(o.backend))
		if err != nil {
			o.h.logger.Debug("thinking.tags_unread", zap.String("reason", err.Error()), zap.String("backend", o.backend))
		} else {
			out = tagged
		}
	}
	return out, nil
}

// answeredModel returns the model the backend answered under, before any
// rewriting.
func (o *observer) answeredModel() string {
	switch {
	case o.names != nil:
		return o.names.Upstream()
	case o.renamed:
		return o.upstreamModel
	case o.sse != nil:
		return o.sse.Model()
	}
	return o.jsonModel
}
