package events

import (
	"bytes"
	"strings"
	"testing"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/jsonstr"
)

func TestRead(t *testing.T) {
	for _, tc := range []struct {
		name, data string
		want       Event
		ok         bool
	}{
		{"message_start", `{"type":"message_start","message":{"id":"msg_1","model":"m"}}`,
			Event{Type: MessageStart, Message: []byte(`{"id":"msg_1","model":"m"}`)}, true},
		{"a block's start", `{"type":"content_block_start","index":2,"content_block":{"type":"thinking","thinking":""}}`,
			Event{Type: ContentBlockStart, Index: 2, HasIndex: true, IndexAt: [2]int{38, 39}, Block: []byte(`{"type":"thinking","thinking":""}`)}, true},
		{"spaces and another order", `{ "index" : 0 , "type" : "content_block_stop" }`,
			Event{Type: ContentBlockStop, HasIndex: true, IndexAt: [2]int{12, 13}}, true},
		{"an escaped key and type", `{"\u0074ype":"message_\u0073top"}`, Event{Type: MessageStop}, true},
		{"the last of duplicate keys", `{"type":"ping","type":"message_delta","usage":{"output_tokens":5}}`,
			Event{Type: MessageDelta, Usage: []byte(`{"output_tokens":5}`)}, true},
		{"an unknown type", `{"type":"citations","index":1}`, Event{Type: Other, Index: 1, HasIndex: true, IndexAt: [2]int{28, 29}}, true},
		{"an index too large", `{"type":"content_block_stop","index":1000000000}`, Event{Type: ContentBlockStop, IndexAt: [2]int{37, 47}}, true},
		{"an index that is no integer", `{"type":"content_block_stop","index":"1"}`, Event{Type: ContentBlockStop, IndexAt: [2]int{37, 40}}, true},
		{"[DONE]", `[DONE]`, Event{}, false},
		{"a cut event", `{"type":"ping"`, Event{}, false},
		{"garbage after", `{"type":"ping"} x`, Event{}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := Read([]byte(tc.data))
			if ok != tc.ok || !same(got, tc.want) {
				t.Fatalf("Read = %+v %v, want %+v %v", got, ok, tc.want, tc.ok)
			}
		})
	}
}

func same(a, b Event) bool {
	return a.Type == b.Type && a.Index == b.Index && a.HasIndex == b.HasIndex && a.IndexAt == b.IndexAt &&
		bytes.Equal(a.Block, b.Block) && bytes.Equal(a.Delta, b.Delta) && bytes.Equal(a.Message, b.Message) && bytes.Equal(a.Usage, b.Usage)
}

