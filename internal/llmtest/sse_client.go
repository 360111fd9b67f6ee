package llmtest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// sseEvent is one server-sent event.
type sseEvent struct {
	name string
	data []byte
}

// parseSSE splits a complete event stream into events. Lines may end in
// "\n", "\r\n" or "\r"; comment lines and fields other than event and data
// are ignored, several data lines are joined with "\n".
func parseSSE(body []byte) []sseEvent {
	body = bytes.ReplaceAll(body, []byte("\r\n"), []byte("\n"))
	body = bytes.ReplaceAll(body, []byte("\r"), []byte("\n"))
	var (
		events []sseEvent
		cur    sseEvent
		data   [][]byte
	)
	for line := range bytes.SplitSeq(body, []byte("\n")) {
		if len(line) == 0 {
			if data != nil {
				cur.data = bytes.Join(data, []byte("\n"))
				events = append(events, cur)
			}
			cur, data = sseEvent{}, nil
			continue
		}
		field, value, _ := bytes.Cut(line, []byte(":"))
		value = bytes.TrimPrefix(value, []byte(" "))
		switch string(field) {
		case "event":
			cur.name = string(value)
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

// streamedMessage is what a stream assembled into.
type streamedMessage struct {
	content    []byte // the content array, serialised as the client replays it
	model      string // the model message_start names
	stopReason string
	errType    string
	errMessage string
}

// assembleStream builds the assistant content from a Messages API stream
// the way Claude Code does.
func assembleStream(body []byte) (*streamedMessage, error) {
	out := &streamedMessage{}
	blocks := map[int]*blockBuilder{}
	stopped := false
	for _, ev := range parseSSE(body) {
		var e streamEvent
		if err := json.Unmarshal(ev.data, &e); err != nil {
			return nil, fmt.Errorf("event %q: %w", ev.name, err)
		}
		switch e.Type {
		case "message_start":
			out.model = e.Message.Model
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
			out.stopReason = e.Delta.StopReason
		case "message_stop":
			stopped = true
		case "error":
			out.errType, out.errMessage = e.Error.Type, e.Error.Message
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
	out.content = append(content, ']')
	return out, nil
}

// final is the block as the client stores it in its history.
func (b *blockBuilder) final() ([]byte, error) {
	switch b.typ {
	case "thinking":
		out := appendJSString([]byte(`{"type":"thinking","thinking":`), b.thinking.String())
		if b.startSig || b.sawSig {
			out = appendJSString(append(out, `,"signature":`...), b.signature.String())
		}
		return append(out, '}'), nil
	case "text":
		return append(appendJSString([]byte(`{"type":"text","text":`), b.text.String()), '}'), nil
	case "tool_use":
		input := []byte("{}")
		if b.partial.Len() > 0 {
			var err error
			if input, err = stringifyJS([]byte(b.partial.String())); err != nil {
				return nil, fmt.Errorf("tool_use input: %w", err)
			}
		}
		out := appendJSString([]byte(`{"type":"tool_use","id":`), b.id)
		out = appendJSString(append(out, `,"name":`...), b.name)
		out = append(append(out, `,"input":`...), input...)
		return append(out, '}'), nil
	}
	return stringifyJS(b.start)
}

// AssembleStream builds the message of a Messages stream as Claude Code
// does: {"content":[...],"stop_reason":...}; an error event is an error.
func AssembleStream(body []byte) ([]byte, error) {
	sm, err := assembleStream(body)
	if err != nil {
		return nil, err
	}
	if sm.errType != "" {
		return nil, fmt.Errorf("llmtest: error event %s: %s", sm.errType, sm.errMessage)
	}
	stop, _ := json.Marshal(sm.stopReason)
	return fmt.Appendf(nil, `{"content":%s,"stop_reason":%s}`, sm.content, stop), nil
}
