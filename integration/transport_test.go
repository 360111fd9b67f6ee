package integration

import (
	"errors"
	"io"
	"net/http"
	"syscall"
)

// retryingTransport retries a request whose connection broke before any
// response arrived, as the Anthropic SDK that Claude Code uses does. It is
// needed because a reload lets the old server finish shutting down after
// POST /load has returned: a connection accepted in that window is dropped.
// Retries cannot hide a crash in the handler: a panic would recur on every
// attempt, and each test fails on a logged panic anyway (checkLogClean).
type retryingTransport struct {
	*http.Transport
}

func (t retryingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
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
