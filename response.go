package llmthinking

import (
	"mime"
	"net/http"
	"strconv"
	"strings"

	"go.uber.org/zap"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/streaming"
)

// narrowAcceptEncoding asks the upstream only for encodings the observer
// can read: identity for streams (compressing a token stream only adds
// latency) and gzip, when the client accepts it, for JSON responses, which
// the observer reads through decompression. br, zstd and deflate are never
// requested; a response that still arrives in one of them passes through
// unobserved.
func narrowAcceptEncoding(r *http.Request, stream bool) {
	if !stream && acceptsGzip(r.Header.Get("Accept-Encoding")) {
		r.Header.Set("Accept-Encoding", "gzip")
		return
	}
	r.Header.Set("Accept-Encoding", "identity")
}

func acceptsGzip(accept string) bool {
	for part := range strings.SplitSeq(accept, ",") {
		coding, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		if !strings.EqualFold(strings.TrimSpace(coding), "gzip") {
			continue
		}
		q, found := strings.CutPrefix(strings.TrimSpace(params), "q=")
		return !found || q != "0" && q != "0.0" && q != "0.00" && q != "0.000"
	}
	return false
}

// observer passes a response through untouched and at once, while showing
// a copy of every byte to the streaming observers so that the blocks the
// backend produced are registered. Blocks of a stream are registered when
// message_stop is read, before those bytes are written to the client, so the
// client's next request always finds them.
type observer struct {
	http.ResponseWriter
	h            *Handler
	backend      string
	conversation string

	wroteHeader bool
	sse         *streaming.SSE
	json        *streaming.JSON
	remaining   int64 // JSON bytes still expected, or -1 when unknown
	registered  bool
	failed      bool // the client is gone or a write failed
}

func (h *Handler) newObserver(w http.ResponseWriter, x exchange) *observer {
	return &observer{ResponseWriter: w, h: h, backend: x.backend, conversation: x.conversation, remaining: -1}
}

// WriteHeader chooses how to observe the body from the final status and
// headers. Informational statuses pass through without effect.
func (o *observer) WriteHeader(status int) {
	if status >= 100 && status < 200 && status != http.StatusSwitchingProtocols {
		o.ResponseWriter.WriteHeader(status)
		return
	}
	if !o.wroteHeader {
		o.wroteHeader = true
		o.start(status)
	}
	o.ResponseWriter.WriteHeader(status)
}

func (o *observer) start(status int) {
	if status != http.StatusOK {
		return
	}
	hdr := o.Header()
	mediaType, _, _ := mime.ParseMediaType(hdr.Get("Content-Type"))
	encoding := strings.ToLower(strings.TrimSpace(hdr.Get("Content-Encoding")))
	identity := encoding == "" || encoding == "identity"
	switch {
	case mediaType == "text/event-stream" && identity:
		o.sse = streaming.NewSSE(o.register)
	case mediaType == "application/json" && (identity || encoding == "gzip" || encoding == "x-gzip"):
		o.json = streaming.NewJSON(o.h.MaxBodySize, encoding)
		if n, err := strconv.ParseInt(hdr.Get("Content-Length"), 10, 64); err == nil {
			o.remaining = n
		}
	case mediaType == "text/event-stream" || mediaType == "application/json":
		// Only an upstream that ignored the narrowed Accept-Encoding gets here.
		o.h.logger.Warn("thinking.unobserved_response",
			zap.String("reason", "response is in an encoding llm_thinking cannot read"),
			zap.String("content_encoding", encoding), zap.String("backend", o.backend))
	}
}

// Write shows p to the observer, then writes it to the client.
func (o *observer) Write(p []byte) (int, error) {
	if !o.wroteHeader {
		o.WriteHeader(http.StatusOK)
	}
	if o.sse != nil || o.json != nil {
		o.observe(p)
	}
	n, err := o.ResponseWriter.Write(p)
	if err != nil {
		o.failed = true
	}
	return n, err
}

// observe feeds p to the observer. It must never break the response: a
// panic here is a bug in observation, so it is logged and observation stops.
func (o *observer) observe(p []byte) {
	defer func() {
		if v := recover(); v != nil {
			o.h.logger.Error("thinking.internal_error", zap.Any("panic", v), zap.String("backend", o.backend))
			o.sse, o.json = nil, nil
		}
	}()
	if o.sse != nil {
		o.sse.Write(p)
		return
	}
	o.json.Write(p)
	if o.remaining >= 0 {
		o.remaining -= int64(len(p))
		if o.remaining <= 0 {
			o.registerJSON()
		}
	}
}

// finish ends the observation when the handler returns; aborted is true
// when the response did not complete (an error or a panic upstream).
func (o *observer) finish(aborted bool) {
	aborted = aborted || o.failed
	defer func() {
		if v := recover(); v != nil {
			o.h.logger.Error("thinking.internal_error", zap.Any("panic", v), zap.String("backend", o.backend))
		}
	}()
	switch {
	case o.sse != nil:
		o.sse.Close(aborted)
	case o.json != nil && !aborted:
		o.registerJSON()
	}
}

func (o *observer) registerJSON() {
	if o.registered {
		return
	}
	o.registered = true
	blocks, err := o.json.Blocks()
	if err != nil {
		o.h.logger.Debug("thinking.unobserved_response", zap.String("reason", err.Error()), zap.String("backend", o.backend))
		return
	}
	o.register(blocks)
}

// register records the backend as the producer of each finished block.
func (o *observer) register(blocks []streaming.Block) {
	for _, b := range blocks {
		o.h.reg.Observe(o.conversation, o.backend, b.Key)
		if ce := o.h.logger.Check(zap.DebugLevel, "thinking.block_observed"); ce != nil {
			ce.Write(zap.String("backend", o.backend), zap.String("conversation", o.conversation),
				zap.Stringer("kind", b.Kind), zap.Int("index", b.Index), zap.Stringer("key", b.Key))
		}
	}
}

// FlushError flushes the client connection; reverse_proxy flushes every SSE
// event through it (via http.ResponseController). Asking the wrapped writer
// directly first spares a controller allocation per event.
func (o *observer) FlushError() error {
	switch w := o.ResponseWriter.(type) {
	case interface{ FlushError() error }:
		return w.FlushError()
	case http.Flusher:
		w.Flush()
		return nil
	}
	return http.NewResponseController(o.ResponseWriter).Flush()
}

// Flush serves callers that still use http.Flusher.
func (o *observer) Flush() { _ = o.FlushError() }

// Unwrap gives http.ResponseController the underlying writer, for
// deadlines, hijacking and full-duplex.
func (o *observer) Unwrap() http.ResponseWriter { return o.ResponseWriter }

// Interface guards
var (
	_ http.ResponseWriter = (*observer)(nil)
	_ http.Flusher        = (*observer)(nil)
)
