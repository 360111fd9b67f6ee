package gatewaytest

import (
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"syscall"
)

// Transport retries a request whose connection broke before any response
// arrived, as the Anthropic SDK that Claude Code uses does. Clients of a
// gateway that reloads need it: Caddy lets the old server finish shutting
// down after POST /load has returned, and a connection accepted in that
// window is dropped. Retries cannot hide a crash in the handler: a panic
// would recur on every attempt (and is logged).
type Transport struct {
	*http.Transport
}

// NewTransport returns a Transport with its own connection pool.
func NewTransport() Transport { return Transport{&http.Transport{}} }

// RoundTrip sends req, up to three times while the connection breaks.
func (t Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	for attempt := 1; ; attempt++ {
		resp, err := t.Transport.RoundTrip(req)
		if err == nil || attempt == 3 || req.GetBody == nil || !connectionDropped(err) {
			return resp, err
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
