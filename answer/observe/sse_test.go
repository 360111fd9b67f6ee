package observe

import (
	"strings"
	"testing"
)

func TestSSEFraming(t *testing.T) {
	fix := string(readFixture(t, fixture.file))
	one := blockStart(0, startThinking) + signatureDelta(0, `"s"`) + blockStop(0) + messageStop
	want := reported(thinking(0, "", "s"))
	tests := []struct {
		name   string
		stream string
		want   result
	}{
		{"many events in one Write, LF endings", fix, fixture.want},
		{"CRLF endings", strings.ReplaceAll(fix, "\n", "\r\n"), fixture.want},
		{"CR endings", strings.ReplaceAll(fix, "\n", "\r"), fixture.want},
		{"mixed endings", strings.Replace(strings.ReplaceAll(fix, "\n\n", "\r\n\r"), "\n", "\r", 3), fixture.want},
		{"a CR, then a CRLF, is two line endings", strings.ReplaceAll(one, "\n\n", "\r\r\n"), want},
		{
			// Deltas are passed over a chunk at a time up to its first '\r'.
			"a CR inside a delta's data line ends the line, between deltas",
			blockStart(0, startThinking) + thinkingDelta(0, `"a"`) +
				strings.Replace(thinkingDelta(0, `"b"`), `,"delta"`, ",\r\"delta\"", 1) +
				thinkingDelta(0, `"c"`) + signatureDelta(0, `"s"`) + blockStop(0) + messageStop,
			reported(thinking(0, "ac", "s")),
		},
		{"byte order mark", "\xef\xbb\xbf" + one, want},
		{"byte order mark before a blank line", "\xef\xbb\xbf\n" + one, want},
		{"a byte order mark later is part of the field name", blockStart(0, startThinking) + "\xef\xbb\xbf" + `data: {"type":"content_block_stop","index":0}` + "\n\n" + messageStop, reported()},
		{"comments", ": keep-alive\n" + strings.ReplaceAll(one, "data:", ":comment\ndata:") + ":\n", want},
		{
			"several data lines are joined with a newline",
			"data: {\"type\":\"content_block_start\",\ndata: \"index\":0,\ndata:\"content_block\":{\"type\":\"thinking\"}}\n\n" +
				"data: {\"type\":\ndata\ndata: \"content_block_stop\",\"index\":0}\n\n" + messageStop,
			reported(thinking(0, "", "")),
		},
		{"data without a space, or with two", strings.ReplaceAll(one, "data: ", "data:") + strings.ReplaceAll(one, "data: ", "data:  "), want},
		{"no event lines: the JSON type is what counts", strings.ReplaceAll(strings.ReplaceAll(one, "event: ", ": was "), "event:", ""), want},
		{"event names that disagree with the type are ignored", strings.ReplaceAll(one, "event: content_block_stop", "event: ping"), want},
		{"other fields are ignored", strings.ReplaceAll(one, "data:", "id: 7\nretry: 100\ndatum: x\ndata:"), want},
		{"a blank line without data dispatches nothing", "\n\n\n" + strings.ReplaceAll(one, "\n\n", "\n\n\n\n"), want},
		{"an event left unterminated at the end is dropped", blockStart(0, startThinking) + strings.TrimSuffix(blockStop(0), "\n"), reported()},
		{"a line left unterminated at the end is dropped", blockStart(0, startThinking) + strings.TrimSuffix(blockStop(0), "\n\n"), reported()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checkStream(t, tt.stream, tt.want)
		})
	}
}

// TestSSEHoldsEventsCutBetweenWrites follows a long answer whose Writes end
// inside events, as an upstream that flushes a few KiB at a time cuts it:
// the start of the cut event is held until the Write that ends it (see
// SSE.stash), and the answer must read as it does whole. The cuts fall in
// text and thinking deltas, between the two newlines that end an event,
// three Writes apart, before a '\r' that the rest of the event brings, and
// inside an event too large to hold.
func TestSSEHoldsEventsCutBetweenWrites(t *testing.T) {
	big := strings.Repeat("a long thought ", 2*maxPending/15)
	events := []string{messageStart, blockStart(0, startThinking)}
	for i := range 40 {
		events = append(events, thinkingDelta(0, `"step `+strings.Repeat("x", i)+`"`))
	}
	events = append(events, thinkingDelta(0, `"`+big+`"`), signatureDelta(0, `"sig"`), blockStop(0), blockStart(1, startText))
	for range 40 {
		events = append(events, textDelta(1, `"more text"`))
	}
	events = append(events, blockStop(1), messageDelta, messageStop)
	stream := strings.Join(events, "")
	var text strings.Builder
	for i := range 40 {
		text.WriteString("step " + strings.Repeat("x", i))
	}
	want := reported(thinking(0, text.String()+big, "sig"))
	if got := observe(t, false, []byte(stream)); !got.equal(want) {
		t.Fatalf("whole: got %v, want %v", got, want)
	}
	at := func(s string) int { return strings.Index(stream, s) }
	firstText := at(`"more text"`)
	crlf := stream[:firstText+14] + strings.ReplaceAll(stream[firstText+14:], "\n", "\r\n")
	for _, tc := range []struct {
		name   string
		stream string
		cuts   []int
	}{
		{"every 100 bytes", stream, nil},
		{"between an event's two newlines", stream, []int{at("step x\"}}\n") + 10, at("step xx\"}}\n") + 11}},
		{"an event across three Writes", stream, []int{at("step xxx\"") + 2, at("step xxx\"") + 6, at("step xxxx\"")}},
		{"inside the event too large to hold", stream, []int{at(big) + maxPending/2, at(big) + maxPending + 10}},
		{"then CRLF endings", crlf, []int{firstText + 5, firstText + 20}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := []byte(tc.stream)
			var chunks [][]byte
			if tc.cuts == nil {
				chunks = split(p, 100)
			} else {
				last := 0
				for _, c := range tc.cuts {
					chunks, last = append(chunks, p[last:c]), c
				}
				chunks = append(chunks, p[last:])
			}
			if got := observe(t, false, chunks...); !got.equal(want) {
				t.Fatalf("got %v, want %v", got, want)
			}
		})
	}
}
