package events

import (
	"bytes"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/jsonscan"
)

// DeltaType is the type of a content_block_delta's delta.
type DeltaType uint8

// The types of delta.
const (
	// OtherDelta is any type not named below, or none.
	OtherDelta DeltaType = iota
	TextDelta
	ThinkingDelta
	SignatureDelta
	InputJSONDelta
)

// deltaField is a delta type and the one field it carries.
type deltaField struct {
	typ   DeltaType
	name  string // the type's name
	field string
	head  string // how the API starts the delta, up to the field's value
}

// deltaFields are the delta types and the one field each carries, as the
// API writes them; fieldOf knows their order.
var deltaFields = [...]deltaField{
	{TextDelta, "text_delta", "text", `{"type":"text_delta","text":`},
	{ThinkingDelta, "thinking_delta", "thinking", `{"type":"thinking_delta","thinking":`},
	{SignatureDelta, "signature_delta", "signature", `{"type":"signature_delta","signature":`},
	{InputJSONDelta, "input_json_delta", "partial_json", `{"type":"input_json_delta","partial_json":`},
}

// Delta is what a content_block_delta's delta says: its type, and the
// literal of the one field its type carries (text, thinking, signature,
// partial_json), nil when it is absent.
type Delta struct {
	Type  DeltaType
	Field []byte
	// Plain says that Field's contents, between its quotes, are the
	// string itself (see jsonscan.Plain): no decoding needed.
	Plain bool
}

// ReadDelta reads the event's delta. It reports false when the delta is
// not an object.
func (ev *Event) ReadDelta() (Delta, bool) {
	if ev.deltaRead {
		return ev.delta, true
	}
	if d, n, ok := quickDelta(ev.Delta); ok && n == len(ev.Delta) {
		return d, true
	}
	return readDelta(ev.Delta)
}

// quickDelta reads a delta written as the API writes one of the known
// types, at the start of b, and returns it and where it ends.
func quickDelta(b []byte) (Delta, int, bool) {
	if !bytes.HasPrefix(b, []byte(`{"type":"`)) {
		return Delta{}, 0, false
	}
	for _, f := range deltaFields {
		if !bytes.HasPrefix(b, []byte(f.head)) {
			continue
		}
		end, ok := jsonscan.SkipString(b, len(f.head))
		if !ok || end >= len(b) || b[end] != '}' {
			return Delta{}, 0, false
		}
		return Delta{Type: f.typ, Field: b[len(f.head):end]}, end + 1, true
	}
	return Delta{}, 0, false
}

// readDelta reads a delta written in any other way.
func readDelta(obj []byte) (Delta, bool) {
	var typ []byte
	var fields [len(deltaFields)][]byte
	var name [32]byte
	it := jsonscan.Members(obj, jsonscan.SkipSpace(obj, 0))
	for key, v, ok := it.Item(); ok; key, v, ok = it.Item() {
		k := jsonscan.Name(key, &name)
		if string(k) == "type" {
			typ = v
			continue
		}
		for i, f := range deltaFields {
			if string(k) == f.field {
				fields[i] = v
			}
		}
	}
	if it.Err() != nil {
		return Delta{}, false
	}
	t := jsonscan.Name(typ, &name)
	for i, f := range deltaFields {
		if string(t) == f.name {
			return Delta{Type: f.typ, Field: fields[i]}, true
		}
	}
	return Delta{}, true
}
