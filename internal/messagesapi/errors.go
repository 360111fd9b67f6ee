package messagesapi

import (
	"bytes"
	"net/http"
	"strconv"
	"unicode/utf8"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/jsonscan"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/jsonstr"
)

// ErrorType returns the Anthropic error type for an HTTP status.
func ErrorType(status int) string {
	switch status {
	case http.StatusBadRequest, http.StatusUnprocessableEntity:
		return "invalid_request_error"
	case http.StatusUnauthorized:
		return "authentication_error"
	case http.StatusPaymentRequired, http.StatusForbidden:
		return "permission_error"
	case http.StatusNotFound:
		return "not_found_error"
	case http.StatusRequestEntityTooLarge:
		return "request_too_large"
	case http.StatusTooManyRequests:
		return "rate_limit_error"
	case 529, http.StatusServiceUnavailable:
		return "overloaded_error"
	}
	if status >= 400 && status < 500 {
		return "invalid_request_error"
	}
	return "api_error"
}

// AppendError appends the Anthropic error envelope with type typ and
// message msg, its addresses scrubbed (see Scrub).
func AppendError(dst []byte, typ, msg string) []byte {
	dst = append(dst, `{"type":"error","error":{"type":`...)
	dst = jsonstr.Quote(dst, []byte(typ))
	dst = append(dst, `,"message":`...)
	dst = jsonstr.Quote(dst, []byte(Scrub(msg)))
	return append(dst, "}}"...)
}

// AppendErrorEvent appends an error event, as the Messages API sends one
// after the first byte of a stream; the event line is what clients read.
func AppendErrorEvent(dst []byte, typ, msg string) []byte {
	dst = append(dst, "event: error\ndata: "...)
	return append(AppendError(dst, typ, msg), "\n\n"...)
}

// UpstreamMessage returns the message the client gets for an upstream's
// error answer of status (see ErrorMessage): what find reads in its JSON,
// or the body's text when it is not JSON.
func UpstreamMessage(status int, body []byte, find func(jsonscan.Value) string) string {
	body = bytes.TrimSpace(body)
	msg := ""
	if jsonscan.Valid(body) {
		msg = find(jsonscan.Parse(body))
	} else if utf8.Valid(body) {
		msg = string(body)
	}
	return ErrorMessage(status, msg)
}

// maxErrorMessage bounds the message taken from an upstream error.
const maxErrorMessage = 2048

// ErrorMessage returns the message the client gets for an upstream's
// error: msg, the upstream's own, cut to maxErrorMessage bytes between
// characters; or, when it gave none, what its status says.
func ErrorMessage(status int, msg string) string {
	if msg == "" {
		msg = "upstream answered " + strconv.Itoa(status) + " " + http.StatusText(status)
	}
	if len(msg) > maxErrorMessage {
		cut := maxErrorMessage
		for cut > 0 && !utf8.RuneStart(msg[cut]) {
			cut--
		}
		msg = msg[:cut] + "…"
	}
	return msg
}
