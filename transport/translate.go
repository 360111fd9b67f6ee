package transport

import (
	"errors"
	"net/http"
	"strconv"

	"go.uber.org/zap"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/guard"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/handoff"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/messagesapi"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/state/budget"
)

// A dialect is what a transport that speaks another API to its upstream
// does to one Messages request and its answer (see translator): it keeps
// what the translation of the request tells the translation of the answer.
type dialect interface {
	// translate writes the upstream's request for src into the memory
	// src.grow gives; the round keeps what the answer needs, never the
	// body written (see detach).
	translate(src source) ([]byte, error)
	// prepare makes out, the request the upstream gets with the
	// translated body, the upstream's: its path (prefix, the path before
	// /v1/messages, first), query and headers.
	prepare(out *http.Request, prefix string)
	// errorBody is the Messages error envelope of an upstream error.
	errorBody(status int, body []byte) []byte
	// stream returns the translator of the upstream's answer when it is a
	// stream, which the request may have said; nil for a JSON answer.
	stream(resp *http.Response) messagesapi.Translator
	// answer translates a whole JSON answer; one the model failed to
	// produce is an error that is an emptyAnswer.
	answer(b []byte) ([]byte, error)
}

// A source is a Messages request as a dialect translates it.
type source struct {
	host    string // the upstream's host:port, whose envelopes it opens
	body    []byte
	model   string          // the model the upstream gets (see Models)
	handoff handoff.Request // what llm_thinking handed over with it
	// grow gives the memory to write the translation into, hold is told
	// what the translation holds beside (see jsonout.Writer).
	grow func([]byte, int) ([]byte, error)
	hold func(int) error
}

// detach returns the translated body a round's translation holds, and
// forgets it there: its memory must be unreachable once the upstream is
// done with it.
func detach(body *[]byte) []byte {
	b := *body
	*body = nil
	return b
}

// An emptyAnswer is the error of an upstream's answer of 200 that holds
// no answer because the model failed to produce one (Gemini's
// MALFORMED_FUNCTION_CALL): sent again, the same request usually gets one.
// A dialect's whole answer gives it as its error; a stream translator
// tells it after its first event (see noAnswerStream). The translator
// sends the request again once, before the client got a byte, and if that
// fails the same way answers an error the client retries by itself
// (noAnswerResponse), never an empty message.
type emptyAnswer interface {
	error
	EmptyAnswer()
}

// noAnswerStream is a stream translator that can tell, once it read an
// event, that the answer is one the model failed to produce.
type noAnswerStream interface {
	NoAnswer() error
}

// retrying is a dialect whose upstream may answer with no answer (see
// emptyAnswer): the translated request is kept for one more round.
type retrying interface {
	retries() bool
}

// translatedTrip is the round trip of a Messages request through a dialect:
// the request translated, sent, and its answer translated back.
type translatedTrip struct {
	models          Models
	memory          *memory
	maxResponseSize int64
	logger          *zap.Logger
	next            http.RoundTripper
}

// serve answers req: a Messages request through the dialect round makes,
// guarded so that a panic of the translation (a bug) is the request's
// error, not the process's; any other request as next sends it. name
// names the transport in the log.
func (trip translatedTrip) serve(req *http.Request, name string, round func() dialect) (resp *http.Response, err error) {
	ep, prefix := messagesapi.EndpointOf(req)
	if ep == messagesapi.Other {
		return trip.next.RoundTrip(req)
	}
	defer guard.Recover(trip.logger, name, "", failed(&err))
	return trip.roundTrip(req, ep, prefix, round())
}

