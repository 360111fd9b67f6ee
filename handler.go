package llmthinking

import (
	"cmp"
	"context"
	"errors"
	"maps"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"go.uber.org/zap"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/block"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/guard"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/handoff"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/header"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/jsonscan"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/messagesapi"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/request/policy"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/request/thinking"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/state/budget"
)

// ServeHTTP rewrites the request's thinking blocks for its backend, then
// passes it on, observing the response. A refusal for thinking that still
// comes back is replayed once, repaired, and never reaches the client; with
// a failover list, a backend that turns the request away passes it on to
// the next (see failOver).
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request, next caddyhttp.Handler) error {
	ep, _ := messagesapi.EndpointOf(r)
	if ep == messagesapi.Other {
		return next.ServeHTTP(w, r)
	}
	repl := r.Context().Value(caddy.ReplacerCtxKey).(*caddy.Replacer)
	var backend string
	if h.Backend != "" {
		if backend = policy.BoundedID(repl.ReplaceAll(h.Backend, "")); backend == "" {
			h.logger.Debug("thinking.passthrough", zap.String("reason", "backend placeholder is empty"), zap.String("backend", h.Backend))
			return next.ServeHTTP(w, r)
		}
	}
	if reason := unreadable(r); reason != "" {
		h.logger.Debug("thinking.passthrough", zap.String("reason", reason))
		return next.ServeHTTP(w, r)
	}

	// Everything held from here on counts against the memory budget; a
	// request that finds no room within memory_wait gets a 529, and
	// nothing of it goes upstream.
	t := h.budget.Ticket(r.Context(), time.Duration(h.MemoryWait))
	in, err := budget.ReadBody(r, h.MaxBodySize, t)
	if err != nil {
		return h.turnAway(w, r.Body, t, err)
	}
	defer in.Close()
	rq := &incoming{t: t, repl: repl, in: in, ep: ep,
		req: policy.Request{Body: in.Bytes(), Header: r.Header, Backend: backend, ReadOnly: ep != messagesapi.Messages}}
	defer rq.close()
	if h.failover != nil {
		return h.failOver(w, r, next, rq)
	}
	_, err = h.attempt(w, r, next, rq, false)
	return err
}

// incoming is what every attempt of one request shares: its account, its
// body as the client sent it, and the memory of the bodies planned from
// it, given back when the request is done (a transport may still be
// writing an attempt's body upstream when the next attempt begins).
type incoming struct {
	t      *budget.Ticket
	repl   *caddy.Replacer
	in     *budget.Body
	ep     messagesapi.Endpoint
	req    policy.Request
	copies []*budget.Body
	// outcome is what the placeholders say, once published (see publish).
	outcome *outcomeVars
}

// close gives back the memory of the bodies planned.
func (rq *incoming) close() {
	for _, c := range rq.copies {
		c.Close()
	}
}

// copyRoom returns room for a body planned from the request's.
func (rq *incoming) copyRoom() (*budget.Body, error) {
	out, err := budget.CopyRoom(rq.t, len(rq.in.Bytes()))
	if err == nil {
		rq.copies = append(rq.copies, out)
	}
	return out, err
}

// outcome is how an attempt of a request ended.
type outcome struct {
	// moved is the status that turned the request away, for it to go on
	// to another backend (see failOver), 0 when the client got the answer;
	// retryAfter is that answer's Retry-After.
	moved      int
	retryAfter string
	// answered reports that the client got an answer, its header at least.
	answered bool
}

