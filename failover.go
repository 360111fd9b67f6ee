package llmthinking

import (
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"go.uber.org/zap"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/jsonscan"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/messagesapi"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/request/failover"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/request/policy"
)

// Failover is a list of backends a request goes on through when the one it
// went to turns it away before any byte of its answer reached the client
// (see failOver).
type Failover struct {
	// Backends are the backends, in order: a request goes on from the one
	// it was routed to (or the one its conversation holds on) to the
	// next, around the list, each once. The handler's backend must be one
	// variable that routes read ({vars.NAME}, or a placeholder a map
	// sets), which is set to each backend tried.
	Backends []string `json:"backends"`

	// On are the statuses that move a request on. Default 429, 500, 502,
	// 503, 504 and 529; a connection that could not be made is a 502. 400
	// and 422 are the safety net's (a refusal for thinking is repaired on
	// the same backend) and cannot be listed.
	On []int `json:"on,omitempty"`

	// Hold is how long a conversation that went on stays on the backend
	// that answered (its next requests go there first, the first backend
	// is not asked), extended by a longer Retry-After. Default 5m; 0 never
	// holds.
	Hold *caddy.Duration `json:"hold,omitempty"`
}

// list returns the failover list f configures.
func (f *Failover) list() failover.List {
	l := failover.List{Backends: f.Backends, Statuses: f.On, Hold: failover.DefaultHold}
	if f.Hold != nil {
		l.Hold = time.Duration(*f.Hold)
	}
	return l
}

// checkFailover reports what is wrong with the handler's failover list.
func (h *Handler) checkFailover() error {
	if h.Failover == nil {
		return nil
	}
	if err := h.Failover.list().Check(); err != nil {
		return err
	}
	for _, s := range h.Failover.On {
		if s == http.StatusBadRequest || s == http.StatusUnprocessableEntity {
			return fmt.Errorf("failover: on %d: a refusal is the safety net's (retry_on_reject), on the same backend", s)
		}
	}
	_, err := failover.VariableOf(h.Backend)
	return err
}

// holds is where the conversations of the process hold (see
// failover.Holds): one for every handler, surviving reloads.
var holds = failover.NewHolds(nil)

// routeTo returns r routed to backend: the variable the handler's backend
// reads set to it, in request variables of its own (see replayRequest).
func (h *Handler) routeTo(r *http.Request, repl *caddy.Replacer, backend string) *http.Request {
	r = replayRequest(r)
	if h.backendVar.IsVar {
		caddyhttp.SetVar(r.Context(), h.backendVar.Name, backend)
	} else {
		repl.Set(h.backendVar.Name, backend)
	}
	return r
}

// failOver sends the request to the backends of the failover list in
// turn, from the one it was routed to, or the one its conversation holds
// on: each attempt planned for its backend as a switch would be (see
// attempt), the next one made when a backend turns the request away
// before any byte of its answer reached the client. The last backend's
// answer goes to the client as it is; a connection to it that could not
// be made, as Anthropic's error envelope. A conversation that went on
// holds on the backend that answered.
func (h *Handler) failOver(w http.ResponseWriter, r *http.Request, next caddyhttp.Handler, rq *incoming) error {
	routed := rq.req.Backend
	scope := policy.Conversation(r.Header, func() string { return metadataUserID(rq.in.Bytes()) })
	first := routed
	if held, ok := holds.Held(scope); ok && slices.Contains(h.failover.Backends, held) {
		first = held
	}
	order := h.failover.Order(first)
	retryAfter := ""
	for i, backend := range order {
		if backend != routed {
			r = h.routeTo(r, rq.repl, backend)
		}
		rq.req.Backend = backend
		last := i == len(order)-1
		o, err := h.attempt(w, r, next, rq, !last)
		if o.moved == 0 {
			if i > 0 {
				holds.Hold(scope, backend, h.failover.HoldFor(retryAfter, time.Now()))
			}
			if err != nil && !o.answered && last {
				return failedEnvelope(w, err)
			}
			return err
		}
		retryAfter = o.retryAfter
		counters.Failover(backend, order[i+1], o.moved)
		h.logger.Info("thinking.failover", zap.String("from", backend), zap.String("to", order[i+1]),
			zap.Int("status", o.moved), zap.String("conversation", scope))
	}
	return nil
}

// failedEnvelope answers, in Anthropic's error envelope, a request whose
// last backend could not be reached: the status reverse_proxy gave, which
// clients retry.
func failedEnvelope(w http.ResponseWriter, err error) error {
	var he caddyhttp.HandlerError
	if !errors.As(err, &he) || he.StatusCode < 500 {
		return err
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Retry-After", strconv.Itoa(1))
	w.WriteHeader(he.StatusCode)
	msg := "every backend of the failover list failed; the last could not be reached"
	_, werr := w.Write(messagesapi.AppendError(nil, messagesapi.ErrorType(he.StatusCode), msg))
	return werr
}

// metadataUserID returns the metadata.user_id of a Messages body, or "".
func metadataUserID(body []byte) string {
	return jsonscan.Value(body).Get("metadata", "user_id").Str()
}