func TestQuickAndDeltas(t *testing.T) {
	for _, tc := range []struct {
		name, data string
		quick      bool // Quick reads it
		index      int
		delta      Delta
		plain      bool // DeltaEvent reads its field once (see plainDelta)
	}{
		{"text", `{"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"Hi \"there\""}}`, true, 1,
			Delta{Type: TextDelta, Field: []byte(`"Hi \"there\""`)}, false},
		{"thinking", `{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"plan"}}`, true, 0,
			Delta{Type: ThinkingDelta, Field: []byte(`"plan"`)}, true},
		{"signature", `{"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"c2ln"}}`, true, 0,
			Delta{Type: SignatureDelta, Field: []byte(`"c2ln"`)}, true},
		{"tool input", `{"type":"content_block_delta","index":3,"delta":{"type":"input_json_delta","partial_json":"{\"a\""}}`, true, 3,
			Delta{Type: InputJSONDelta, Field: []byte(`"{\"a\""`)}, false},
		{"text with a character past ASCII", "{\"type\":\"content_block_delta\",\"index\":1,\"delta\":{\"type\":\"text_delta\",\"text\":\"caf\xc3\xa9\"}}", true, 1,
			Delta{Type: TextDelta, Field: []byte("\"caf\xc3\xa9\"")}, false},
		{"an empty text", `{"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":""}}`, true, 1,
			Delta{Type: TextDelta, Field: []byte(`""`)}, true},
		{"an unknown delta", `{"type":"content_block_delta","index":4,"delta":{"type":"citations_delta","citation":{}}}`, true, 4,
			Delta{Type: OtherDelta}, false},
		{"fields in another order", `{"type":"content_block_delta","index":0,"delta":{"thinking":"b","type":"thinking_delta"}}`, true, 0,
			Delta{Type: ThinkingDelta, Field: []byte(`"b"`)}, false},
		{"a duplicate field", `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"a","text":"b"}}`, true, 0,
			Delta{Type: TextDelta, Field: []byte(`"b"`)}, false},
		{"spaces", `{"type": "content_block_delta", "index": 2, "delta": {"type": "text_delta", "text": "x"}}`, false, 2,
			Delta{Type: TextDelta, Field: []byte(`"x"`)}, false},
		{"a member after the delta", `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"x"},"more":1}`, false, 0,
			Delta{Type: TextDelta, Field: []byte(`"x"`)}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data := []byte(tc.data)
			ev, quick := Quick(data)
			if quick != tc.quick {
				t.Fatalf("Quick reports %v", quick)
			}
			full, ok := Read(data)
			if !ok || full.Type != ContentBlockDelta || full.Index != tc.index || !full.HasIndex {
				t.Fatalf("Read = %+v %v", full, ok)
			}
			if quick && !same(ev, full) {
				t.Fatalf("Quick = %+v, Read = %+v", ev, full)
			}
			for _, e := range []Event{ev, full} {
				if !quick && e.Type == Other {
					continue
				}
				d, ok := e.ReadDelta()
				if !ok || d.Type != tc.delta.Type || !bytes.Equal(d.Field, tc.delta.Field) {
					t.Fatalf("ReadDelta = %+v %v, want %+v", d, ok, tc.delta)
				}
			}
			// In a stream, DeltaEvent's delta is ReadDelta's, and its field
			// plain when the field is read once.
			raw := []byte("event: content_block_delta\ndata: " + tc.data + "\n\n")
			if _, n, ok := DeltaEvent(raw); ok {
				if d, ok := RawDelta(raw[:n]).Delta(); ok && (d.Type != tc.delta.Type || !bytes.Equal(d.Field, tc.delta.Field) || d.Plain != tc.plain) {
					t.Fatalf("DeltaEvent's Delta = %+v, want %+v (plain %v)", d, tc.delta, tc.plain)
				}
				// PlainThinking reads exactly the plain thinking deltas.
				text, ok := RawDelta(raw[:n]).PlainThinking()
				want := tc.delta.Type == ThinkingDelta && tc.plain && len(tc.delta.Field) >= 2
				if ok != want || ok && "\""+string(text)+"\"" != string(tc.delta.Field) {
					t.Fatalf("PlainThinking = %q %v, want the field %s (%v)", text, ok, tc.delta.Field, want)
				}
			}
			head := bytes.HasPrefix(data, []byte(deltaHead))
			if i, ok := DeltaIndex(data); ok != head || ok && i != tc.index {
				t.Fatalf("DeltaIndex = %d %v", i, ok)
			}
		})
	}
}

