package responses

import (
	"bytes"
	"errors"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/jsonscan"
)

// ErrNotAnswer says an upstream answer is not a Responses response.
var ErrNotAnswer = errors.New("not a Responses answer: want a JSON object with an output array")

// TranslateAnswer translates a whole (not streamed) response into a
// Messages answer: the blocks a stream of it gives (see Stream), read from
// its output items, with the stop reason and the usage.
func TranslateAnswer(body []byte, opts AnswerOptions) ([]byte, error) {
	body = bytes.TrimSpace(body)
	if !jsonscan.Valid(body) {
		return nil, ErrNotAnswer
	}
	resp := jsonscan.Parse(body)
	output := resp.Get("output")
	if resp.Kind() != jsonscan.Object || output.Kind() != jsonscan.Array {
		return nil, ErrNotAnswer
	}
	if e := resp.Get("error"); e.Kind() == jsonscan.Object {
		return nil, errors.New("the upstream answered an error: " + failedMessage(e))
	}
	// The stream's events of the output items, read back as a message.
	s := NewStream(opts)
	s.started = true
	var events []byte
	for it := range output.Elements() {
		events = s.itemAdded(events, it)
		events = s.itemDone(events, it)
	}
	events = s.closeOpen(events)
	return messageOf(events, messageID(resp.Get("id")), s.modelLit, stopReason(resp, s.calls),
		usageOf(resp.Get("usage"), opts.InputTokens), len(body)), nil
}
