package responses

import (
	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/jsonscan"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/messagesapi"
)

// ErrorBody returns the Anthropic error envelope for an error answer of
// the given status: OpenAI's message ({"error":{"message"}}), or the
// body's text, under the type of that status.
func ErrorBody(status int, body []byte) []byte {
	msg := messagesapi.UpstreamMessage(status, body, func(v jsonscan.Value) string {
		if msg := v.Get("error", "message").Str(); msg != "" {
			return msg
		}
		return v.Get("message").Str()
	})
	return messagesapi.AppendError(nil, messagesapi.ErrorType(status), msg)
}

// errorType returns the Messages error type of an error a stream reports
// after its first byte, by its code.
func errorType(code, errObj jsonscan.Value) string {
	if !code.Exists() {
		code = errObj.Get("code")
	}
	var name [32]byte
	switch string(code.Name(&name)) {
	case "rate_limit_exceeded", "insufficient_quota":
		return "rate_limit_error"
	case "server_is_overloaded", "slow_down":
		return "overloaded_error"
	case "", "server_error":
		return "api_error"
	}
	return "invalid_request_error"
}

// streamErrorMessage returns the message of an error event: its message,
// at its top level or in an error object.
func streamErrorMessage(ev event) string {
	msg := ev.message.Str()
	if msg == "" {
		msg = ev.er.Get("message").Str()
	}
	if msg == "" {
		msg = "the upstream's stream failed"
	}
	return messagesapi.ErrorMessage(0, msg)
}

// failedMessage returns the message of a failed response's error.
func failedMessage(e jsonscan.Value) string {
	msg := e.Get("message").Str()
	if msg == "" {
		msg = "the upstream's response failed"
	}
	return messagesapi.ErrorMessage(0, msg)
}
