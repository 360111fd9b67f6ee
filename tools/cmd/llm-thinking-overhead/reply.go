package main

import (
	"crypto/sha256"
	"fmt"
	"slices"
)

// A reply is what the upstream answers: a JSON message whole, or a stream
// of SSE events, each written and flushed on its own.
type reply struct {
	contentType string
	events      [][]byte // the stream's events; nil for a JSON message
	body        []byte   // everything, as the client must receive it
	sum         [sha256.Size]byte
}

// stream reports whether the reply is a stream of events.
func (r *reply) stream() bool { return r.events != nil }

// jsonReply returns a small Messages response.
func jsonReply() *reply {
	body := []byte(`{"id":"msg_bench","type":"message","role":"assistant","model":"m","content":[{"type":"text","text":"ok"}],"stop_reason":"end_turn","stop_sequence":null,"usage":{"input_tokens":10,"output_tokens":1}}`)
	return &reply{contentType: "application/json", body: body, sum: sha256.Sum256(body)}
}

// sseReply returns a streamed Messages response of one text block made of
// deltas text deltas.
func sseReply(deltas int) *reply {
	events := [][]byte{
		sseEvent("message_start", `{"type":"message_start","message":{"id":"msg_bench","type":"message","role":"assistant","model":"m","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":10,"output_tokens":1}}}`),
		sseEvent("content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`),
	}
	delta := sseEvent("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Here is some more of the answer, "}}`)
	for range deltas {
		events = append(events, delta)
	}
	events = append(events,
		sseEvent("content_block_stop", `{"type":"content_block_stop","index":0}`),
		sseEvent("message_delta", fmt.Sprintf(`{"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":%d}}`, deltas)),
		sseEvent("message_stop", `{"type":"message_stop"}`),
	)
	body := slices.Concat(events...)
	return &reply{contentType: "text/event-stream", events: events, body: body, sum: sha256.Sum256(body)}
}

// sseEvent returns one server-sent event.
func sseEvent(name, data string) []byte {
	return fmt.Appendf(nil, "event: %s\ndata: %s\n\n", name, data)
}
