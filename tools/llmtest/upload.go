package llmtest

import (
	"io"
	"net/http"
)

// readUpload reads a request's body whole. An upload that does not arrive
// whole (the sender dropped the connection midway, as a gateway does when
// its own client goes away while the request is on its way) is not a
// request: a real API never sees it, neither answering nor counting it. So
// readUpload drops the connection then (http.ErrAbortHandler), and the mock
// records nothing.
func readUpload(r *http.Request) []byte {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		panic(http.ErrAbortHandler)
	}
	return body
}
