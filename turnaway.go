package llmthinking

import (
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"strconv"
	"time"

	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"go.uber.org/zap"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/state/budget"
)

// A request llm_thinking cannot hold is turned away: it answers it itself,
// and nothing goes upstream. (A refusal, in this module, is a backend's:
// see policy.Refusal.)
//
// The Anthropic error envelopes of the answers llm_thinking gives itself,
// so that clients show and handle them as they do the API's own: a 413
// for a body too large, a 529 overloaded_error, which Claude Code and the
// SDKs retry, for a request the memory budget found no room for.
const (
	tooLargeBody       = `{"type":"error","error":{"type":"request_too_large","message":"Request exceeds the maximum allowed number of bytes (llm_thinking max_body_size %d)."}}`
	beyondBudgetBody   = `{"type":"error","error":{"type":"request_too_large","message":"Request exceeds the maximum allowed number of bytes (llm_thinking memory_budget %d holds bodies up to %d bytes)."}}`
	tooManyPartsBody   = `{"type":"error","error":{"type":"request_too_large","message":"Request holds more messages and content blocks than llm_thinking reads in a body of its size (their structure may take twice the body's bytes and 1 MiB)."}}`
	overloadedBody     = `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded: the gateway's memory for requests is in use (llm_thinking memory_budget); retry later."}}`
	statusOverloaded   = 529
	overloadedLogEvent = "thinking.overloaded"
	tooLargeLogEvent   = "thinking.request_too_large"
)

// turnAway answers a request whose body could not be read or held, or
// for which no room came: 413 for a body too large, 529 for no room, 400
// for a body the client did not send whole. rest is what is left of the
// body the client sends, nil when it was read whole.
func (h *Handler) turnAway(w http.ResponseWriter, rest io.Reader, t *budget.Ticket, err error) error {
	switch {
	case errors.Is(err, budget.ErrTooManyParts):
		h.logger.Info(tooLargeLogEvent, zap.Error(err))
		return writeError(w, http.StatusRequestEntityTooLarge, tooManyPartsBody, true)
	case errors.Is(err, budget.ErrBodyTooLarge):
		h.logger.Info(tooLargeLogEvent, zap.Error(err))
		return writeError(w, http.StatusRequestEntityTooLarge, fmt.Sprintf(tooLargeBody, h.MaxBodySize), false)
	case errors.Is(err, budget.ErrBeyondBudget):
		h.logger.Info(tooLargeLogEvent, zap.Error(err))
		return writeError(w, http.StatusRequestEntityTooLarge, fmt.Sprintf(beyondBudgetBody, t.Budget().Limit(), t.Budget().MaxBody()), false)
	case errors.Is(err, budget.ErrOverloaded), errors.Is(err, budget.ErrGaveWay):
		return h.overloaded(w, rest, t, err)
	}
	return caddyhttp.Error(http.StatusBadRequest, err)
}

// overloaded answers 529 with Retry-After, logs it and counts it. Nothing
// of the request went upstream: the client sends it again whole. What the
// client is still sending (rest) is read and dropped first: a client cut
// off in the middle of its body sees a reset connection, not the answer.
func (h *Handler) overloaded(w http.ResponseWriter, rest io.Reader, t *budget.Ticket, err error) error {
	t.Overloaded()
	reason := "no room within memory_wait"
	if errors.Is(err, budget.ErrGaveWay) {
		reason = "gave way to older requests"
	}
	s := t.Budget().Stats()
	h.logger.Warn(overloadedLogEvent, zap.String("reason", reason),
		zap.Duration("waited", time.Duration(h.MemoryWait)-max(t.WaitLeft(), 0)),
		zap.Int64("held", s.Held), zap.Int64("budget", s.Budget))
	drained := dropRest(w, rest, h.MaxBodySize)
	w.Header().Set("Retry-After", strconv.Itoa(h.retryAfter()))
	return writeError(w, statusOverloaded, overloadedBody, drained)
}

// dropTimeout bounds how long the rest of a body turned away is read.
const dropTimeout = 30 * time.Second

// dropRest reads what is left of the body of a request turned away and drops it, in a
// small buffer that takes nothing from the budget, at most limit bytes and
// dropTimeout; it reports whether it read the body to its end.
func dropRest(w http.ResponseWriter, rest io.Reader, limit int64) bool {
	if rest == nil || rest == http.NoBody {
		return true
	}
	rc := http.NewResponseController(w)
	if rc.SetReadDeadline(time.Now().Add(dropTimeout)) == nil {
		defer rc.SetReadDeadline(time.Time{})
	}
	n, err := io.Copy(io.Discard, io.LimitReader(rest, limit+1))
	return err == nil && n <= limit
}

// retryAfter is the Retry-After of a 529, in seconds: the handler's
// memory_wait, the time room took to come (or not) for this request.
func (h *Handler) retryAfter() int {
	return int(min(max(math.Ceil(time.Duration(h.MemoryWait).Seconds()), 1), 60))
}

// writeError writes an error envelope with status, and closes the
// connection unless the request's body was read to its end: the client
// may still be sending a body nobody reads.
func writeError(w http.ResponseWriter, status int, envelope string, bodyRead bool) error {
	w.Header().Set("Content-Type", "application/json")
	if !bodyRead {
		w.Header().Set("Connection", "close")
	}
	w.WriteHeader(status)
	_, err := w.Write([]byte(envelope))
	return err
}