// attempt sends the request to the backend rq.req names, r routed there:
// planned for it, and replayed once when it refuses the request for its
// thinking. With movesOn, an answer of a status the failover list moves on
// from is held back and dropped, and the outcome says so; so is a
// connection that could not be made. Else the client gets the answer.
func (h *Handler) attempt(w http.ResponseWriter, r *http.Request, next caddyhttp.Handler, rq *incoming, movesOn bool) (outcome, error) {
	t, in, repl, backend := rq.t, rq.in, rq.repl, rq.req.Backend
	out, err := rq.copyRoom()
	if err != nil {
		return outcome{answered: true}, h.turnAway(w, nil, t, err)
	}
	req := rq.req
	req.Out = out.Room()
	plan := h.plan(req, nil, t)
	// req stays for a replay: out's memory must not stay reachable through
	// it once out lets go of it, or Go could never collect it.
	req.Out = nil
	if budget.TurnsAway(plan.Passthrough) {
		return outcome{answered: true}, h.turnAway(w, nil, t, plan.Passthrough)
	}
	before := w.Header().Clone()
	r = setBody(r, t, &plan, in, out)
	rq.publish(w, &plan)
	if rq.ep == messagesapi.Messages {
		// A stream is never compressed; an answer to rewrite must not be.
		narrowAcceptEncoding(r, plan.Stream || h.rewritesAnswers())
	}
	retry := h.retryOnReject() && plan.Passthrough == nil
	ow, err := h.forward(w, r, next, t, repl, &plan, backend, rq.ep, retry, movesOn)
	defer ow.releaseAll()
	if o, moved := ow.movedOn(err); moved {
		restoreHeader(w.Header(), before)
		return o, nil
	}
	if err != nil || !retry {
		return outcome{answered: ow.wroteHeader}, err
	}
	msg, refusedThinking, err := ow.refusal()
	if !refusedThinking {
		return outcome{answered: true}, err
	}
	return h.replayRefused(w, r, next, rq, &req, &plan, ow.backend, msg, before, movesOn)
}

// replayRefused replays once a request whose upstream refused it for its
// thinking, planned with only what the upstream must accept; the client
// never sees the refusal. It is apart from attempt so that attempt's
// frame, under the whole of reverse_proxy on every request, stays small.
func (h *Handler) replayRefused(w http.ResponseWriter, r *http.Request, next caddyhttp.Handler, rq *incoming,
	req *policy.Request, plan *policy.Plan, answeredBy, msg string, before http.Header, movesOn bool) (outcome, error) {
	t, in, repl, backend := rq.t, rq.in, rq.repl, rq.req.Backend
	// The upstream refused the request for its thinking: the client never
	// sees that. Replay it once, with only what the upstream must accept.
	refuser := cmp.Or(backend, answeredBy)
	counters.Retry(refuser)
	h.logger.Info("thinking.retry", zap.String("backend", refuser), zap.String("conversation", plan.Conversation),
		zap.String("upstream_message", msg))
	restoreHeader(w.Header(), before)
	replayOut, err := rq.copyRoom()
	if err != nil {
		return outcome{answered: true}, h.turnAway(w, nil, t, err)
	}
	req.Out = replayOut.Room()
	replay := h.plan(*req, &policy.Refusal{Backend: refuser, Message: msg, Sent: plan.Body, Header: r.Header}, t)
	req.Out = nil
	if budget.TurnsAway(replay.Passthrough) {
		return outcome{answered: true}, h.turnAway(w, nil, t, replay.Passthrough)
	}
	r = setBody(replayRequest(r), t, &replay, in, replayOut)
	rq.publish(w, &replay)
	w.Header().Add(WarningHeader, "thinking_retried")
	rw, err := h.forward(w, r, next, t, repl, &replay, backend, rq.ep, false, movesOn)
	defer rw.releaseAll()
	if o, moved := rw.movedOn(err); moved {
		restoreHeader(w.Header(), before)
		return o, nil
	}
	if err == nil && rw.status >= 200 && rw.status < 300 {
		// What the refusal said of the model was the server's: the replay
		// that went without it succeeded.
		h.logLearned(h.policy.Confirm(replay.Learned))
	}
	return outcome{answered: rw.wroteHeader}, err
}

// replayRequest returns the request to send again: a copy with headers and
// request variables of its own. The transport of the refused attempt may
// still be at work with the first (writing its body, dialing a connection
// that reads the variables) when the replay changes them.
func replayRequest(r *http.Request) *http.Request {
	ctx := r.Context()
	if vars, ok := ctx.Value(caddyhttp.VarsCtxKey).(map[string]any); ok {
		ctx = context.WithValue(ctx, caddyhttp.VarsCtxKey, maps.Clone(vars))
	}
	return r.Clone(ctx)
}

// forward passes the request on with w wrapped in an observer, which it
// returns once the response is done. hold holds back a refusal for the
// safety net to read, movesOn an answer that moves the request on to
// another backend. plan is read, never kept: it is passed by its address
// to keep the frames under reverse_proxy small.
func (h *Handler) forward(w http.ResponseWriter, r *http.Request, next caddyhttp.Handler, t *budget.Ticket, repl *caddy.Replacer,
	plan *policy.Plan, backend string, ep messagesapi.Endpoint, hold, movesOn bool) (*observer, error) {
	ow := h.newObserver(w, t, repl, backend, plan, ep == messagesapi.Messages, hold, movesOn)
	completed := false
	defer func() { ow.end(!completed) }()
	err := next.ServeHTTP(ow, r)
	completed = err == nil
	return ow, err
}

