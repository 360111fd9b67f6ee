package chatcompletions

import (
	"bytes"
	"net/http"
	"strconv"
	"unicode/utf8"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/jsonscan"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/jsonstr"
)

// maxErrorMessage bounds the message taken from an upstream error body.
const maxErrorMessage = 2048

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

// ErrorBody returns the Anthropic error envelope for an upstream error
// answer of the given status: the message is the one the server gave, in
// any of the shapes chat-completions servers use ({"error":{"message"}},
// {"error":"..."}, {"message"}, {"detail"}), or the body's text when it is
// not JSON, or the status text when it is empty.
func ErrorBody(status int, body []byte) []byte {
	return AppendError(nil, ErrorType(status), upstreamMessage(status, body))
}

// AppendError appends the Anthropic error envelope with type typ and
// message msg.
func AppendError(dst []byte, typ, msg string) []byte {
	dst = append(dst, `{"type":"error","error":{"type":`...)
	dst = jsonstr.Quote(dst, []byte(typ))
	dst = append(dst, `,"message":`...)
	dst = jsonstr.Quote(dst, []byte(msg))
	return append(dst, "}}"...)
}

// AppendErrorEvent appends an error event, as the Messages API sends one
// after the first byte of a stream; the event line is what clients read.
func AppendErrorEvent(dst []byte, typ, msg string) []byte {
	dst = append(dst, "event: error\ndata: "...)
	return append(AppendError(dst, typ, msg), "\n\n"...)
}

// upstreamMessage finds the message of an error body.
func upstreamMessage(status int, body []byte) string {
	body = bytes.TrimSpace(body)
	msg := ""
	if jsonscan.Valid(body) {
		r := jsonscan.Parse(body)
		for _, path := range [][]string{{"error", "message"}, {"error"}, {"message"}, {"detail"}, {"error", "metadata", "raw"}} {
			if v := r.Get(path...).Str(); v != "" {
				msg = v
				break
			}
		}
		if msg == "" {
			if v := r.Get("detail"); v.Exists() {
				msg = string(v)
			}
		}
	} else if utf8.Valid(body) {
		msg = string(body)
	}
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
