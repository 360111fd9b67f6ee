// Package events reads the data of the events of an Anthropic Messages
// stream: an event's type, the index of the content block it is about, the
// block a content_block_start carries, the delta of a content_block_delta,
// message_start's message, message_delta's usage. Every reader of streamed
// answers reads events through it: the observer that learns a stream's
// thinking blocks (package observe), the rewriters of <think> tags
// (thinktags) and of the model name (modelname).
//
// Like JSON.parse in the client, the last of duplicate keys wins and keys
// match by their decoded value. Nearly every event of a stream is a delta
// written exactly as the API writes it, which ReadDelta and
// DeltaIndex read with a few comparisons and one scan; anything written
// otherwise is read in full by Read. The package hands out slices of the
// data it is given and never allocates.
package events

import (
	"bytes"
	"encoding/binary"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/eventstream"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/jsonscan"
)

// Type is the type of an event, as its data's "type" says.
type Type uint8

// The types of a Messages stream's events.
const (
	// Other is any type not named below, or none.
	Other Type = iota
	MessageStart
	ContentBlockStart
	ContentBlockDelta
	ContentBlockStop
	MessageDelta
	MessageStop
	Ping
	Error
)

// typeOf returns the Type a decoded type name names.
func typeOf(name []byte) Type {
	switch string(name) {
	case "message_start":
		return MessageStart
	case "content_block_start":
		return ContentBlockStart
	case "content_block_delta":
		return ContentBlockDelta
	case "content_block_stop":
		return ContentBlockStop
	case "message_delta":
		return MessageDelta
	case "message_stop":
		return MessageStop
	case "ping":
		return Ping
	case "error":
		return Error
	}
	return Other
}

// MaxIndex is the largest content block index read; a larger one (ten
// digits and more) reads as none. Readers follow far fewer blocks.
const MaxIndex = 999_999_999

// Event is what one event's data says: slices of it.
type Event struct {
	Type Type
	// Index is the content block index, when HasIndex; IndexAt is where
	// its value lies in the data (a rewriter that renumbers blocks puts
	// another there).
	Index    int
	HasIndex bool
	IndexAt  [2]int
	// Block is content_block_start's content_block, Delta
	// content_block_delta's delta, Message message_start's message,
	// Usage message_delta's usage: the values as they are in the data.
	Block, Delta, Message, Usage []byte

	delta     Delta // Delta read (see ReadDelta)
	deltaRead bool
}

// Read reads an event's data in full. It reports false when the data is
// not one JSON object (a "[DONE]", a cut event).
func Read(data []byte) (Event, bool) {
	var ev Event
	var typ []byte
	var name [32]byte
	it := jsonscan.Members(data, jsonscan.SkipSpace(data, 0))
	for key, v, ok := it.Next(); ok; key, v, ok = it.Next() {
		end, ok := it.Skip()
		if !ok {
			break
		}
		switch string(jsonscan.Name(key, &name)) {
		case "type":
			typ = data[v:end]
		case "index":
			ev.IndexAt = [2]int{v, end}
		case "content_block":
			ev.Block = data[v:end]
		case "delta":
			ev.Delta = data[v:end]
		case "message":
			ev.Message = data[v:end]
		case "usage":
			ev.Usage = data[v:end]
		}
	}
	if it.Err() != nil || jsonscan.SkipSpace(data, it.End()) != len(data) {
		return Event{}, false
	}
	ev.Type = typeOf(jsonscan.Name(typ, &name))
	if ev.IndexAt[1] > 0 {
		ev.Index, ev.HasIndex = eventstream.Index(data[ev.IndexAt[0]:ev.IndexAt[1]], MaxIndex)
	}
	return ev, true
}

// How the Messages API writes the data of a content_block_delta event.
const (
	deltaHead = `{"type":"content_block_delta","index":`
	deltaMid  = `,"delta":`
)

// DeltaIndex reads the index of a content_block_delta whose data starts as
// the API writes one, and reports false for any other data. It reads no
// further: a reader that does not follow that block needs nothing else of
// the event.
func DeltaIndex(data []byte) (int, bool) {
	rest, ok := bytes.CutPrefix(data, []byte(deltaHead))
	if !ok {
		return 0, false
	}
	end := bytes.IndexByte(rest, ',')
	if end < 0 {
		return 0, false
	}
	return eventstream.Index(rest[:end], MaxIndex)
}

