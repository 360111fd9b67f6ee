package gemini

import (
	"net/http"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/jsonscan"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/messagesapi"
)

// ErrorBody returns the Anthropic error envelope for a Gemini error answer
// of the given status: Google's message ({"error":{"message"}}, or the
// body's text), under the type of that status.
func ErrorBody(status int, body []byte) []byte {
	return messagesapi.AppendError(nil, messagesapi.ErrorType(status), errorMessage(status, body))
}

// errorMessage finds the message of a Google error body; a stream's may
// be an array of one.
func errorMessage(status int, body []byte) string {
	return messagesapi.UpstreamMessage(status, body, func(v jsonscan.Value) string {
		if v.Kind() == jsonscan.Array {
			v = v.Index(0)
		}
		return v.Get("error", "message").Str()
	})
}

// errorStatus returns the HTTP status of a Google error object: its code,
// else 500.
func errorStatus(errObj jsonscan.Value) int {
	if c := errObj.Get("code").Int(); c >= 400 && c < 600 {
		return int(c)
	}
	return http.StatusInternalServerError
}
