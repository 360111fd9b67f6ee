// Package floor is a stand-in for the llm_thinking handler that does only
// what any handler in its place must do, and nothing of what this one does:
// the bench's ratios of a Caddy built with it (cmd/llm-thinking-floor) are
// the floor under llm_thinking's, what no implementation before Caddy's
// reverse_proxy can go below.
//
// What it must do, and why:
//
//   - copy: read the whole request body before the first byte goes on. The
//     handler decides what the backend gets from the whole conversation,
//     and replays the body once on a thinking 400, so it holds the body.
//     reverse_proxy then reads it again through a Read that copies, since
//     it wraps every request body in a reader of its own (Caddy's
//     requestBodyWithTrailers, net/http's io.LimitedReader), which hides
//     any io.WriterTo.
//   - hash: read every byte of the body once more. Whether a block may go
//     on as it is depends on the bytes around it; a handler that takes
//     what it learned of an earlier request must know the bytes are the
//     same, and the fastest way to know is one pass of the fastest hash
//     there is (XXH3, one call over the whole body here, where the handler
//     hashes stretches of 32 KiB, and messages where a body differs).
//   - events: find where every line of an event stream ends, once. The
//     handler learns which backend produced a thinking block from the
//     stream that carries it, so it must split the stream into events as
//     they pass (one SIMD count of its newlines here, where the handler
//     also reads what the events it follows say).
//
// It is configured as llm_thinking is, so that the bench's Caddyfile runs
// it unchanged; its subdirectives are ignored but one, floor, which names
// the parts to do (all three when it is absent):
//
//	llm_thinking {
//		backend anthropic
//		floor copy hash events
//	}
//
// "floor none" does none of them: the handler only passes the request on.
// The bench's ratio for it is the bench's own noise, what two identical
// configurations measure against each other in one run.
package floor

import (
	"bytes"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/httpcaddyfile"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"github.com/zeebo/xxh3"
)

func init() {
	caddy.RegisterModule(Handler{})
	httpcaddyfile.RegisterHandlerDirective("llm_thinking", parseCaddyfile)
	httpcaddyfile.RegisterDirectiveOrder("llm_thinking", httpcaddyfile.Before, "reverse_proxy")
}

// Handler does the parts of llm_thinking's work that Parts names.
type Handler struct {
	// Parts are the parts of the work to do: "copy", "hash", "events".
	// Empty means all three; "none" alone means none of them.
	Parts []string `json:"parts,omitempty"`

	copy, hash, events bool
}

// CaddyModule returns the Caddy module information. Its ID is
// llm_thinking's: a binary holds one or the other.
func (Handler) CaddyModule() caddy.ModuleInfo {
	return caddy.ModuleInfo{
		ID:  "http.handlers.llm_thinking",
		New: func() caddy.Module { return new(Handler) },
	}
}

// Provision reads Parts.
func (h *Handler) Provision(caddy.Context) error {
	parts := h.Parts
	if len(parts) == 0 {
		parts = []string{"copy", "hash", "events"}
	}
	if len(parts) == 1 && parts[0] == "none" {
		return nil
	}
	for _, p := range parts {
		switch p {
		case "copy":
			h.copy = true
		case "hash":
			h.hash = true
		case "events":
			h.events = true
		default:
			return fmt.Errorf("floor: unknown part %q (want copy, hash or events, or none alone)", p)
		}
	}
	if h.hash && !h.copy {
		return fmt.Errorf("floor: hash needs copy: the body is hashed where it is held")
	}
	return nil
}

// bodies keeps the buffers bodies are read into, as llm_thinking keeps
// its own.
var bodies sync.Pool

// maxBody bounds a body, as llm_thinking's max_body_size does.
var maxBody int64 = 64 << 20

// Counters of the work done, which keep the compiler from dropping it and
// let tests see it done.
var (
	hashed   atomic.Uint64 // the sum of the digests of the bodies hashed
	newlines atomic.Int64  // the newlines of the event streams counted
)

// ServeHTTP reads the body, hashes it, and passes the request on with the
// body it read; a text/event-stream answer has its newlines counted.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request, next caddyhttp.Handler) error {
	if h.copy && r.Body != nil && r.Body != http.NoBody {
		var buf []byte
		if b, ok := bodies.Get().(*[]byte); ok {
			buf = (*b)[:0]
		}
		if r.ContentLength > 0 && r.ContentLength <= maxBody {
			// ReadFrom wants MinRead bytes free before its last read.
			buf = slices.Grow(buf, int(r.ContentLength)+bytes.MinRead)
		}
		body := bytes.NewBuffer(buf)
		if _, err := body.ReadFrom(http.MaxBytesReader(w, r.Body, maxBody)); err != nil {
			if errors.As(err, new(*http.MaxBytesError)) {
				return caddyhttp.Error(http.StatusRequestEntityTooLarge, err)
			}
			return caddyhttp.Error(http.StatusBadRequest, err)
		}
		buf = body.Bytes()
		if h.hash {
			hashed.Add(xxh3.Hash(buf))
		}
		r.Body = &heldBody{Reader: bytes.NewReader(buf), buf: buf}
		r.ContentLength = int64(len(buf))
	}
	if !h.events {
		return next.ServeHTTP(w, r)
	}
	c := &eventCounter{ResponseWriterWrapper: &caddyhttp.ResponseWriterWrapper{ResponseWriter: w}}
	defer func() { newlines.Add(int64(c.lines)) }()
	return next.ServeHTTP(c, r)
}

// heldBody reads a body read before. Its buffer goes back to bodies when
// it is closed, which the transport does once it wrote the body or gave up
// on it, not when the handler returns: a transport may go on writing a
// body after the response came.
type heldBody struct {
	*bytes.Reader
	buf    []byte
	closed atomic.Bool
}

// Close gives the buffer back, once.
func (b *heldBody) Close() error {
	if !b.closed.Swap(true) {
		bodies.Put(&b.buf)
	}
	return nil
}

// eventCounter counts the newlines of a text/event-stream answer as it is
// written.
type eventCounter struct {
	*caddyhttp.ResponseWriterWrapper
	stream, decided bool
	lines           int
}

// Write counts p's newlines when the answer is an event stream, and
// writes p.
func (c *eventCounter) Write(p []byte) (int, error) {
	if !c.decided {
		c.decided = true
		c.stream = bytes.HasPrefix([]byte(c.Header().Get("Content-Type")), []byte("text/event-stream"))
	}
	if c.stream {
		c.lines += bytes.Count(p, []byte{'\n'})
	}
	return c.ResponseWriterWrapper.Write(p)
}

func parseCaddyfile(h httpcaddyfile.Helper) (caddyhttp.MiddlewareHandler, error) {
	var f Handler
	d := h.Dispenser
	d.Next() // the directive's name
	if d.NextArg() {
		return nil, d.ArgErr()
	}
	for d.NextBlock(0) {
		if d.Val() == "floor" {
			f.Parts = d.RemainingArgs()
			continue
		}
		d.RemainingArgs() // llm_thinking's own subdirectives, ignored
		for nesting := d.Nesting(); d.NextBlock(nesting); {
		}
	}
	return &f, nil
}

// Interface guards.
var (
	_ caddy.Provisioner           = (*Handler)(nil)
	_ caddyhttp.MiddlewareHandler = (*Handler)(nil)
)