// restoreHeader makes h what it was before the refused attempt, whose
// response headers must not mix with the replay's.
func restoreHeader(h, before http.Header) {
	clear(h)
	for k, v := range before {
		h[k] = v
	}
}

// unreadable says why a request body cannot be a plain JSON Messages body,
// or returns "".
func unreadable(r *http.Request) string {
	if ct := header.First(r.Header, header.ContentType); ct != "" {
		mt, _, _ := strings.Cut(ct, ";")
		mt = strings.ToLower(strings.TrimSpace(mt))
		if mt != "application/json" && !strings.HasSuffix(mt, "+json") {
			return "content type is not JSON"
		}
	}
	if ce := header.First(r.Header, header.ContentEncoding); ce != "" && !strings.EqualFold(ce, "identity") {
		return "request body is encoded"
	}
	return ""
}

// plan asks the policy what becomes of the body's blocks, for a replay
// after refusal when it is not nil, and logs the outcome. What reading the
// body costs is metered into t's account while the policy works (see
// budget.StructureMeter); a body whose structure costs more than its size allows,
// or finds no room, is no plan (see refused). A panic in the policy (a bug)
// is logged and the body forwarded as it came.
func (h *Handler) plan(req policy.Request, refusal *policy.Refusal, t *budget.Ticket) (plan policy.Plan) {
	m := budget.NewStructureMeter(t, len(req.Body))
	defer m.Release()
	req.Meter = m.Meter
	defer guard.Recover(h.logger, "handler", req.Backend, func() { plan = policy.Plan{Body: req.Body, Passthrough: errInternal} })
	if refusal != nil {
		plan = h.policy.Replay(req, *refusal)
	} else {
		plan = h.policy.Plan(req)
	}
	h.logPlan(&plan, plan.Target)
	counters.Plan(plan)
	plan.Release() // the decisions were only needed for the log
	return plan
}

// errInternal marks a plan abandoned to a bug.
var errInternal = errors.New("llm_thinking internal error")

// logPlan writes the log events of one planned request.
func (h *Handler) logPlan(plan *policy.Plan, backend string) {
	if plan.Passthrough != nil && !budget.TurnsAway(plan.Passthrough) {
		h.logger.Debug("thinking.passthrough", zap.String("reason", "body is not an editable Messages request"), zap.Error(plan.Passthrough))
	}
	if plan.Switched {
		h.logger.Info("thinking.backend_switch",
			zap.String("from", plan.Previous), zap.String("to", backend), zap.String("conversation", plan.Conversation))
	}
	if len(plan.Decisions) > 0 && h.logger.Core().Enabled(zap.DebugLevel) {
		h.logDecisions(plan, backend)
	}
	if plan.Result.Changed() {
		h.logHandled(plan, backend)
	}
}

// logDecisions logs each block's decision, at debug level. It and
// logHandled are apart from logPlan, which every request calls, so that
// their fields take stack only when they are logged.
func (h *Handler) logDecisions(plan *policy.Plan, backend string) {
	for _, d := range plan.Decisions {
		if ce := h.logger.Check(zap.DebugLevel, "thinking.block_decision"); ce != nil {
			ce.Write(zap.String("backend", backend), zap.String("conversation", plan.Conversation),
				zap.Int32("message", d.Message), zap.Int32("index", d.Index), zap.Stringer("kind", d.Kind),
				zap.String("origin", d.Origin), zap.Bool("kept", d.Action == thinking.Keep || d.Action == thinking.KeepAsTags),
				zap.Stringer("reason", d.Reason), zap.Stringer("key", d.Key))
		}
	}
}