// FuzzQuick: whatever Quick reads, Read reads the same, delta included.
func FuzzQuick(f *testing.F) {
	f.Add([]byte(`{"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"Hi \"there\""}}`))
	f.Add([]byte(`{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"a\u0000b"}}`))
	f.Add([]byte(`{"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"x","type":"text_delta"}}`))
	f.Add([]byte(`{"type":"content_block_delta","index":07,"delta":{}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		inStream(t, data)
		ev, quick := Quick(data)
		if i, ok := DeltaIndex(data); quick && (!ok || i != ev.Index) {
			t.Fatalf("Quick read index %d, DeltaIndex %d %v", ev.Index, i, ok)
		}
		if !quick {
			return
		}
		full, ok := Read(data)
		if !ok || !same(ev, full) {
			t.Fatalf("Quick = %+v, Read = %+v %v", ev, full, ok)
		}
		d1, ok1 := ev.ReadDelta()
		d2, ok2 := full.ReadDelta()
		if ok1 != ok2 || d1.Type != d2.Type || !bytes.Equal(d1.Field, d2.Field) {
			t.Fatalf("deltas: quick %+v %v, full %+v %v", d1, ok1, d2, ok2)
		}
	})
}

// inStream checks that a delta event DeltaEvent reads in a stream, with
// data as its data line, says what DeltaIndex says of data, and, when
// RawDelta.Delta reads its delta, what Read says: the data is then a
// valid delta, whose field, when plain, is its own value.
func inStream(t *testing.T, data []byte) {
	if bytes.ContainsAny(data, "\r\n") {
		return // no data line
	}
	raw := []byte("event: content_block_delta\ndata: " + string(data) + "\n\n")
	i, n, ok := DeltaEvent(raw)
	if !ok {
		return
	}
	// The observer passes over the delta of a block it does not follow as
	// it passes over data starting as the API starts one (DeltaIndex).
	if j, ok := DeltaIndex(data); n != len(raw) || !ok || j != i {
		t.Fatalf("DeltaEvent = %d %d; DeltaIndex = %d %v", i, n, j, ok)
	}
	d, ok := RawDelta(raw).Delta()
	if !ok {
		return
	}
	full, ok := Read(data)
	if !ok || !full.HasIndex || full.Index != i || full.Type != ContentBlockDelta {
		t.Fatalf("RawDelta.Delta = %+v; Read = %+v %v", d, full, ok)
	}
	want, ok := full.ReadDelta()
	if !ok || d.Type != want.Type || !bytes.Equal(d.Field, want.Field) {
		t.Fatalf("RawDelta.Delta = %+v; Read's = %+v %v", d, want, ok)
	}
	if d.Plain {
		if v, _, ok := jsonstr.Value(nil, d.Field); !ok || !bytes.Equal(v, d.Field[1:len(d.Field)-1]) {
			t.Fatalf("plain field %q decodes to %q %v", d.Field, v, ok)
		}
	}
}

func TestDeltaEvent(t *testing.T) {
	const whole = -1 // the raw event's length
	const ev = "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":12,\"delta\":{\"type\":\"text_delta\",\"text\":\"hi\"}}\n\n"
	for _, tc := range []struct {
		raw   string
		index int
		n     int
		ok    bool
	}{
		{ev + "event: ping\n", 12, len(ev), true},
		{ev, 12, len(ev), true},
		{"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"thinking_delta\",\"thinking\":\"a\\\"b\"}}\n\n", 0, whole, true},
		{"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":3,\"delta\":{\"type\":\"x\"},\"y\":1}\n\n", 3, whole, true}, // read by Read
		{"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":,\"delta\":{}}\n\n", 0, 0, false},
		{"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":1 ,\"delta\":{}}\n\n", 0, 0, false},
		{ev[:len(ev)-1], 0, 0, false}, // the blank line not there yet
		{"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":12}\ndata: x\n\n", 0, 0, false}, // two data lines
		{"event: content_block_delta\r\ndata: {}\r\n\r\n", 0, 0, false},
		{"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":1,\r\revent: error\n\n", 0, 0, false}, // a '\r' ends a line
		{"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":1,\"delta\":{}}\r\n\n", 0, 0, false},
		{"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":01,\"delta\":{}}\n\n", 0, 0, false},
		{"event: ping\ndata: {\"type\":\"ping\"}\n\n", 0, 0, false},
	} {
		if tc.n == whole {
			tc.n = len(tc.raw)
		}
		i, n, ok := DeltaEvent([]byte(tc.raw))
		if i != tc.index || n != tc.n || ok != tc.ok {
			t.Errorf("DeltaEvent(%q) = %d %d %v, want %d %d %v", tc.raw, i, n, ok, tc.index, tc.n, tc.ok)
		}
		if !ok {
			continue
		}
		d := RawDelta(tc.raw[:n])
		// Its data is the data line's, and its delta what Quick reads.
		data := tc.raw[len("event: content_block_delta\ndata: "):strings.Index(tc.raw, "\n\n")]
		if string(d.Data()) != data {
			t.Errorf("DeltaEvent(%q).Data() = %q, want %q", tc.raw, d.Data(), data)
		}
		got, ok1 := d.Delta()
		ev, _ := Quick([]byte(data))
		want, ok2 := ev.ReadDelta()
		if ok1 != ok2 || got.Type != want.Type || string(got.Field) != string(want.Field) {
			t.Errorf("DeltaEvent(%q).Delta() = %+v %v, Quick's %+v %v", tc.raw, got, ok1, want, ok2)
		}
	}
}

// TestFieldOf: fieldOf tells every known delta type by its head.
func TestFieldOf(t *testing.T) {
	for i := range deltaFields {
		if f := fieldOf([]byte(deltaFields[i].head)); f != &deltaFields[i] {
			t.Errorf("fieldOf(%s) = %+v", deltaFields[i].head, f)
		}
	}
	if f := fieldOf([]byte(`{"type":"citations_delta"}`)); f != nil {
		t.Errorf("fieldOf(citations_delta) = %+v", f)
	}
}
