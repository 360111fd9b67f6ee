package transport

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
)

// maxRequestBody bounds the request bodies the transports read; llm_thinking
// in front bounds them tighter by default.
const maxRequestBody = 64 << 20

// errTooLarge says a request body is over maxRequestBody.
var errTooLarge = errors.New("request body too large")

// readBody reads a request's body whole, and puts back a reader of the
// same bytes: reverse_proxy may send the same request again (lb_retries
// after a failed dial), and must find its body there.
func readBody(r *http.Request) ([]byte, error) {
	if r.Body == nil || r.Body == http.NoBody {
		return nil, nil
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, maxRequestBody+1))
	r.Body.Close()
	if err != nil {
		return nil, fmt.Errorf("reading the request body: %w", err)
	}
	if len(body) > maxRequestBody {
		return nil, errTooLarge
	}
	setBody(r, body)
	return body, nil
}

// setBody makes body the request's body.
func setBody(r *http.Request, body []byte) {
	r.Body = io.NopCloser(bytes.NewReader(body))
	r.ContentLength = int64(len(body))
	r.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
	r.Header.Set("Content-Length", fmt.Sprint(len(body)))
}

// outgoing returns a copy of r for the upstream with body, leaving r as it
// came.
func outgoing(r *http.Request, body []byte) *http.Request {
	out := r.Clone(r.Context())
	setBody(out, body)
	return out
}

// localResponse is an answer the transport gives without the upstream.
func localResponse(r *http.Request, status int, body []byte) *http.Response {
	h := http.Header{}
	h.Set("Content-Type", "application/json")
	h.Set("Content-Length", fmt.Sprint(len(body)))
	return &http.Response{
		Status:        fmt.Sprintf("%d %s", status, http.StatusText(status)),
		StatusCode:    status,
		Proto:         "HTTP/1.1",
		ProtoMajor:    1,
		ProtoMinor:    1,
		Header:        h,
		Body:          io.NopCloser(bytes.NewReader(body)),
		ContentLength: int64(len(body)),
		Request:       r,
	}
}
