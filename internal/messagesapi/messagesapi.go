// Package messagesapi says what the handler and the transports both need to
// know of an HTTP exchange of the Anthropic Messages API: which endpoint a
// request is for, and what a response's body is. One answer for both, so
// that a request the handler rewrites is one the transports translate. The
// translations into other APIs read a request through it too (ReadRequest,
// ClientTools, ReadToolChoice), so that they refuse, and read, the same.
package messagesapi

import (
	"mime"
	"net/http"
	"strings"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/header"
)

// Endpoint is the Messages API endpoint a request is for.
type Endpoint uint8

// The endpoints.
const (
	// Other is any request that is not a POST to the two below.
	Other Endpoint = iota
	// Messages is POST …/v1/messages.
	Messages
	// CountTokens is POST …/v1/messages/count_tokens.
	CountTokens
)

// The media types of the API's bodies.
const (
	JSON        = "application/json"
	EventStream = "text/event-stream"
)

// EndpointOf returns the endpoint r is for and the path before
// "/v1/messages". It matches the end of the path, so that a gateway serves
// the API under any prefix; the query (Claude Code sends ?beta=true) and a
// trailing slash do not matter.
func EndpointOf(r *http.Request) (Endpoint, string) {
	if r.Method != http.MethodPost {
		return Other, ""
	}
	p := strings.TrimSuffix(r.URL.Path, "/")
	for _, e := range [...]struct {
		suffix string
		ep     Endpoint
	}{{"/v1/messages", Messages}, {"/v1/messages/count_tokens", CountTokens}} {
		if prefix, ok := strings.CutSuffix(p, e.suffix); ok {
			return e.ep, prefix
		}
	}
	return Other, ""
}

// MediaType returns the media type a header's Content-Type names, in
// lower case, without its parameters; "" when it names none.
func MediaType(h http.Header) string {
	ct := header.First(h, header.ContentType)
	if plainMediaType(ct) {
		return ct // what ParseMediaType returns for it, without its map
	}
	mt, _, _ := mime.ParseMediaType(ct)
	return mt
}

// plainMediaType reports whether ct is a media type alone, in lower case,
// as servers write application/json and text/event-stream: a token, a
// slash and a token, and nothing else.
func plainMediaType(ct string) bool {
	slash := -1
	for i := 0; i < len(ct); i++ {
		switch c := ct[i]; {
		case c >= 'a' && c <= 'z', c >= '0' && c <= '9', c == '-', c == '+', c == '.':
		case c == '/' && slash < 0:
			slash = i
		default:
			return false
		}
	}
	return slash > 0 && slash < len(ct)-1
}
