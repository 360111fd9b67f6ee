package llmtest

import (
	"io"
	"net/http"
)

// readUpload reads a request's body whole. An upload that does not arrive
// whole (the sender dropped the connection midway, as a gateway does when
// its own client goes away while the request is on its way) is not a
// request: HTTP/1.1 makes its recipient consider such a message incomplete
// and close the connection (RFC 9112, section 6.3, item 5, for a
// Content-Length body; section 8 for a chunked one), so a real API never
// sees it, neither answering nor counting it. readUpload drops the
// connection then (http.ErrAbortHandler), and the mock records nothing.
func readUpload(r *http.Request) []byte {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		panic(http.ErrAbortHandler)
	}
	return body
}
