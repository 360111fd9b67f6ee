package llmtest

// Event is one server-sent event of a stream.
type Event struct {
	// Name is the value of the event's "event" field, e.g.
	// "content_block_delta"; "" when it had none.
	Name string
	// Data is the event's data, its data lines joined by "\n".
	Data []byte
}

// Events splits a complete event stream, such as Turn.Raw or the Response
// of a streamed request, into its events, as the client reads them.
func Events(stream []byte) []Event {
	var out []Event
	for _, ev := range parseSSE(stream) {
		out = append(out, Event{Name: ev.name, Data: ev.data})
	}
	return out
}
