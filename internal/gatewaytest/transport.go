package gatewaytest

import (
	"errors"
	"io"
	"net/http"
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
	return errors.Is(err, syscall.ECONNRESET) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF)
}
