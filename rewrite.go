package llmthinking

import (
	"io"
	"net/http"
	"strconv"

	"go.uber.org/zap"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/modelname"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/thinktags"
)

// A successful answer can be rewritten on its way to the client: think
// tags in its text become thinking blocks (think_tags), and its model can
// become the one the client asked for (response_model requested). A stream
// goes through the rewriters piece by piece, the model rewriter first; what
// they write is what the client gets and what the observers read, so the
// blocks synthesized from tags are registered like any other. A JSON answer
// is held whole (up to max_response_size), rewritten, and sent with its new
// length; a larger one passes as it came.

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
	case "text/event-stream":
		var w io.Writer = passWriter{o}
		if h.readsTags() {
			o.tags = thinktags.NewSSE(w, h.tagOptions(o.backend))
			w = o.tags
		}
		if renames {
			o.names = modelname.NewSSE(w, o.requested)
			w = o.names
		}
		o.head = w
	case "application/json":
		if h.readsTags() || renames {
			o.whole, o.remaining = true, -1 // the length changes
		}
	}
}

// passWriter is the end of the rewriters: what they write is observed and
// sent to the client.
type passWriter struct{ o *observer }

func (w passWriter) Write(p []byte) (int, error) { return w.o.pass(p) }

// writeRewritten sends p through the stream's rewriters. A panic there (a
// bug) is logged and the rest of the answer passes as it comes.
func (o *observer) writeRewritten(p []byte) (n int, err error) {
	defer recoverBug(o.h.logger, o.backend, func() { o.head, n, err = nil, len(p), nil })
	return o.head.Write(p)
}

// closeRewriters lets the stream's rewriters write what they hold back
// and close the blocks they opened, when the answer ended.
func (o *observer) closeRewriters() {
	defer recoverBug(o.h.logger, o.backend, func() { o.head = nil })
	if o.names != nil {
		o.names.Close()
	}
	if o.tags != nil {
		o.tags.Close()
	}
}

// holdWhole keeps p of a JSON answer held to be rewritten, and reports
// whether it did; an answer past max_response_size is released as it came
// and passes from then on.
func (o *observer) holdWhole(p []byte) bool {
	if int64(len(o.wholeBody)+len(p)) <= o.h.MaxResponseSize {
		o.wholeBody = append(o.wholeBody, p...)
		return true
	}
	o.releaseWhole(false)
	return false
}

// releaseWhole sends the held JSON answer, rewritten when rewrite is true,
// with its header and its new length.
func (o *observer) releaseWhole(rewrite bool) {
	body := o.wholeBody
	o.whole, o.wholeBody = false, nil
	if rewrite {
		body = o.rewriteJSON(body)
	}
	o.Header().Set("Content-Length", strconv.Itoa(len(body)))
	o.ResponseWriter.WriteHeader(http.StatusOK)
	// Its blocks register as its last byte is observed, before the client
	// has them, as for an answer passed as it came.
	o.remaining = int64(len(body))
	o.pass(body)
}

// rewriteJSON returns the rewritten JSON answer. A panic (a bug) leaves it
// as it came.
func (o *observer) rewriteJSON(body []byte) (out []byte) {
	defer recoverBug(o.h.logger, o.backend, func() { out = body })
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
	return out
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
	case o.json != nil:
		return o.json.Model()
	}
	return ""
}
