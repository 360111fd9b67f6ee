package llmthinking

import (
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"go.uber.org/zap"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/answer/modelname"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/answer/observe"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/answer/thinktags"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/block"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/guard"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/header"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/messagesapi"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/request/policy"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/state/budget"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/state/registry"
)

// observer passes a response through untouched and at once, while showing
// a copy of every byte to the streaming observers so that the blocks the
// backend produced are registered. Blocks of a stream are registered when
// message_stop is read, before those bytes are written to the client, so the
// client's next request always finds them.
//
// With hold set, a small JSON 400 (or a FastAPI server's 422) is held back
// instead, so that the handler can look at it: a refusal for thinking is
// replayed, anything else is released to the client as it came.
type observer struct {
	caddyhttp.ResponseWriterWrapper
	h            *Handler
	repl         *caddy.Replacer
	backend      string // "" until the response names the upstream
	conversation string
	thread       registry.ThreadID // of the request, whose blocks the answer's are
	requested    string            // the model the request asked for
	blocks       bool              // register the blocks of the response
	hold         bool              // hold a small JSON 400 or 422 back
	holdMoves    bool              // hold back an answer that moves the request on (see failover)

	wroteHeader bool
	status      int // the final status the upstream answered
	sse         *observe.SSE
	// answer holds a JSON answer to read its blocks; nil when the answer is
	// not read, or no longer (it did not fit).
	answer     *budget.Answer
	encoding   string // the answer's Content-Encoding
	jsonModel  string // the model the JSON answer names, once read
	remaining  int64  // JSON bytes still expected, or -1 when unknown
	registered bool
	failed     bool // the client is gone or a write failed

	held       *budget.Answer // a refusal being held back, nil when none
	heldStatus int            // its status

	// Rewriting of a successful answer (see rewrite.go).
	head          io.Writer      // the first rewriter of a stream, or nil
	tags          *thinktags.SSE // think tags to thinking blocks
	names         *modelname.SSE // the model asked for
	whole         bool           // the JSON answer is held whole, in answer, to be rewritten
	renamed       bool           // the JSON answer's model was rewritten
	upstreamModel string         // the model it named before
	ticket        *budget.Ticket // the request's account, for what is held

	flush func() error // flushes the client's writer (see flusherOf)
}

// refusalStatus reports whether an answer of this status may refuse a
// request for its thinking: the Messages API's 400, and the 422 of servers
// that validate with FastAPI (see messagesapi.DetailMessage).
func refusalStatus(status int) bool {
	return status == http.StatusBadRequest || status == http.StatusUnprocessableEntity
}

// maxHeld bounds the refusals held back; the API's error envelopes are a
// few hundred bytes.
const maxHeld = 64 << 10

func (h *Handler) newObserver(w http.ResponseWriter, t *budget.Ticket, repl *caddy.Replacer, backend string, plan *policy.Plan,
	blocks, hold, holdMoves bool) *observer {
	return &observer{ResponseWriterWrapper: caddyhttp.ResponseWriterWrapper{ResponseWriter: w}, h: h, ticket: t, repl: repl,
		backend: backend, conversation: plan.Conversation, thread: plan.Thread, requested: plan.Model, blocks: blocks, hold: hold,
		holdMoves: holdMoves, remaining: -1, flush: flusherOf(w)}
}

// flusherOf returns how to flush w: its own FlushError, its Flush, or
// through an http.ResponseController, which finds one it wraps.
func flusherOf(w http.ResponseWriter) func() error {
	switch f := w.(type) {
	case interface{ FlushError() error }:
		return f.FlushError
	case http.Flusher:
		return func() error { f.Flush(); return nil }
	}
	rc := http.NewResponseController(w)
	return rc.Flush
}

// WriteHeader chooses how to observe the body from the final status and
// headers. Informational statuses pass through without effect.
func (o *observer) WriteHeader(status int) {
	if status >= 100 && status < 200 && status != http.StatusSwitchingProtocols {
		o.ResponseWriter.WriteHeader(status)
		return
	}
	if !o.wroteHeader {
		o.wroteHeader, o.status = true, status
		o.start(status)
	}
	if o.held == nil && !o.whole {
		o.ResponseWriter.WriteHeader(status)
	}
}