// logHandled logs what the rewrite of a request changed.
func (h *Handler) logHandled(plan *policy.Plan, backend string) {
	res := plan.Result
	redacted := 0
	for _, d := range plan.Decisions {
		if d.Kind == block.Redacted {
			redacted++
		}
	}
	h.logger.Info("thinking.block_handled",
		zap.String("backend", backend), zap.String("conversation", plan.Conversation),
		zap.String("model", plan.Model), zap.Bool("thinking_capable", plan.ThinkingCapable),
		zap.Int("thinking_blocks", len(plan.Decisions)-redacted), zap.Int("redacted_blocks", redacted),
		zap.Int("kept", res.Kept), zap.Int("stripped", res.Stripped), zap.Int("dropped_blocks", res.Stripped),
		zap.Int("converted", res.Converted), zap.Int("normalized", res.Normalized), zap.Int("as_tags", res.AsTags),
		zap.Bool("dropped_thinking_config", res.DroppedThinkingConfig), zap.Int("backfilled", res.Backfilled),
		zap.String("thinking_type", res.Retyped))
}

// logLearned logs what was learned of a backend's model, once per fact.
func (h *Handler) logLearned(l policy.Learned) {
	if l.Facts == 0 {
		return
	}
	h.logger.Info("thinking.capability_learned", zap.String("backend", l.Backend), zap.String("model", l.Model),
		zap.Strings("what", l.Facts.Names()), zap.String("why", l.Why))
}

// thinkingConfig returns a copy of the top-level thinking member of a
// request body, or nil.
func thinkingConfig(body []byte) []byte {
	var name [32]byte
	it := jsonscan.Members(body, jsonscan.SkipSpace(body, 0))
	for k, v, ok := it.Item(); ok; k, v, ok = it.Item() {
		if string(jsonscan.Name(k, &name)) == "thinking" {
			return append([]byte(nil), v...)
		}
	}
	return nil
}

// setBody puts the planned body on the request: the body read, in, when
// unchanged, else the rewritten one, which the plan wrote into out (or
// allocated, for out to adopt). An unused out gives its room back at once.
// It returns the request to pass on, with what a transport of ours must
// know of it (see package internal/handoff): its body, its account t, and
// what the plan took out for the Messages API's sake.
func setBody(r *http.Request, t *budget.Ticket, plan *policy.Plan, in, out *budget.Body) *http.Request {
	h := handoff.Request{Facts: plan.Facts}
	if plan.Result.ToolLoopRule {
		h.ThinkingOff = thinkingConfig(in.Bytes())
	}
	src := in
	if plan.Result.Changed() {
		out.Set(plan.Body)
		src = out
		r.Header[header.ContentLength] = []string{strconv.Itoa(len(plan.Body))}
	} else {
		out.Close()
	}
	return handoff.Pass(r, h, t, src)
}

// Placeholder names set on every handled request.
const (
	placeholderKept      = "http.llm_thinking.kept"
	placeholderStripped  = "http.llm_thinking.stripped"
	placeholderConverted = "http.llm_thinking.converted"
	placeholderBackend   = "http.llm_thinking.backend"
)

// outcomeVars are the values of the placeholders of a handled request.
type outcomeVars struct {
	kept, stripped, converted int
	backend                   string
}

// value is the replacer's provider of the placeholders.
func (v *outcomeVars) value(key string) (any, bool) {
	switch key {
	case placeholderKept:
		return v.kept, true
	case placeholderStripped:
		return v.stripped, true
	case placeholderConverted:
		return v.converted, true
	case placeholderBackend:
		return v.backend, true
	}
	return nil, false
}

// WarningHeader is the response header that tells clients their thinking
// blocks were removed or converted.
const WarningHeader = "X-LLM-Thinking-Warning"

// warningKey is WarningHeader as http.Header keeps it.
var warningKey = http.CanonicalHeaderKey(WarningHeader)

// publish makes the outcome of a plan visible: placeholders for access
// logs and other handlers, and the warning header for the client. The
// placeholders come from one provider of the request's replacer, which a
// later attempt's plan updates: set as static values, they were four map
// writes on every request, and a map that reverse_proxy walks on every
// attempt to clear its own.
func (rq *incoming) publish(w http.ResponseWriter, plan *policy.Plan) {
	res := plan.Result
	if rq.outcome == nil {
		rq.outcome = new(outcomeVars)
		rq.repl.Map(rq.outcome.value)
	}
	*rq.outcome = outcomeVars{kept: res.Kept, stripped: res.Stripped, converted: res.Converted, backend: plan.Target}
	h := w.Header()
	delete(h, warningKey)
	if res.Stripped > 0 {
		h[warningKey] = append(h[warningKey], "thinking_dropped")
	}
	if res.Converted > 0 {
		h[warningKey] = append(h[warningKey], "thinking_converted")
	}
}
