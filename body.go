package llmthinking

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"
	"sync/atomic"

	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
)

// errBodyTooLarge reports a request body over max_body_size.
var errBodyTooLarge = errors.New("request body exceeds max_body_size")

// maxPooledBody bounds the buffers kept for reuse: a rare huge request
// should not pin its buffer in the pool.
const maxPooledBody = 4 << 20

// bodyBuffers recycles request body buffers. Long Claude Code sessions
// send hundreds of KiB on every request; allocating that anew each time
// costs more garbage collection than the whole rewrite.
var bodyBuffers = sync.Pool{New: func() any { return new([]byte) }}

// body is a request body read into a recycled buffer. The buffer goes back
// to the pool only when the handler is done with it and every reader of it
// has been closed: an HTTP transport may go on reading a body after the
// round trip returned (an upstream that answers early), and may open new
// readers through GetBody to retry. A reader that is never closed just
// leaves its buffer to the garbage collector.
type body struct {
	buf  *[]byte
	refs atomic.Int32
}

// readBody reads the whole request body, refusing more than limit bytes.
// The caller owns one reference and must call release.
func readBody(r *http.Request, limit int64) (*body, error) {
	if r.ContentLength > limit {
		return nil, errBodyTooLarge
	}
	b := &body{buf: bodyBuffers.Get().(*[]byte)}
	b.refs.Store(1)
	if r.Body == nil || r.Body == http.NoBody {
		*b.buf = (*b.buf)[:0]
		return b, nil
	}
	defer r.Body.Close()
	var err error
	if r.ContentLength >= 0 {
		*b.buf = grow(*b.buf, int(r.ContentLength))
		_, err = io.ReadFull(r.Body, *b.buf)
	} else {
		*b.buf, err = readAll(r.Body, (*b.buf)[:0], limit+1)
		if err == nil && int64(len(*b.buf)) > limit {
			err = errBodyTooLarge
		}
	}
	if err != nil {
		b.release()
		if errors.Is(err, errBodyTooLarge) {
			return nil, err
		}
		return nil, fmt.Errorf("reading request body: %w", err)
	}
	return b, nil
}

// emptyBody returns a body with nothing in it yet, in a recycled buffer, to
// write a rewritten body into. The caller owns one reference.
func emptyBody() *body {
	b := &body{buf: bodyBuffers.Get().(*[]byte)}
	*b.buf = (*b.buf)[:0]
	b.refs.Store(1)
	return b
}

// set makes p, written into the buffer (or into a larger one when it did
// not fit), the body.
func (b *body) set(p []byte) { *b.buf = p }

// bytes returns the body. It is valid until the last release.
func (b *body) bytes() []byte { return *b.buf }

// release drops one reference; the last one recycles the buffer.
func (b *body) release() {
	if b.refs.Add(-1) != 0 {
		return
	}
	if cap(*b.buf) <= maxPooledBody {
		*b.buf = (*b.buf)[:0]
		bodyBuffers.Put(b.buf)
	}
}

// reader returns a new reader of the body that holds a reference until it
// is closed.
func (b *body) reader() io.ReadCloser {
	b.refs.Add(1)
	return &bodyReader{Reader: bytes.NewReader(*b.buf), owner: b}
}

type bodyReader struct {
	*bytes.Reader
	owner  *body
	closed atomic.Bool
}

// Close drops the reader's reference to the body, once.
func (r *bodyReader) Close() error {
	if r.closed.CompareAndSwap(false, true) {
		r.owner.release()
	}
	return nil
}

// grow returns buf resized to n bytes, reallocating only when too small.
func grow(buf []byte, n int) []byte {
	if cap(buf) < n {
		return make([]byte, n)
	}
	return buf[:n]
}

// readAll appends r to buf, reading at most limit bytes.
func readAll(r io.Reader, buf []byte, limit int64) ([]byte, error) {
	w := bytes.NewBuffer(buf)
	_, err := w.ReadFrom(io.LimitReader(r, limit))
	return w.Bytes(), err
}

// tooLargeBody is the Anthropic error envelope for a 413, so clients show
// the reason the way they show the API's own errors.
const tooLargeBody = `{"type":"error","error":{"type":"request_too_large","message":"Request exceeds the maximum allowed number of bytes (llm_thinking max_body_size %d)."}}`

// refuseBody answers a request whose body could not be read.
func (h *Handler) refuseBody(w http.ResponseWriter, err error) error {
	if !errors.Is(err, errBodyTooLarge) {
		return caddyhttp.Error(http.StatusBadRequest, err)
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Connection", "close")
	w.WriteHeader(http.StatusRequestEntityTooLarge)
	_, werr := fmt.Fprintf(w, tooLargeBody, h.MaxBodySize)
	return werr
}