func (o *observer) start(status int) {
	if o.backend == "" {
		o.answeredBy(status)
	}
	hdr := o.Header()
	mediaType := messagesapi.MediaType(hdr)
	length := int64(-1)
	if v := header.First(hdr, header.ContentLength); v != "" {
		if n, err := strconv.ParseInt(v, 10, 64); err == nil {
			length = n
		}
	}
	if refusalStatus(status) && o.hold && mediaType == messagesapi.JSON || o.holdMoves && o.h.failover.MovesOn(status) {
		o.held, o.heldStatus = o.holdAnswer(maxHeld, length), status
		return
	}
	if status != http.StatusOK || !o.blocks || o.backend == "" {
		return
	}
	encoding := header.First(hdr, header.ContentEncoding)
	if encoding != "" {
		encoding = strings.ToLower(strings.TrimSpace(encoding))
	}
	identity := encoding == "" || encoding == "identity"
	switch {
	case mediaType == messagesapi.EventStream && identity:
		o.sse = observe.NewSSE(func(blocks []block.Observed) { o.register(blocks, o.sse.Usage()) })
	case mediaType == messagesapi.JSON && (identity || encoding == "gzip" || encoding == "x-gzip"):
		o.answer, o.encoding, o.remaining = o.holdAnswer(o.h.MaxResponseSize, length), encoding, length
	case mediaType == messagesapi.EventStream || mediaType == messagesapi.JSON:
		// Only an upstream that ignored the narrowed Accept-Encoding gets here.
		o.h.logger.Warn("thinking.unobserved_response",
			zap.String("reason", "response is in an encoding llm_thinking cannot read"),
			zap.String("content_encoding", encoding), zap.String("backend", o.backend))
	}
	if identity && o.h.rewritesAnswers() {
		o.rewriteAnswer(mediaType)
	}
}

// answeredBy learns the backend of a request sent without one: the
// upstream reverse_proxy dialed, as its placeholder names it. A 200 makes it
// the backend that last answered the conversation.
func (o *observer) answeredBy(status int) {
	o.backend = policy.BoundedID(o.repl.ReplaceAll("{http.reverse_proxy.upstream.hostport}", ""))
	if o.backend == "" || status != http.StatusOK || !o.blocks {
		return
	}
	if switched, previous := o.h.policy.Registry.Served(o.conversation, o.backend); switched {
		counters.Switch(o.backend)
		o.h.logger.Info("thinking.backend_switch",
			zap.String("from", previous), zap.String("to", o.backend), zap.String("conversation", o.conversation))
	}
}

// Write shows p to the observer, then writes it to the client.
func (o *observer) Write(p []byte) (int, error) {
	if !o.wroteHeader {
		o.WriteHeader(http.StatusOK)
	}
	if o.held != nil {
		err := o.held.Append(p)
		if err == nil {
			return len(p), nil
		}
		o.unobserved("400 answer", err)
		if err := o.sendHeld(); err != nil {
			return 0, err
		}
	}
	switch {
	case o.whole && o.holdWhole(p):
		return len(p), nil
	case o.head != nil:
		return o.writeRewritten(p)
	}
	return o.relay(p)
}

// relay shows p to the readers of the answer, then writes it to the client.
func (o *observer) relay(p []byte) (int, error) {
	if o.sse != nil || o.answer != nil {
		o.observe(p)
	}
	return o.toClient(p)
}

// toClient writes p to the client.
func (o *observer) toClient(p []byte) (int, error) {
	n, err := o.ResponseWriter.Write(p)
	if err != nil {
		o.failed = true
	}
	return n, err
}

// observe feeds p to the observer. It must never break the response: a
// panic here is a bug in observation, so observation stops.
func (o *observer) observe(p []byte) {
	defer o.recoverObserving()
	if o.sse != nil {
		o.sse.Write(p)
		return
	}
	if err := o.answer.Append(p); err != nil {
		o.unobserved("answer", err)
		o.releaseAnswer()
		return
	}
	if o.remaining >= 0 {
		o.remaining -= int64(len(p))
		if o.remaining <= 0 {
			o.registerJSON()
		}
	}
}

