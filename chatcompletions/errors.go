package chatcompletions

import (
	"bytes"
	"unicode/utf8"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/jsonscan"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/messagesapi"
)

// ErrorBody returns the Anthropic error envelope for an upstream error
// answer of the given status: the message is the one the server gave, in
// any of the shapes chat-completions servers use ({"error":{"message"}},
// {"error":"..."}, {"message"}, {"detail"}), or the body's text when it is
// not JSON, or the status text when it is empty.
func ErrorBody(status int, body []byte) []byte {
	return messagesapi.AppendError(nil, messagesapi.ErrorType(status), upstreamMessage(status, body))
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
				// FastAPI's validation errors, as the Messages API
				// writes its own, so that the safety net can read them.
				if msg = messagesapi.DetailMessage(v); msg == "" {
					msg = string(v)
				}
			}
		}
	} else if utf8.Valid(body) {
		msg = string(body)
	}
	return messagesapi.ErrorMessage(status, msg)
}
