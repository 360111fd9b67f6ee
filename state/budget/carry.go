package budget

import (
	"context"
	"io"
	"net/http"
	"strconv"
)

// A request the handler read goes on to reverse_proxy and its transport,
// which may need its bytes again (a transport that translates the body)
// and more memory of its own. Carry hands both over in the request's
// context: the transport borrows the bytes the budget already counts
// rather than reading and holding a second copy, and counts what it
// allocates in the same account, waiting in the same queue.

// carried is what a request's context says of its account and body.
type carried struct {
	t      *Ticket
	body   *Body
	reader *bodyReader // the reader the request was given
}

type carriedKey struct{}

// Carry makes body the body of r: its Body reads it, GetBody opens a new
// reader, ContentLength is its length (and so is Content-Length, when r
// had that header). It returns r with a context that carries t and body
// for a transport further on (see Borrow).
func Carry(r *http.Request, t *Ticket, body *Body) *http.Request {
	reader := body.Reader().(*bodyReader)
	r = r.WithContext(context.WithValue(r.Context(), carriedKey{}, &carried{t: t, body: body, reader: reader}))
	r.Body = reader
	r.GetBody = func() (io.ReadCloser, error) { return body.Reader(), nil }
	r.ContentLength = int64(len(body.Bytes()))
	if r.Header.Get("Content-Length") != "" {
		r.Header.Set("Content-Length", strconv.Itoa(len(body.Bytes())))
	}
	return r
}

// TicketOf returns the account carried by r's context, or nil.
func TicketOf(r *http.Request) *Ticket {
	if c, ok := r.Context().Value(carriedKey{}).(*carried); ok {
		return c.t
	}
	return nil
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
func Borrow(r *http.Request) (body *Body, ok bool) {
	c, found := r.Context().Value(carriedKey{}).(*carried)
	if !found || c.reader.Len() != len(c.body.Bytes()) || r.ContentLength != int64(len(c.body.Bytes())) {
		return nil, false
	}
	c.body.refs.Add(1)
	body = newBody(c.t)
	body.buf, body.of = c.body.buf, c.body
	c.reader.Close()
	return body, true
}
