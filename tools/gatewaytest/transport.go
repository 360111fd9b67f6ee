package gatewaytest

import (
	"errors"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Transport retries a request whose connection broke before any response
// arrived, after a short backoff, and a request answered 529
// overloaded_error, after its Retry-After, as the Anthropic SDK that Claude
// Code uses does. Clients of a gateway that reloads need the first: Caddy
// lets the old server finish shutting down after POST /load has returned,
// and a connection accepted in that window is dropped (or reset while
// still queued on the old listening socket). Clients of a gateway whose
// memory budget is full need the second. Retries cannot hide a crash in
// the handler: a panic would recur on every attempt (and is logged).
type Transport struct {
	*http.Transport
}

// NewTransport returns a Transport with its own connection pool.
func NewTransport() Transport { return Transport{&http.Transport{}} }

// maxAttempts bounds the attempts of one request whose connection broke;
// the backoff before the n-th retry is retryBackoff << (n-1), so the last
// retry comes some 750 ms after the first attempt: past any reload's
// shutdown window. maxOverloaded bounds the attempts answered 529.
const (
	maxAttempts   = 5
	retryBackoff  = 50 * time.Millisecond
	maxOverloaded = 20
)

// RoundTrip sends req, up to maxAttempts times while the connection breaks
// and maxOverloaded times while it is answered 529.
func (t Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	dropped, overloaded := 0, 0
	for {
		resp, err := t.Transport.RoundTrip(req)
		var wait time.Duration
		switch {
		case !replayable(req):
			return resp, err
		case err != nil:
			if dropped++; dropped == maxAttempts || !connectionDropped(err) {
				return resp, err
			}
			wait = retryBackoff << (dropped - 1)
		case resp.StatusCode == statusOverloaded:
			if overloaded++; overloaded == maxOverloaded {
				return resp, err
			}
			wait = retryAfter(resp)
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		default:
			return resp, err
		}
		select {
		case <-time.After(wait):
		case <-req.Context().Done():
			return nil, req.Context().Err()
		}
		req = req.Clone(req.Context())
		if req.GetBody != nil {
			body, gerr := req.GetBody()
			if gerr != nil {
				return nil, gerr
			}
			req.Body = body
		}
		t.CloseIdleConnections()
	}
}

// statusOverloaded is the status of the API's overloaded_error.
const statusOverloaded = 529

// replayable reports whether req can be sent again: it has no body (an
// admin API's GET: Caddy replaces its admin server on every load, and a
// GET that reached the old one as it stopped broke as a POST does), or
// one it can read again.
func replayable(req *http.Request) bool {
	return req.Body == nil || req.Body == http.NoBody || req.GetBody != nil
}

// retryAfter returns the wait a 529 asks for, a second when it names none.
func retryAfter(resp *http.Response) time.Duration {
	seconds, err := strconv.Atoi(resp.Header.Get("Retry-After"))
	if err != nil || seconds < 1 {
		return time.Second
	}
	return time.Duration(seconds) * time.Second
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
