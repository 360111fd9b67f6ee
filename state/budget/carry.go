package budget

import (
	"io"
	"net/http"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/header"
)

// A request the handler read goes on to reverse_proxy and its transport,
// which may need its bytes again (a transport that translates the body)
// and more memory of its own. Carry gives the request the body and returns
// what the transport needs to borrow the bytes the budget already counts
// rather than reading and holding a second copy, and to count what it
// allocates in the same account, waiting in the same queue. It travels in
// the request's context with the rest of the hand-off (package
// internal/handoff).

// Carried is a request's account and the body the handler read, as a
// transport further on finds them. A nil *Carried is a request nobody
// carried.
type Carried struct {
	t      *Ticket
	body   *Body
	reader *bodyReader // the reader the request was given
}

// Carry makes body the body of r: its Body reads it, GetBody opens a new
// reader, ContentLength is its length (and so is Content-Length, when r
// had that header). r must be the request passed on, a copy of the one
// the handler received.
func Carry(r *http.Request, t *Ticket, body *Body) *Carried {
	reader := body.Reader().(*bodyReader)
	r.Body = reader
	r.GetBody = func() (io.ReadCloser, error) { return body.Reader(), nil }
	r.ContentLength = int64(len(body.Bytes()))
	header.SetLength(r.Header, len(body.Bytes()))
	return &Carried{t: t, body: body, reader: reader}
}

// Ticket returns the carried account, or nil.
func (c *Carried) Ticket() *Ticket {
	if c == nil {
		return nil
	}
	return c.t
}

// Borrow returns r's body without reading it, when the body r carries is
// still the one Carry gave it, unread: the same length, and its reader
// untouched (a handler in between that replaced the body read it first;
// one that buffered it, such as reverse_proxy's request_buffers, too). The
// body returned shares the carried bytes and holds them until it is
// closed, as a body read would; the reader's hold on them goes, as nobody
// will read it (reverse_proxy closes no body it did not read). ok is false
// when the body must be read as any other. A transport may borrow the body
// again when reverse_proxy retries.
func (c *Carried) Borrow(r *http.Request) (body *Body, ok bool) {
	if c == nil || c.reader.Len() != len(c.body.Bytes()) || r.ContentLength != int64(len(c.body.Bytes())) {
		return nil, false
	}
	c.body.refs.Add(1)
	body = newBody(c.t)
	body.buf, body.of = c.body.buf, c.body
	c.reader.Close()
	return body, true
}
