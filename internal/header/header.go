// Package header reads and writes the few HTTP header fields every request
// through llm_thinking touches, by their canonical keys: net/http's
// Get, Set and Del canonicalize the key on every call, and allocate when it
// is not canonical already.
package header

import (
	"net/http"
	"strconv"
)

// Canonical keys of the fields the request path reads and writes.
const (
	ContentType     = "Content-Type"
	ContentEncoding = "Content-Encoding"
	ContentLength   = "Content-Length"
	AcceptEncoding  = "Accept-Encoding"
)

// First returns the first value of the field under canonical, a key in its
// canonical form (as Go's HTTP server stores every field it reads), or "".
func First(h http.Header, canonical string) string {
	if v := h[canonical]; len(v) > 0 {
		return v[0]
	}
	return ""
}

// SetLength makes the Content-Length field of h say n, when h has one;
// it allocates only when the field said something else.
func SetLength(h http.Header, n int) {
	v := h[ContentLength]
	if len(v) == 0 || v[0] == "" {
		return
	}
	var buf [20]byte
	if len(v) == 1 && v[0] == string(strconv.AppendInt(buf[:0], int64(n), 10)) {
		return
	}
	h[ContentLength] = []string{strconv.Itoa(n)}
}
