package transport

import (
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"net/http"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/messagesapi"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/state/budget"
)

// maxErrorBody bounds the upstream error bodies read to translate them.
const maxErrorBody = 64 << 10

// DefaultMaxResponseSize bounds a JSON answer held to be translated.
const DefaultMaxResponseSize = 8 << 20

// errAnswerTooLarge says a JSON answer is over its bound.
var errAnswerTooLarge = errors.New("the upstream's answer is larger than max_response_size")

// decoded returns the response's body with a gzip Content-Encoding undone;
// the transports ask for identity, and a server that compresses anyway
// compresses with gzip. Other encodings are read as they come.
func decoded(resp *http.Response) (io.ReadCloser, error) {
	if resp.Header.Get("Content-Encoding") != "gzip" {
		return resp.Body, nil
	}
	zr, err := gzip.NewReader(resp.Body)
	if err != nil {
		resp.Body.Close()
		return nil, fmt.Errorf("reading the upstream's gzip answer: %w", err)
	}
	resp.Header.Del("Content-Encoding")
	return readCloser{zr, resp.Body}, nil
}

// readCloser reads from one reader and closes another.
type readCloser struct {
	io.Reader
	c io.Closer
}

func (r readCloser) Close() error { return r.c.Close() }

// readAnswer reads a whole body of at most limit bytes.
func readAnswer(body io.ReadCloser, limit int64) ([]byte, error) {
	defer body.Close()
	b, err := io.ReadAll(io.LimitReader(body, limit+1))
	if err != nil {
		return nil, fmt.Errorf("reading the upstream's answer: %w", err)
	}
	if int64(len(b)) > limit {
		return nil, errAnswerTooLarge
	}
	return b, nil
}

// heldAnswer holds a JSON answer in the memory budget, at most limit
// bytes, and gives resp what rewrite makes of it, counted too. An answer
// larger than limit, or that cannot be rewritten, is a 502; one that finds
// no room, a 529.
func (m *memory) heldAnswer(resp *http.Response, body io.ReadCloser, t *budget.Ticket, limit int64, rewrite func([]byte) ([]byte, error)) (*http.Response, error) {
	defer body.Close()
	t.Finishing()
	a, err := budget.WaitingAnswer(t, limit, max(resp.ContentLength, 0))
	if err == nil {
		defer a.Release()
		err = a.Fill(body)
	}
	var out *budget.Body
	if err == nil {
		// What the rewrite allocates is counted: room for about the
		// answer's size first, the exact size once known.
		out, err = budget.ReservedBody(t, int64(len(a.Bytes()))+answerSlack, true)
	}
	var b []byte
	if err == nil {
		b, err = rewrite(a.Bytes())
		if err != nil {
			out.Close()
		}
	}
	if err != nil {
		if r := m.refusal(resp.Request, t, err); r != nil {
			resp.Body.Close()
			return r, nil
		}
		var empty emptyAnswer
		if errors.As(err, &empty) {
			resp.Body.Close()
			return nil, err // the caller sends the request again, or answers it
		}
		if errors.Is(err, budget.ErrAnswerTooLarge) {
			err = errAnswerTooLarge
		}
		resp.StatusCode, resp.Status = http.StatusBadGateway, "502 Bad Gateway"
		replaceBody(resp, "application/json", messagesapi.AppendError(nil, "api_error", err.Error()))
		return resp, nil
	}
	out.Set(b)
	replaceBody(resp, "application/json", b)
	resp.Body = out.Reader()
	out.Close() // the reader holds the answer until reverse_proxy closes it
	return resp, nil
}

// answerSlack is the room a rewritten answer may take beyond its size
// before it is counted exactly.
const answerSlack = 64 << 10

// replaceBody gives resp a whole new body.
func replaceBody(resp *http.Response, contentType string, body []byte) {
	resp.Header.Set("Content-Type", contentType)
	resp.Header.Set("Content-Length", fmt.Sprint(len(body)))
	resp.Header.Del("Content-Encoding")
	resp.ContentLength = int64(len(body))
	resp.Body = io.NopCloser(bytesReader(body))
}

// streamBody gives resp a body read as it comes, of unknown length.
func streamBody(resp *http.Response, body io.ReadCloser) {
	resp.Header.Set("Content-Type", "text/event-stream")
	resp.Header.Del("Content-Length")
	resp.Header.Del("Content-Encoding")
	resp.ContentLength = -1
	resp.Body = body
}
