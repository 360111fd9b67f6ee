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
