package transport

import (
	"net/http"
	"strconv"

	"go.uber.org/zap"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/budget"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/guard"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/messagesapi"
)

// A dialect is what a transport that speaks another API to its upstream
// does to one Messages request and its answer (see translator): it keeps
// what the translation of the request tells the translation of the answer.
type dialect interface {
	// translate writes the upstream's request for the body of req into
	// the memory grow gives (telling hold what it holds beside).
	translate(req *http.Request, body []byte, grow func([]byte, int) ([]byte, error), hold func(int) error) ([]byte, error)
	// prepare makes out, the request the upstream gets with the
	// translated body, the upstream's: its path, query and headers.
	prepare(out *http.Request)
	// errorBody is the Messages error envelope of an upstream error.
	errorBody(status int, body []byte) []byte
	// stream returns the translator of the upstream's answer when it is a
	// stream, which the request may have said; nil for a JSON answer.
	stream(resp *http.Response) messagesapi.Translator
	// answer translates a whole JSON answer.
	answer(b []byte) ([]byte, error)
}

// translator is the round trip of a Messages request through a dialect.
type translator struct {
	memory          *memory
	maxResponseSize int64
	logger          *zap.Logger
	next            http.RoundTripper
}

// serve answers req: a Messages request through the dialect round makes
// (given the path before /v1/messages), guarded so that a panic of the
// translation (a bug) is the request's error, not the process's; any other
// request as next sends it. name names the transport in the log.
func (x translator) serve(req *http.Request, name string, round func(prefix string) dialect) (resp *http.Response, err error) {
	ep, prefix := messagesapi.EndpointOf(req)
	if ep == messagesapi.Other {
		return x.next.RoundTrip(req)
	}
	defer guard.Recover(x.logger, name, "", failed(&err))
	return x.roundTrip(req, ep, round(prefix))
}

// roundTrip answers a Messages request (ep) through d: count_tokens with
// an estimate; anything else translated, sent, and its answer translated.
// The body is the one llm_thinking holds, borrowed, or read into the
// budget; the translation is written into the budget as it grows, let go
// once the upstream answered.
func (x translator) roundTrip(req *http.Request, ep messagesapi.Endpoint, d dialect) (*http.Response, error) {
	tk, held, refused, err := x.memory.request(req)
	if held == nil {
		return refused, err
	}
	defer held.Close()
	if ep == messagesapi.CountTokens {
		// These servers count no tokens, or not Claude's: an estimate, from
		// the text, without asking the upstream.
		n := messagesapi.EstimateTokens(held.Bytes())
		return localResponse(req, http.StatusOK, append(strconv.AppendInt([]byte(`{"input_tokens":`), int64(n), 10), '}')), nil
	}
	mem, err := newTranslation(tk)
	if err != nil {
		return x.memory.refusal(req, tk, err), nil
	}
	defer mem.body.Close()
	translated, err := d.translate(req, held.Bytes(), mem.body.Extend, mem.hold)
	if err != nil {
		mem.release()
		if resp := x.memory.refusal(req, tk, err); resp != nil {
			return resp, nil
		}
		return localResponse(req, http.StatusBadRequest, messagesapi.AppendError(nil, "invalid_request_error", err.Error())), nil
	}
	held.Close() // the translation is all the upstream needs
	out := outgoing(req, mem.done(translated))
	translated = nil // its memory must be unreachable once the upstream is done with it
	d.prepare(out)
	resp, err := x.next.RoundTrip(out)
	// The upstream answered: what is left of the translation is the http
	// transport's reader, which it closes once done writing, and room for
	// the answer.
	mem.body.Close()
	if err != nil {
		return nil, err
	}
	return x.answer(resp, tk, d)
}

// answer gives resp the Messages answer of the upstream's: its error's
// envelope, its stream translated as it comes, or its JSON answer
// translated whole, held in the budget.
func (x translator) answer(resp *http.Response, tk *budget.Ticket, d dialect) (*http.Response, error) {
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
		streamBody(resp, &guardedBody{ReadCloser: readCloser{r, body}, logger: x.logger})
		return resp, nil
	}
	return x.memory.heldAnswer(resp, body, tk, x.maxResponseSize, d.answer)
}
