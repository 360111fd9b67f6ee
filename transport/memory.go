package transport

import (
	"errors"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"time"

	"go.uber.org/zap"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/handoff"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/messagesapi"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/state/budget"
)

// What a transport holds counts in the process's memory budget, the one
// llm_thinking's handlers count in (see package budget): the request body
// it reads when no handler holds it, the translated body as it is written,
// the answer it holds to translate and the translation. Behind
// llm_thinking, a request's account is the handler's, and the body the
// handler holds is borrowed, not read again (internal/handoff); alone, a
// transport opens an account per request. Without room, a request waits
// as one does in the handler, then gets the API's overloaded_error.

// memoryWait is how long a request with no account yet (no llm_thinking
// in front) may wait for room.
const memoryWait = 10 * time.Second

// memory is a transport's share of the process's budget.
type memory struct {
	budget *budget.Budget
	wait   time.Duration // memoryWait, unless a test says otherwise
	logger *zap.Logger
}

// join makes the transport a user of the process's budget, with no say in
// its size.
func (m *memory) join(user any, logger *zap.Logger) {
	m.budget, m.logger = budget.Process.Join(user), logger
	if m.wait == 0 {
		m.wait = memoryWait
	}
}

// leave lets go of the process's budget.
func (m *memory) leave(user any) {
	if m.budget != nil {
		budget.Process.Leave(user)
		m.budget = nil
	}
}

// ticket returns the request's account: llm_thinking's, or a new one.
func (m *memory) ticket(req *http.Request) *budget.Ticket {
	if t := handoff.From(req.Context()).Memory.Ticket(); t != nil {
		return t
	}
	return m.budget.Ticket(req.Context(), m.wait)
}

// request opens the account of a request and returns its body (see
// requestBody), or, when the body could not be had, the answer of its
// refusal or the error that ends the round trip.
func (m *memory) request(req *http.Request) (*budget.Ticket, *budget.Body, *http.Response, error) {
	tk := m.ticket(req)
	held, err := requestBody(req, tk)
	if err != nil {
		if resp := m.refusal(req, tk, err); resp != nil {
			return tk, nil, resp, nil
		}
		return tk, nil, nil, fmt.Errorf("reading the request body: %w", err)
	}
	return tk, held, nil, nil
}

// requestBody returns a request's body: borrowed from llm_thinking, or
// read into the budget, at most maxRequestBody bytes. The caller closes it
// once its bytes are not needed.
func requestBody(req *http.Request, t *budget.Ticket) (*budget.Body, error) {
	if b, ok := handoff.From(req.Context()).Memory.Borrow(req); ok {
		return b, nil
	}
	held, err := budget.ReadBody(req, maxRequestBody, t)
	if req.Body != nil {
		req.Body.Close()
	}
	return held, err
}

// translation is memory a translation writes into as it grows, and what
// it holds beside (see chatcompletions.RequestOptions).
type translation struct {
	body     *budget.Body
	t        *budget.Ticket
	reserved int64
}

func newTranslation(t *budget.Ticket) (*translation, error) {
	body, err := budget.CopyRoom(t, 0)
	if err != nil {
		return nil, err
	}
	return &translation{body: body, t: t}, nil
}

// hold reserves what the translation holds beside what it writes.
func (tr *translation) hold(bytes int) error {
	if n := int64(bytes) - tr.reserved; n > 0 {
		if err := tr.t.Reserve(n, true); err != nil {
			return err
		}
		tr.reserved += n
	}
	return nil
}

// done makes p, written into the translation's memory, its body, and
// gives back what it held beside.
func (tr *translation) done(p []byte) *budget.Body {
	tr.body.Set(p)
	tr.release()
	return tr.body
}

// release gives back what the translation held beside what it wrote.
func (tr *translation) release() {
	if tr.reserved > 0 {
		tr.t.Unreserve(tr.reserved)
		tr.reserved = 0
	}
}

// refusal answers a request the memory budget refused, as the Messages
// API would, and logs it as llm_thinking does: 413 for a body too large,
// 529 with Retry-After for no room; nil for any other error.
func (m *memory) refusal(req *http.Request, t *budget.Ticket, err error) *http.Response {
	switch {
	case errors.Is(err, budget.ErrBodyTooLarge), errors.Is(err, budget.ErrBeyondBudget):
		m.logger.Info("thinking.request_too_large", zap.Error(err))
	case errors.Is(err, budget.ErrOverloaded), errors.Is(err, budget.ErrGaveWay), errors.Is(err, budget.ErrNoRoom):
		s := t.Budget().Stats()
		m.logger.Warn("thinking.overloaded", zap.Error(err), zap.Int64("held", s.Held), zap.Int64("budget", s.Budget))
	}
	return refusalResponse(req, t, err)
}

// refusalResponse is the answer of refusal.
func refusalResponse(req *http.Request, t *budget.Ticket, err error) *http.Response {
	switch {
	case errors.Is(err, budget.ErrBodyTooLarge):
		return localResponse(req, http.StatusRequestEntityTooLarge, messagesapi.AppendError(nil, "request_too_large",
			fmt.Sprintf("Request exceeds the maximum allowed number of bytes (%d, which the transport reads).", maxRequestBody)))
	case errors.Is(err, budget.ErrBeyondBudget):
		return localResponse(req, http.StatusRequestEntityTooLarge, messagesapi.AppendError(nil, "request_too_large",
			fmt.Sprintf("Request exceeds the maximum allowed number of bytes (llm_thinking memory_budget %d holds bodies up to %d bytes).", t.Budget().Limit(), t.Budget().MaxBody())))
	case errors.Is(err, budget.ErrOverloaded), errors.Is(err, budget.ErrGaveWay), errors.Is(err, budget.ErrNoRoom):
		t.Overloaded()
		resp := localResponse(req, statusOverloaded, messagesapi.AppendError(nil, "overloaded_error",
			"Overloaded: the gateway's memory for requests is in use (llm_thinking memory_budget); retry later."))
		resp.Header.Set("Retry-After", strconv.Itoa(int(min(max(math.Ceil(t.MaxWait().Seconds()), 1), 60))))
		return resp
	}
	return nil
}

// statusOverloaded is the Messages API's status for an overloaded server.
const statusOverloaded = 529
