package gemini

import (
	"bytes"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/jsonscan"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/jsonstr"
)

// NoAnswer is an answer the model failed to produce: Gemini answers 200
// with a candidate that has no content (no text, no function call; at
// most thoughts) and a finish reason that says why (failedFinish). Sent
// again, the same request usually gets an answer, as gemini-cli finds; a
// client that got it as an answer would end its turn without a word.
type NoAnswer struct {
	// Reason is the finishReason: MALFORMED_FUNCTION_CALL,
	// UNEXPECTED_TOOL_CALL or TOO_MANY_TOOL_CALLS.
	Reason string
	// Message is Gemini's finishMessage, when it gave one.
	Message string
}

// Error implements error.
func (e *NoAnswer) Error() string {
	msg := "the model failed to produce an answer (Gemini finishReason " + e.Reason
	if e.Message != "" {
		msg += ": " + e.Message
	}
	return msg + ")"
}

// EmptyAnswer marks the error as an answer the same request usually gets
// when sent again.
func (e *NoAnswer) EmptyAnswer() {}

// failedFinish reports whether a finishReason says the model failed to
// produce an answer (google.golang.org/genai's FinishReason): a function
// call it could not write, one to a tool it was not given, too many.
func failedFinish(finish []byte) bool {
	switch string(finish) {
	case "MALFORMED_FUNCTION_CALL", "UNEXPECTED_TOOL_CALL", "TOO_MANY_TOOL_CALLS":
		return true
	}
	return false
}

// noAnswer returns the NoAnswer of a finish reason and message (a string
// literal, or nil), when the answer gave neither text nor a call.
func noAnswer(finish []byte, message jsonscan.Value, answered bool) *NoAnswer {
	if answered || !failedFinish(finish) {
		return nil
	}
	e := &NoAnswer{Reason: string(finish)}
	if message.Kind() == jsonscan.String {
		if m, ok := jsonstr.Append(nil, message); ok {
			e.Message = string(bytes.ToValidUTF8(m, []byte("\uFFFD")))
		}
	}
	return e
}
