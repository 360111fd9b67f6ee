package chatcompletions

import (
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
	return messagesapi.UpstreamMessage(status, body, jsonMessage)
}

// jsonMessage finds the message of an error body that is JSON, r.
func jsonMessage(r jsonscan.Value) string {
	msg := ""
	for _, path := range [][]string{{"error", "message"}, {"error"}, {"message"}, {"detail"}} {
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
	raw := r.Get("error", "metadata", "raw")
	if !raw.Exists() {
		raw = r.Get("metadata", "raw")
	}
	return withProviderError(msg, raw)
}

// withProviderError adds to msg the error of the provider behind a router:
// OpenRouter answers one with "Provider returned error" and the provider's
// own words in error.metadata.raw (a string, sometimes an object), which
// are what the client needs to read, and what llm_thinking's safety net
// recognizes a refusal by (a Gemini thought signature, say).
func withProviderError(msg string, raw jsonscan.Value) string {
	var s string
	switch raw.Kind() {
	case jsonscan.String:
		s = raw.Str()
	case jsonscan.Object:
		s = string(raw)
	}
	switch {
	case s == "" || s == msg:
		return msg
	case msg == "":
		return s
	}
	return msg + ": " + s
}
