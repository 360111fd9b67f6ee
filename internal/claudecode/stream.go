package claudecode

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// Event is one server-sent event of a stream.
type Event struct {
	// Name is the value of the event's "event" field, e.g.
	// "content_block_delta"; "" when it had none.
	Name string
	// Data is the event's data, its data lines joined by "\n".
	Data []byte
}

// Events splits a complete event stream into its events, as the client
// reads them. Lines may end in "\n", "\r\n" or "\r"; comment lines and
// fields other than event and data are ignored.
func Events(stream []byte) []Event {
	stream = bytes.ReplaceAll(stream, []byte("\r\n"), []byte("\n"))
	stream = bytes.ReplaceAll(stream, []byte("\r"), []byte("\n"))
	var (
		events []Event
		cur    Event
		data   [][]byte
	)
	for line := range bytes.SplitSeq(stream, []byte("\n")) {
		if len(line) == 0 {
			if data != nil {
				cur.Data = bytes.Join(data, []byte("\n"))
				events = append(events, cur)
			}
			cur, data = Event{}, nil
			continue
		}
		field, value, _ := bytes.Cut(line, []byte(":"))
		value = bytes.TrimPrefix(value, []byte(" "))
		switch string(field) {
		case "event":
			cur.Name = string(value)
		case "data":
			data = append(data, value)
		}
	}
	return events
}

// streamEvent is the union of the stream event payloads the client reads.
type streamEvent struct {
	Type    string `json:"type"`
	Message struct {
		Model string `json:"model"`
	} `json:"message"`
	Index        int             `json:"index"`
	ContentBlock json.RawMessage `json:"content_block"`
	Delta        struct {
		Type        string `json:"type"`
		Thinking    string `json:"thinking"`
		Signature   string `json:"signature"`
		Text        string `json:"text"`
		PartialJSON string `json:"partial_json"`
		StopReason  string `json:"stop_reason"`
	} `json:"delta"`
	Error struct {
		Type    string `json:"type"`
		Message string `json:"message"`
	} `json:"error"`
}

// blockBuilder collects one content block of a stream.
type blockBuilder struct {
	start     json.RawMessage
	typ       string
	id, name  string
	startSig  bool // content_block_start carried a "signature" key
	sawSig    bool // a signature_delta arrived
	thinking  strings.Builder
	signature strings.Builder
	text      strings.Builder
	partial   strings.Builder
}

// Message is what Claude Code keeps of a streamed answer.
type Message struct {
	// Content is the content array, serialised as the client replays it.
	Content []byte
	// Model is the model message_start names.
	Model      string
	StopReason string
	// ErrorType and ErrorMessage are those of the error event that ended
	// the stream, if one did; Content is nil then.
	ErrorType, ErrorMessage string
}

// Assemble builds the assistant message of a Messages API stream the way
// Claude Code does.
func Assemble(stream []byte) (*Message, error) {
	out := &Message{}
	blocks := map[int]*blockBuilder{}
	stopped := false
	for _, ev := range Events(stream) {
		var e streamEvent
		if err := json.Unmarshal(ev.Data, &e); err != nil {
			return nil, fmt.Errorf("event %q: %w", ev.Name, err)
		}
		switch e.Type {
		case "message_start":
			out.Model = e.Message.Model
		case "content_block_start":
			var fields map[string]json.RawMessage
			if err := json.Unmarshal(e.ContentBlock, &fields); err != nil {
				return nil, fmt.Errorf("content_block_start %d: %w", e.Index, err)
			}
			b := &blockBuilder{start: e.ContentBlock}
			json.Unmarshal(fields["type"], &b.typ)
			json.Unmarshal(fields["id"], &b.id)
			json.Unmarshal(fields["name"], &b.name)
			_, b.startSig = fields["signature"]
			blocks[e.Index] = b
		case "content_block_delta":
			b, ok := blocks[e.Index]
			if !ok {
				return nil, fmt.Errorf("content_block_delta for unknown index %d", e.Index)
			}
			switch e.Delta.Type {
			case "thinking_delta":
				b.thinking.WriteString(e.Delta.Thinking)
			case "signature_delta":
				b.sawSig = true
				b.signature.WriteString(e.Delta.Signature)
			case "text_delta":
				b.text.WriteString(e.Delta.Text)
			case "input_json_delta":
				b.partial.WriteString(e.Delta.PartialJSON)
			}
		case "message_delta":
			out.StopReason = e.Delta.StopReason
		case "message_stop":
			stopped = true
		case "error":
			out.ErrorType, out.ErrorMessage = e.Error.Type, e.Error.Message
			return out, nil
		}
	}
	if !stopped {
		return nil, errors.New("stream ended without message_stop")
	}
	content := []byte{'['}
	for n, idx := range slices.Sorted(maps.Keys(blocks)) {
		if n > 0 {
			content = append(content, ',')
		}
		b, err := blocks[idx].final()
		if err != nil {
			return nil, fmt.Errorf("content block %d: %w", idx, err)
		}
		content = append(content, b...)
	}
	out.Content = append(content, ']')
	return out, nil
}

// final is the block as the client stores it in its history.
func (b *blockBuilder) final() ([]byte, error) {
	switch b.typ {
	case "thinking":
		out := AppendString([]byte(`{"type":"thinking","thinking":`), b.thinking.String())
		if b.startSig || b.sawSig {
			out = AppendString(append(out, `,"signature":`...), b.signature.String())
		}
		return append(out, '}'), nil
	case "text":
		return append(AppendString([]byte(`{"type":"text","text":`), b.text.String()), '}'), nil
	case "tool_use":
		input := []byte("{}")
		if b.partial.Len() > 0 {
			var err error
			if input, err = Stringify([]byte(b.partial.String())); err != nil {
				return nil, fmt.Errorf("tool_use input: %w", err)
			}
		}
		out := AppendString([]byte(`{"type":"tool_use","id":`), b.id)
		out = AppendString(append(out, `,"name":`...), b.name)
		out = append(append(out, `,"input":`...), input...)
		return append(out, '}'), nil
	}
	return Stringify(b.start)
}

// AssembleStream builds the message of a Messages stream as Claude Code
// does: {"content":[...],"stop_reason":...}; an error event is an error.
func AssembleStream(stream []byte) ([]byte, error) {
	m, err := Assemble(stream)
	if err != nil {
		return nil, err
	}
	if m.ErrorType != "" {
		return nil, fmt.Errorf("claudecode: error event %s: %s", m.ErrorType, m.ErrorMessage)
	}
	stop, _ := json.Marshal(m.StopReason)
	return fmt.Appendf(nil, `{"content":%s,"stop_reason":%s}`, m.Content, stop), nil
}