// recoverObserving, deferred by observe, stops the observation on a panic
// (see guard.Recovered); it is called for every Write of an answer.
func (o *observer) recoverObserving() {
	if v := recover(); v != nil {
		guard.Recovered(v, o.h.logger, "handler", o.backend, o.stopObserving)
	}
}

// stopObserving ends the reading of the answer: a panic there (a bug)
// stops it, the answer goes on to the client.
func (o *observer) stopObserving() {
	o.sse = nil
	o.releaseAnswer()
}

// releaseAnswer stops holding the JSON answer and gives its memory back.
func (o *observer) releaseAnswer() {
	o.answer.Release()
	o.answer, o.whole = nil, false
}

// releaseAll gives back the memory of everything held, when the response is
// done with; the handler defers it.
func (o *observer) releaseAll() {
	o.releaseAnswer()
	o.held.Release()
	o.held = nil
}

// holdAnswer returns an empty held answer of at most limit bytes, with
// room for length bytes when that is known (>= 0); nil when it would not
// fit, and the answer then passes unread.
func (o *observer) holdAnswer(limit, length int64) *budget.Answer {
	a, err := budget.NewAnswer(o.ticket, limit, max(length, 0))
	if err != nil {
		o.unobserved("answer", err)
		return nil
	}
	return a
}

// unobserved logs, and counts when the budget is why, an answer passed to
// the client as it came.
func (o *observer) unobserved(what string, err error) {
	if errors.Is(err, budget.ErrNoRoom) {
		o.ticket.Unobserved()
	}
	o.h.logger.Debug("thinking.unobserved_response", zap.String("reason", what+": "+err.Error()), zap.String("backend", o.backend))
}

// end ends the observation when the handler returns; aborted is true
// when the response did not complete (an error or a panic upstream).
func (o *observer) end(aborted bool) {
	defer func() {
		o.releaseAnswer()
		if aborted {
			o.releaseAll()
		}
	}()
	defer guard.Recover(o.h.logger, "handler", o.backend, o.stopObserving)
	aborted = aborted || o.failed
	switch {
	case o.whole && !aborted:
		o.sendWhole()
	case o.head != nil && !aborted:
		o.closeRewriters()
	}
	aborted = aborted || o.failed
	switch {
	case o.sse != nil:
		o.sse.Close(aborted)
	case o.answer != nil && !aborted:
		o.registerJSON()
	}
}

// registerJSON reads the blocks of the JSON answer held, registers them
// and lets go of the answer.
func (o *observer) registerJSON() {
	if o.registered {
		return
	}
	o.registered = true
	defer o.releaseAnswer()
	body, err := observe.Decoded(o.answer, o.encoding, o.h.MaxResponseSize)
	if err != nil {
		o.unobserved("answer", err)
		return
	}
	if body != o.answer {
		defer body.Release()
	}
	o.registerBody(body.Bytes())
}

// registerBody registers the blocks of a whole JSON answer.
func (o *observer) registerBody(body []byte) {
	m, err := observe.ReadMessage(body)
	o.jsonModel = m.Model
	if err != nil {
		o.h.logger.Debug("thinking.unobserved_response", zap.String("reason", err.Error()), zap.String("backend", o.backend))
		return
	}
	o.register(m.Blocks, m.Usage)
}

// register records the backend as the producer of each finished block,
// counts the tokens the answer used, and reports the conversation's first
// answer under another model name.
func (o *observer) register(blocks []block.Observed, usage observe.Usage) {
	if o.backend == "" {
		return
	}
	counters.Tokens(o.backend, o.requested, usage)
	o.checkModel()
	o.h.logLearned(o.h.policy.Register(o.thread, o.backend, o.requested, blocks))
	counters.Observed(o.backend, len(blocks))
	for _, b := range blocks {
		if ce := o.h.logger.Check(zap.DebugLevel, "thinking.block_observed"); ce != nil {
			ce.Write(zap.String("backend", o.backend), zap.String("conversation", o.conversation),
				zap.Stringer("kind", b.Kind), zap.Int("index", b.Index), zap.Stringer("key", b.Key))
		}
	}
}