// roundTrip answers a Messages request (ep, its path after prefix) through d: count_tokens with
// an estimate; anything else translated, sent, and its answer translated.
// The body is the one llm_thinking holds, borrowed, or read into the
// budget; the translation is written into the budget as it grows, let go
// once the upstream answered.
func (trip translatedTrip) roundTrip(req *http.Request, ep messagesapi.Endpoint, prefix string, d dialect) (*http.Response, error) {
	tk, held, refused, err := trip.memory.request(req)
	if held == nil {
		return refused, err
	}
	defer held.Close()
	if ep == messagesapi.CountTokens {
		// These servers count no tokens, or not Claude's: an estimate, from
		// the text, without asking the upstream, of what /v1/messages
		// would take.
		r, err := messagesapi.ReadRequest(held.Bytes(), nil)
		if err != nil {
			return localResponse(req, http.StatusBadRequest, messagesapi.AppendError(nil, "invalid_request_error", err.Error())), nil
		}
		return localResponse(req, http.StatusOK, append(strconv.AppendInt([]byte(`{"input_tokens":`), int64(r.InputTokens()), 10), '}')), nil
	}
	mem, err := newTranslation(tk)
	if err != nil {
		return trip.memory.refusal(req, tk, err), nil
	}
	defer mem.body.Close()
	model, _ := trip.models.Map(modelOf(held.Bytes()))
	translated, err := d.translate(source{host: req.URL.Host, body: held.Bytes(), model: model,
		handoff: handoff.From(req.Context()), grow: mem.body.Extend, hold: mem.hold})
	if err != nil {
		mem.release()
		if resp := trip.memory.refusal(req, tk, err); resp != nil {
			return resp, nil
		}
		return localResponse(req, http.StatusBadRequest, messagesapi.AppendError(nil, "invalid_request_error", err.Error())), nil
	}
	held.Close() // the translation is all the upstream needs
	out := outgoing(req, mem.done(translated))
	translated = nil // its memory must be unreachable once the upstream is done with it
	d.prepare(out, prefix)
	r, ok := d.(retrying)
	retries := ok && r.retries()
	resp, err := trip.next.RoundTrip(out)
	if !retries {
		// The upstream answered: what is left of the translation is the
		// http transport's reader, which it closes once done writing, and
		// room for the answer. A dialect that retries keeps it until its
		// answer says whether it needs another round.
		mem.body.Close()
	}
	if err != nil {
		return nil, err
	}
	resp, err = trip.answer(resp, tk, d)
	if retries {
		resp, err = trip.again(req, out, resp, err, tk, d)
	}
	return resp, err
}

// again sends out once more when its answer (resp, err) was one the model
// failed to produce (see emptyAnswer), before the client's first byte;
// when that one is too, it answers noAnswerResponse. Any other answer is
// returned as it is.
func (trip translatedTrip) again(req, out *http.Request, resp *http.Response, err error, tk *budget.Ticket, d dialect) (*http.Response, error) {
	var empty emptyAnswer
	if !errors.As(err, &empty) {
		return resp, err
	}
	trip.logger.Info("thinking.upstream_no_answer", zap.String("why", empty.Error()), zap.Bool("retried", true))
	retry := out.Clone(out.Context())
	retry.Body, _ = out.GetBody()
	resp, err = trip.next.RoundTrip(retry)
	if err == nil {
		resp, err = trip.answer(resp, tk, d)
	}
	if !errors.As(err, &empty) {
		return resp, err
	}
	trip.logger.Warn("thinking.upstream_no_answer", zap.String("why", empty.Error()), zap.Bool("retried", false))
	return noAnswerResponse(req, empty), nil
}

// noAnswerResponse is the answer to a request whose upstream answered
// with no answer, sent again or not: a 500 api_error the client retries by
// itself (the Anthropic SDKs and Claude Code retry a 5xx, and the header
// says so). Not a 529 overloaded_error: nothing is overloaded, and Claude
// Code takes repeated 529s as its cue to fall back to another model.
func noAnswerResponse(req *http.Request, empty emptyAnswer) *http.Response {
	resp := localResponse(req, http.StatusInternalServerError, messagesapi.AppendError(nil, "api_error", empty.Error()+"; retry the request"))
	resp.Header.Set("X-Should-Retry", "true")
	return resp
}

// answer gives resp the Messages answer of the upstream's: its error's
// envelope, its stream translated as it comes, or its JSON answer
// translated whole, held in the budget.
func (trip translatedTrip) answer(resp *http.Response, tk *budget.Ticket, d dialect) (*http.Response, error) {
	body, err := decoded(resp)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		b, _ := readAnswer(body, maxErrorBody)
		replaceBody(resp, "application/json", d.errorBody(resp.StatusCode, b))
		return resp, nil
	}
	if s := d.stream(resp); s != nil {
		r := messagesapi.NewReader(body, s)
		stream := &guardedBody{ReadCloser: readCloser{r, body}, logger: trip.logger}
		if n, ok := s.(noAnswerStream); ok {
			// The first event says whether the model failed to produce an
			// answer: nothing reaches the client before it is read.
			r.Prime()
			if err := n.NoAnswer(); err != nil {
				stream.Close()
				return nil, err
			}
		}
		streamBody(resp, stream)
		return resp, nil
	}
	return trip.memory.heldAnswer(resp, body, tk, trip.maxResponseSize, d.answer)
}