// deltaEvent starts a content_block_delta event as the API writes it, its
// event line and its data line up to the index.
const (
	deltaEvent  = "event: content_block_delta\ndata: " + deltaHead
	deltaDataAt = len("event: content_block_delta\ndata: ")
)

// DeltaEvent reads the whole content_block_delta event at the start of
// raw, an event stream's bytes, when it is written as the API writes one
// (its event line, one data line, a blank line; no '\r'), and returns the
// block's index and the event's length, its blank line included; it
// reports false for anything else. A reader that does not follow that
// block passes over the event at the cost of finding its end; one that
// does reads it as a RawDelta.
func DeltaEvent(raw []byte) (index, n int, ok bool) {
	if index, n, ok = DeltaEventNoCR(raw); ok && bytes.IndexByte(raw[len(deltaEvent):n], '\r') >= 0 {
		return 0, 0, false
	}
	return index, n, ok
}

// DeltaEventNoCR is DeltaEvent for raw known to hold no '\r' (a reader
// that looked for one in a whole chunk once): it spares each event the
// scan for one, leaving the scan for its end.
func DeltaEventNoCR(raw []byte) (index, n int, ok bool) {
	if len(raw) < len(deltaEvent)+2 {
		return 0, 0, false
	}
	// Does raw start with deltaEvent? A word at a time, written out:
	// nearly every event of a stream is compared with it, and a loop or
	// a call costs a third more.
	const dn = len(deltaEvent)
	_ = [1]struct{}{}[dn/8+1-len(deltaWords)] // deltaWords covers deltaEvent
	le, w := binary.LittleEndian, &deltaWords
	if (le.Uint64(raw[0:])^w[0])|(le.Uint64(raw[8:])^w[1])|(le.Uint64(raw[16:])^w[2])|
		(le.Uint64(raw[24:])^w[3])|(le.Uint64(raw[32:])^w[4])|(le.Uint64(raw[40:])^w[5])|
		(le.Uint64(raw[48:])^w[6])|(le.Uint64(raw[56:])^w[7])|(le.Uint64(raw[dn-8:])^w[8]) != 0 {
		return 0, 0, false
	}
	rest := raw[len(deltaEvent):]
	digits := 1
	if rest[1] == ',' { // nearly every index has one digit
		if index = int(rest[0] - '0'); uint(index) > 9 {
			return 0, 0, false
		}
	} else {
		for digits < len(rest) && rest[digits]-'0' <= 9 {
			digits++
		}
		if index, ok = eventstream.Index(rest[:digits], MaxIndex); !ok || digits == len(rest) || rest[digits] != ',' {
			return 0, 0, false
		}
	}
	end := bytes.IndexByte(rest[digits:], '\n')
	if end < 0 {
		return 0, 0, false
	}
	end += digits
	if end+1 >= len(rest) || rest[end+1] != '\n' {
		return 0, 0, false
	}
	return index, len(deltaEvent) + end + 2, true
}

// deltaWords is deltaEvent in words (see wordsOf), which DeltaEventNoCR
// compares written out.
var deltaWords = [9]uint64(wordsOf(deltaEvent))

// wordsOf returns s, at least 8 bytes long, in little-endian words: one
// for each whole 8 bytes, and a last one ending where s ends.
func wordsOf(s string) []uint64 {
	w := make([]uint64, len(s)/8+1)
	for i := range len(w) - 1 {
		w[i] = binary.LittleEndian.Uint64([]byte(s[8*i:]))
	}
	w[len(w)-1] = binary.LittleEndian.Uint64([]byte(s[len(s)-8:]))
	return w
}

// RawDelta is a whole content_block_delta event that DeltaEvent read.
type RawDelta []byte

// Data returns the event's data.
func (r RawDelta) Data() []byte { return r[deltaDataAt : len(r)-2] }

// thinkingMid is what follows the index of a thinking_delta event as the
// API writes one, up to its text's opening quote.
const thinkingMid = `,"delta":{"type":"thinking_delta","thinking":"`

// thinkingWords is thinkingMid in words (see wordsOf).
var thinkingWords = [6]uint64(wordsOf(thinkingMid))

