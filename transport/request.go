package transport

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"strconv"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/state/budget"
)

// maxRequestBody bounds the request bodies the transports read when no
// llm_thinking in front holds them; it bounds them tighter by default.
const maxRequestBody = 64 << 20

// outgoing returns a copy of r for the upstream with body, leaving r as it
// came. The copy's readers hold the body until the http transport closes
// them: it may write a body after the round trip returned (an upstream
// that answers early), and open it again to retry.
func outgoing(r *http.Request, body *budget.Body) *http.Request {
	out := r.Clone(r.Context())
	out.Body = body.Reader()
	out.GetBody = func() (io.ReadCloser, error) { return body.Reader(), nil }
	out.ContentLength = int64(len(body.Bytes()))
	out.Header.Set("Content-Length", strconv.Itoa(len(body.Bytes())))
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
