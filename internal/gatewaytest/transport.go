package gatewaytest

import (
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"syscall"
	"time"
)

// Transport retries a request whose connection broke before any response
// arrived, after a short backoff, as the Anthropic SDK that Claude Code uses
// does. Clients of a gateway that reloads need it: Caddy lets the old server
// finish shutting down after POST /load has returned, and a connection
// accepted in that window is dropped (or reset while still queued on the
// old listening socket). Retries cannot hide a crash in the handler: a
// panic would recur on every attempt (and is logged).
type Transport struct {
	*http.Transport
}

// NewTransport returns a Transport with its own connection pool.
func NewTransport() Transport { return Transport{&http.Transport{}} }

// maxAttempts bounds the attempts of one request; the backoff before the
// n-th retry is retryBackoff << (n-1), so the last retry comes some 750 ms
// after the first attempt: past any reload's shutdown window.
const (
	maxAttempts  = 5
	retryBackoff = 50 * time.Millisecond
)

// RoundTrip sends req, up to maxAttempts times while the connection breaks.
func (t Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	for attempt := 1; ; attempt++ {
		resp, err := t.Transport.RoundTrip(req)
		if err == nil || attempt == maxAttempts || req.GetBody == nil || !connectionDropped(err) {
			return resp, err
		}
		select {
		case <-time.After(retryBackoff << (attempt - 1)):
		case <-req.Context().Done():
			return nil, err
		}
		body, gerr := req.GetBody()
		if gerr != nil {
			return nil, err
		}
		req = req.Clone(req.Context())
		req.Body = body
		t.CloseIdleConnections()
	}
}

func connectionDropped(err error) bool {
	for _, dropped := range []error{syscall.ECONNRESET, syscall.EPIPE, net.ErrClosed, io.EOF, io.ErrUnexpectedEOF} {
		if errors.Is(err, dropped) {
			return true
		}
	}
	// net/http does not export this one; it retries it by itself only for
	// idempotent requests, and a POST is not one.
	return strings.Contains(err.Error(), "server closed idle connection")
}