// PlainThinking returns the text of the event when it is a thinking_delta
// written as the API writes one, whose text is plain (see jsonscan.Plain):
// the text itself, between its quotes. It reports false for anything else,
// which Delta reads. Nearly every delta of a thinking block is one, and
// this is all that reading it takes: through Delta (its type table, a
// string compare of 46 bytes), the bench's answer of 500 thinking deltas
// costs 1.04 M instructions to observe instead of 0.94 M.
func (r RawDelta) PlainThinking() ([]byte, bool) {
	const n = len(thinkingMid)
	_ = [1]struct{}{}[n/8+1-len(thinkingWords)] // thinkingWords covers thinkingMid
	rest := r[len(deltaEvent) : len(r)-2]
	digits := 1
	for digits < len(rest) && rest[digits] != ',' {
		digits++
	}
	rest = rest[digits:]
	if len(rest) < n+len(`"}}`) || string(rest[len(rest)-3:]) != `"}}` {
		return nil, false
	}
	le, w := binary.LittleEndian, &thinkingWords
	if (le.Uint64(rest[0:])^w[0])|(le.Uint64(rest[8:])^w[1])|(le.Uint64(rest[16:])^w[2])|
		(le.Uint64(rest[24:])^w[3])|(le.Uint64(rest[32:])^w[4])|(le.Uint64(rest[n-8:])^w[5]) != 0 {
		return nil, false
	}
	text := rest[n : len(rest)-3]
	if !jsonscan.Plain(text) {
		return nil, false
	}
	return text, true
}

// Delta reads the event's delta when the data holds nothing else and the
// delta is written as the API writes one of the known types (see Quick),
// and reports false otherwise: Quick or Read read the data then.
func (r RawDelta) Delta() (Delta, bool) {
	rest := r[len(deltaEvent) : len(r)-2]
	rest = rest[bytes.IndexByte(rest, ','):]
	rest, ok := bytes.CutPrefix(rest, []byte(deltaMid))
	if !ok {
		return Delta{}, false
	}
	if d, ok := plainDelta(rest); ok {
		return d, true
	}
	d, n, ok := quickDelta(rest)
	if !ok || string(rest[n:]) != "}" {
		return Delta{}, false
	}
	return d, true
}

// plainDelta reads rest, a delta and the '}' that closes the event's data,
// when the delta is written as the API writes one of the known types and
// its field is plain (see jsonscan.Plain), which nearly every delta is:
// the field's end is then known from the data's, and its contents are
// read once.
func plainDelta(rest []byte) (Delta, bool) {
	if len(rest) < 3 || string(rest[len(rest)-3:]) != `"}}` {
		return Delta{}, false
	}
	f := fieldOf(rest)
	if f == nil || len(rest) < len(f.head)+4 || string(rest[:len(f.head)]) != f.head {
		return Delta{}, false
	}
	lit := rest[len(f.head) : len(rest)-2]
	if lit[0] != '"' || !jsonscan.Plain(lit[1:len(lit)-1]) {
		return Delta{}, false
	}
	return Delta{Type: f.typ, Field: lit, Plain: true}, true
}

// fieldOf returns the delta type that delta, written as the API writes
// one, names by the first letters of its type, or nil.
func fieldOf(delta []byte) *deltaField {
	const at = len(`{"type":"`)
	if len(delta) < at+2 {
		return nil
	}
	switch delta[at] {
	case 't':
		if delta[at+1] == 'e' {
			return &deltaFields[0]
		}
		return &deltaFields[1]
	case 's':
		return &deltaFields[2]
	case 'i':
		return &deltaFields[3]
	}
	return nil
}

// Quick reads data written exactly as the API writes a content_block_delta
// event, with nothing else in it, and reports false for any other data,
// which Read reads then: the index and the delta, found with a few
// comparisons and one scan of the delta; a delta written as the API writes
// it is read already (see ReadDelta).
func Quick(data []byte) (Event, bool) {
	rest, ok := bytes.CutPrefix(data, []byte(deltaHead))
	if !ok {
		return Event{}, false
	}
	end := bytes.IndexByte(rest, ',')
	if end < 0 {
		return Event{}, false
	}
	ev := Event{Type: ContentBlockDelta, IndexAt: [2]int{len(deltaHead), len(deltaHead) + end}}
	ev.Index, ev.HasIndex = eventstream.Index(rest[:end], MaxIndex)
	if rest, ok = bytes.CutPrefix(rest[end:], []byte(deltaMid)); !ev.HasIndex || !ok {
		return Event{}, false
	}
	if d, n, ok := quickDelta(rest); ok && string(rest[n:]) == "}" {
		ev.Delta, ev.delta, ev.deltaRead = rest[:n], d, true
		return ev, true
	}
	end, ok = jsonscan.SkipValue(rest, 0)
	if !ok || string(rest[end:]) != "}" {
		return Event{}, false
	}
	ev.Delta = rest[:end]
	return ev, true
}