// checkModel logs thinking.model_mismatch for an answer under another model
// name than the one asked for: Claude Code replays thinking only from
// messages of the model it asks for, so such a backend silently loses its
// own reasoning on every turn. A backend's first for a pair of names is a
// warning; each conversation's first after it, a debug line.
func (o *observer) checkModel() {
	answered := o.answeredModel()
	conversation, pair := o.h.policy.Mismatches.First(o.conversation, o.backend, o.requested, answered)
	level := zap.DebugLevel
	switch {
	case pair:
		level = zap.WarnLevel
	case !conversation:
		return
	}
	if ce := o.h.logger.Check(level, "thinking.model_mismatch"); ce != nil {
		ce.Write(zap.String("conversation", o.conversation), zap.String("backend", o.backend),
			zap.String("requested", o.requested), zap.String("answered", answered),
			zap.String("hint", "the client keeps thinking only from answers under the model it asked for; see response_model"))
	}
}

// refusal returns the upstream's message when the response held back is a
// refusal for thinking, which is then dropped; anything else held back
// goes to the client now.
func (o *observer) refusal() (string, bool, error) {
	if o.held == nil {
		return "", false, nil
	}
	if !refusalStatus(o.heldStatus) {
		return "", false, o.sendHeld()
	}
	body, err := observe.Decoded(o.held, o.Header().Get("Content-Encoding"), maxHeld)
	if err == nil {
		msg, ok := policy.RefusalMessage(body.Bytes())
		if body != o.held {
			body.Release()
		}
		if ok {
			o.held.Release()
			o.held = nil
			return msg, true, nil
		}
	}
	return "", false, o.sendHeld()
}

// movedOn reports whether the answer moves the request on to another
// backend (see failOver): an answer held back for its status, dropped now,
// or a connection that could not be made, reverse_proxy's error before
// anything was written.
func (o *observer) movedOn(err error) (outcome, bool) {
	if !o.holdMoves {
		return outcome{}, false
	}
	if o.held != nil && !refusalStatus(o.heldStatus) {
		moved := outcome{moved: o.heldStatus, retryAfter: o.Header().Get("Retry-After")}
		o.held.Release()
		o.held = nil
		return moved, true
	}
	var he caddyhttp.HandlerError
	if err != nil && !o.wroteHeader && errors.As(err, &he) && o.h.failover.MovesOn(he.StatusCode) {
		return outcome{moved: he.StatusCode}, true
	}
	return outcome{}, false
}

// sendHeld writes the refusal held back to the client and stops holding it.
func (o *observer) sendHeld() error {
	held := o.held
	o.held = nil
	defer held.Release()
	o.ResponseWriter.WriteHeader(o.heldStatus)
	_, err := o.ResponseWriter.Write(held.Bytes())
	if err != nil {
		o.failed = true
	}
	return err
}

// FlushError flushes the client connection; reverse_proxy flushes every SSE
// event through it (via http.ResponseController). How to flush the wrapped
// writer was found once, when the observer was made: a stream flushes
// thousands of times. Nothing is flushed while a response is held back.
func (o *observer) FlushError() error {
	if o.held != nil {
		return nil
	}
	return o.flush()
}

// Flush serves callers that still use http.Flusher.
func (o *observer) Flush() { _ = o.FlushError() }

// ReadFrom copies r through Write: the wrapper's own ReadFrom would hand
// r to the underlying writer, and the bytes would pass unobserved.
func (o *observer) ReadFrom(r io.Reader) (int64, error) {
	return io.Copy(writerOnly{o}, r)
}

// writerOnly hides every method of a writer but Write, so that io.Copy
// does not find ReadFrom again.
type writerOnly struct{ io.Writer }

// Interface guards
var (
	_ http.ResponseWriter = (*observer)(nil)
	_ http.Flusher        = (*observer)(nil)
	_ io.ReaderFrom       = (*observer)(nil)
)
