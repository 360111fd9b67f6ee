package thinktags

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

var opts = Options{Sign: testSign}

// Streams without tags, which must come out byte for byte.
var untouched = []struct {
	name, stream string
}{
	{"text and a tool call", messageStart + ping + textStream(0, "Hello", " <b>world</b>", " a < b", "<", "th", "ank you", "</think>") + toolUse(1) + messageDelta + messageStop},
	{"genuine thinking first", messageStart + blockStart(0, startThinking) + thinkingDelta(0, "<think>no</think>") + signatureDelta(0, "EqQBCkYIBxgC") + blockStop(0) +
		textStream(1, "fine") + messageDelta + messageStop},
	{"text ending in a partial tag", messageStart + textStream(0, "a <thin") + ping + messageDelta + messageStop},
	{"empty text block", messageStart + textStream(0) + toolUse(1) + messageStop},
	{"ping inside a text block", messageStart + blockStart(0, startText) + ping + textDelta(0, "<") + ping + textDelta(0, "p>") + blockStop(0) + messageStop},
	{"escapes and multibyte", messageStart + blockStart(0, startText) +
		blockDelta(0, `{"type":"text_delta","text":"\u003cthink\u003f \ud83d\ude00 caf\u00e9"}`) + blockDelta(0, `{"text":"x","type":"text_delta"}`) + blockStop(0) + messageStop},
	{"crlf", strings.ReplaceAll(messageStart+textStream(0, "a<", "b")+messageStop, "\n", "\r\n")},
	{"cr", strings.ReplaceAll(messageStart+textStream(0, "a<", "b")+messageStop, "\n", "\r")},
	{"comments, ids and a bom", "\xef\xbb\xbf: hi\n" + "id: 1\nevent: message_start\ndata: {\"type\":\"message_start\"}\n\n" + textStream(0, "x") + ": bye\n\n"},
	{"unknown events and [DONE]", ev("mystery", `{"type":"mystery","index":0}`) + textStream(0, "<x") + "data: [DONE]\n\n" + ev("error", `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`)},
	{"other deltas while a tag may complete", messageStart + blockStart(0, startText) + textDelta(0, "a<") +
		blockDelta(0, `{"type":"citations_delta","citation":{}}`) + blockDelta(5, `{"type":"input_json_delta","partial_json":""}`) +
		textDelta(0, "b") + blockDelta(0, `{"type":"citations_delta","citation":{}}`) + blockStop(0) + messageStop},
	{"truncated mid-event", messageStart + blockStart(0, startText) + textDelta(0, "abc") + "event: content_block_delta\ndata: {\"type\":\"content_blo"},
	{"truncated after a partial tag", messageStart + blockStart(0, startText) + textDelta(0, "a<thi")},
}

func TestStreamWithoutTagsIsCopied(t *testing.T) {
	for _, tt := range untouched {
		t.Run(tt.name, func(t *testing.T) {
			checkStream(t, opts, tt.stream, tt.stream, nil)
		})
	}
}

func TestStreamWithTags(t *testing.T) {
	tests := []struct {
		name         string
		assumeOpen   bool
		stream, want string
		blocks       []Block
	}{
		{
			name: "thinking, then text and a tool call",
			stream: messageStart + ping + textStream(0, "<thi", "nk>\nLet me ", "think é😀", "</th", "ink>\n\nAnswer") +
				toolUse(1) + messageDelta + messageStop,
			want: messageStart + ping + synthThinking(0, "Let me ", "think é😀") + textStream(1, "Answer") +
				toolUse(2) + messageDelta + messageStop,
			blocks: []Block{{0, synthKey("Let me think é😀")}},
		},
		{
			name:   "tags in one delta, seed 004",
			stream: messageStart + textStream(0, "<think>用户用中文说\"你好\"。\n</think>\n\n你好！") + messageStop,
			want:   messageStart + synthThinking(0, "用户用中文说\"你好\"。\n") + textStream(1, "你好！") + messageStop,
			blocks: []Block{{0, synthKey("用户用中文说\"你好\"。\n")}},
		},
		{
			name:   "text before the section",
			stream: messageStart + textStream(0, "Sure. ", "<think>", "hm", "</think>", "Done.") + messageStop,
			want:   messageStart + textStream(0, "Sure. ") + synthThinking(1, "hm") + textStream(2, "Done.") + messageStop,
			blocks: []Block{{1, synthKey("hm")}},
		},
		{
			name:   "several sections renumber later blocks",
			stream: messageStart + textStream(0, "<think>a</think>b<think>c</think>d") + toolUse(1) + textStream(2, "<think>e</think>f") + messageStop,
			want: messageStart + synthThinking(0, "a") + textStream(1, "b") + synthThinking(2, "c") + textStream(3, "d") +
				toolUse(4) + synthThinking(5, "e") + textStream(6, "f") + messageStop,
			blocks: []Block{{0, synthKey("a")}, {2, synthKey("c")}, {5, synthKey("e")}},
		},
		{
			name:       "R1: no opening tag",
			assumeOpen: true,
			stream:     messageStart + textStream(0, "Okay, so", " the user</think>", "\n\nHi!") + toolUse(1) + textStream(2, "a</think>b") + messageStop,
			want:       messageStart + synthThinking(0, "Okay, so", " the user") + textStream(1, "Hi!") + toolUse(2) + textStream(3, "a</think>b") + messageStop,
			blocks:     []Block{{0, synthKey("Okay, so the user")}},
		},
		{
			name:       "R1: the first block is not text",
			assumeOpen: true,
			stream:     messageStart + toolUse(0) + textStream(1, "a</think>b") + messageStop,
			want:       messageStart + toolUse(0) + textStream(1, "a</think>b") + messageStop,
		},
		{
			name:   "empty sections drop the block",
			stream: messageStart + textStream(0, "<think>\n\n</think>\n\n") + toolUse(1) + messageStop,
			want:   messageStart + toolUse(0) + messageStop,
		},
		{
			name:   "a ping waits with the start",
			stream: messageStart + blockStart(0, startText) + ping + textDelta(0, "<think>x</think>y") + blockStop(0) + messageStop,
			want:   messageStart + ping + synthThinking(0, "x") + textStream(1, "y") + messageStop,
			blocks: []Block{{0, synthKey("x")}},
		},
		{
			name:   "text held for a tag that completes",
			stream: messageStart + textStream(0, "ab<th", "ink>c</think>d") + messageStop,
			want:   messageStart + blockStart(0, startText) + textDelta(0, "ab") + blockStop(0) + synthThinking(1, "c") + textStream(2, "d") + messageStop,
			blocks: []Block{{1, synthKey("c")}},
		},
		{
			name:   "a later untouched block is renumbered",
			stream: messageStart + textStream(0, "<think>x</think>") + textStream(1, "plain <", "b>") + messageStop,
			want:   messageStart + synthThinking(0, "x") + textStream(1, "plain <", "b>") + messageStop,
			blocks: []Block{{0, synthKey("x")}},
		},
		{
			name:   "truncated inside a section",
			stream: messageStart + blockStart(0, startText) + textDelta(0, "<think>abc"),
			want:   messageStart + synthThinking(0, "abc"),
			blocks: []Block{{0, synthKey("abc")}},
		},
		{
			name:   "truncated with a partial close tag and a partial event",
			stream: messageStart + blockStart(0, startText) + textDelta(0, "<think>abc</thi") + "event: content_block_delta\ndata: {",
			want:   messageStart + synthThinking(0, "abc", "</thi"),
			blocks: []Block{{0, synthKey("abc</thi")}},
		},
		{
			name:   "truncated after the section",
			stream: messageStart + blockStart(0, startText) + textDelta(0, "<think>abc</think>\n\nx"),
			want:   messageStart + synthThinking(0, "abc") + blockStart(1, startText) + textDelta(1, "x") + blockStop(1),
			blocks: []Block{{0, synthKey("abc")}},
		},
		{
			name: "a block started before the text block stopped",
			stream: messageStart + blockStart(0, startText) + textDelta(0, "<think>abc") + toolUse(1) +
				textDelta(0, "late") + blockStop(0) + messageStop,
			want:   messageStart + synthThinking(0, "abc") + toolUse(1) + messageStop,
			blocks: []Block{{0, synthKey("abc")}},
		},
		{
			name:   "crlf",
			stream: strings.ReplaceAll(messageStart+textStream(0, "<think>a</think>b")+toolUse(1)+messageStop, "\n", "\r\n"),
			want: strings.ReplaceAll(messageStart, "\n", "\r\n") + synthThinking(0, "a") + textStream(1, "b") + toolUse(2) +
				strings.ReplaceAll(messageStop, "\n", "\r\n"),
			blocks: []Block{{0, synthKey("a")}},
		},
		{
			name:   "start text carries a tag",
			stream: messageStart + blockStart(0, `{"type":"text","text":"<think>a"}`) + textDelta(0, "</think>b") + blockStop(0) + messageStop,
			want:   messageStart + synthThinking(0, "a") + textStream(1, "b") + messageStop,
			blocks: []Block{{0, synthKey("a")}},
		},
		{
			name: "other deltas held while the tag completes",
			stream: messageStart + blockStart(0, startText) + textDelta(0, "a<thi") + blockDelta(0, `{"type":"citations_delta","citation":{}}`) +
				blockDelta(5, `{"type":"input_json_delta","partial_json":""}`) + textDelta(0, "nk>b</think>c") + blockStop(0) + messageStop,
			want: messageStart + blockStart(0, startText) + blockDelta(0, `{"type":"citations_delta","citation":{}}`) +
				blockDelta(5, `{"type":"input_json_delta","partial_json":""}`) + textDelta(0, "a") + blockStop(0) +
				synthThinking(1, "b") + textStream(2, "c") + messageStop,
			blocks: []Block{{1, synthKey("b")}},
		},
		{
			name: "data on several lines renumbered",
			stream: messageStart + textStream(0, "<think>a</think>b") +
				"event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":1,\ndata: \"content_block\":{\"type\":\"tool_use\",\"id\":\"t\",\"name\":\"x\",\"input\":{}}}\n\n" +
				blockStop(1) + messageStop,
			want: messageStart + synthThinking(0, "a") + textStream(1, "b") +
				"event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":2,\ndata: \"content_block\":{\"type\":\"tool_use\",\"id\":\"t\",\"name\":\"x\",\"input\":{}}}\n\n" +
				blockStop(2) + messageStop,
			blocks: []Block{{0, synthKey("a")}},
		},
		{
			name: "citations delta",
			stream: messageStart + blockStart(0, startText) + textDelta(0, "<think>a</think>") +
				blockDelta(0, `{"type":"citations_delta","citation":{}}`) + textDelta(0, "b") + blockStop(0) + messageStop,
			want: messageStart + synthThinking(0, "a") + blockStart(1, startText) + blockDelta(1, `{"type":"citations_delta","citation":{}}`) +
				textDelta(1, "b") + blockStop(1) + messageStop,
			blocks: []Block{{0, synthKey("a")}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := opts
			o.AssumeOpen = tt.assumeOpen
			checkStream(t, o, tt.stream, tt.want, tt.blocks)
			checkKeys(t, tt.want, tt.blocks)
		})
	}
}

func TestStreamBlocksMatchJSON(t *testing.T) {
	// The same text, streamed or not, gives the same blocks and keys.
	text := "<think>\nplan é😀 \"q\" \\ </think>\n\nanswer<think>more</think>end"
	_, blocks := rewrite(t, opts, []byte(messageStart+textStream(0, text)+messageStop))
	_, jsonBlocks, err := RewriteJSON([]byte(`{"type":"message","content":[{"type":"text","text":`+lit(text)+`}]}`), opts)
	if err != nil || len(blocks) != 2 || len(jsonBlocks) != 2 || blocks[0] != jsonBlocks[0] || blocks[1] != jsonBlocks[1] {
		t.Fatalf("stream blocks %v, JSON blocks %v, %v", blocks, jsonBlocks, err)
	}
}

func TestLongLineIsCopied(t *testing.T) {
	long := strings.Repeat("x", maxEvent)
	tests := []struct {
		name, stream, want string
	}{
		{
			name:   "before any tag",
			stream: messageStart + textStream(0, long) + textStream(1, "<think>a</think>b") + messageStop,
			want:   messageStart + textStream(0, long) + textStream(1, "<think>a</think>b") + messageStop,
		},
		{
			name:   "inside a section",
			stream: messageStart + blockStart(0, startText) + textDelta(0, "<think>a") + textDelta(0, long) + blockStop(0) + messageStop,
			want:   messageStart + synthThinking(0, "a") + textDelta(0, long) + blockStop(0) + messageStop,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := []byte(tt.stream)
			for _, cut := range []int{0, len(messageStart) + 100, len(p) / 2, len(p) - 10} {
				if got, _ := rewrite(t, opts, p[:cut], p[cut:]); got != tt.want {
					t.Fatalf("cut at %d: got %d bytes, want %d", cut, len(got), len(tt.want))
				}
			}
		})
	}
}

func TestHeldEventsAreBounded(t *testing.T) {
	// Pings while a tag may be completing are held up to the bound; past it
	// the block is rewritten, which holds nothing.
	n := maxEvent/len(ping) + 1
	stream := messageStart + blockStart(0, startText) + textDelta(0, "a<") + strings.Repeat(ping, n) + textDelta(0, "b") + blockStop(0) + messageStop
	var out bytes.Buffer
	r := NewSSE(&out, opts)
	for _, e := range strings.SplitAfter(stream, "\n\n") {
		r.Write([]byte(e))
		if len(r.held.buf) > maxEvent {
			t.Fatalf("holding %d bytes", len(r.held.buf))
		}
	}
	r.Close()
	blocks, others := readStream(t, out.String(), false)
	if len(blocks) != 1 || blocks[0].Type != "text" || blocks[0].Text != "a<b" || len(others) != n+2 {
		t.Fatalf("blocks %+v and %d other events", blocks, len(others))
	}
}

type failingWriter struct{ n int }

func (w *failingWriter) Write(p []byte) (int, error) {
	if w.n == 0 {
		return 0, errors.New("client went away")
	}
	w.n--
	return len(p), nil
}

func TestWriteErrorSticks(t *testing.T) {
	r := NewSSE(&failingWriter{n: 1}, opts)
	if _, err := r.Write([]byte(messageStart)); err != nil {
		t.Fatal(err)
	}
	if n, err := r.Write([]byte(ping)); n != 0 || err == nil {
		t.Fatalf("Write = %d, %v; want the writer's error", n, err)
	}
	if _, err := r.Write([]byte(ping)); err == nil {
		t.Fatal("a Write after a failed one succeeded")
	}
	if err := r.Close(); err == nil {
		t.Fatal("Close after a failed Write succeeded")
	}
}

func TestWriteErrorAfterGivingUp(t *testing.T) {
	r := NewSSE(&failingWriter{n: 1}, opts)
	if _, err := r.Write([]byte("data: " + strings.Repeat("x", maxEvent))); err != nil {
		t.Fatal(err)
	}
	if n, err := r.Write([]byte("x\n\n")); n != 0 || err == nil {
		t.Fatalf("Write = %d, %v; want the writer's error", n, err)
	}
}

func TestCloseTwiceAndWriteAfterClose(t *testing.T) {
	var out bytes.Buffer
	r := NewSSE(&out, opts)
	r.Write([]byte(messageStart + blockStart(0, startText) + textDelta(0, "<think>a")))
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	n := out.Len()
	if err := r.Close(); err != nil || out.Len() != n {
		t.Fatalf("second Close: %v, wrote %d bytes", err, out.Len()-n)
	}
	if _, err := r.Write([]byte(ping)); err == nil {
		t.Fatal("Write after Close succeeded")
	}
}

// A Write of no bytes between the '\r' and the '\n' of the "\r\n" that ends
// message_start made the '\n' the first byte of the next event; that event
// is rewritten, so the '\n' went with it and the blank line after
// message_start was lost (found by FuzzSSERewrite).
func TestEmptyWriteBetweenCRAndLF(t *testing.T) {
	crlf := func(s string) string { return strings.ReplaceAll(s, "\n", "\r\n") }
	stream := crlf(messageStart + textStream(0, "<think>a</think>b") + messageStop)
	want := crlf(messageStart) + synthThinking(0, "a") + textStream(1, "b") + crlf(messageStop)
	at := len(crlf(messageStart)) - 1 // between the blank line's '\r' and '\n'
	if got, _ := rewrite(t, opts, []byte(stream[:at]), nil, []byte(stream[at:])); got != want {
		t.Fatalf("got\n%q\nwant\n%q", got, want)
	}
}

func TestOneWritePerWrite(t *testing.T) {
	var w countingWriter
	r := NewSSE(&w, opts)
	for _, e := range []string{messageStart, blockStart(0, startText), textDelta(0, "<think>a"), textDelta(0, "b</think>c"), blockStop(0), messageStop} {
		r.Write([]byte(e))
	}
	r.Close()
	if w.calls > 6 {
		t.Fatalf("%d writes for 6 events", w.calls)
	}
}

type countingWriter struct{ calls int }

func (w *countingWriter) Write(p []byte) (int, error) {
	w.calls++
	return len(p), nil
}

func TestNilSignPanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("no panic")
		}
	}()
	NewSSE(&bytes.Buffer{}, Options{})
}

func TestSectionsAreBoundedPerResponse(t *testing.T) {
	// The budget is shared by the text blocks of a response; past it, tags
	// are text.
	many := strings.Repeat("<think>a</think>b", maxSections-1)
	stream := messageStart + textStream(0, many) + toolUse(1) + textStream(2, "<think>c</think>d<think>e</think>f") + messageStop
	out, blocks := rewrite(t, opts, []byte(stream))
	got, _ := readStream(t, out, false)
	if len(blocks) != maxSections {
		t.Fatalf("%d blocks synthesized, want %d", len(blocks), maxSections)
	}
	last := got[len(got)-1]
	if last.Type != "text" || last.Text != "d<think>e</think>f" {
		t.Fatalf("last block %+v", last)
	}
	checkKeys(t, out, blocks)
}

// sameSlice records whether a Write that passes on the very bytes written
// to the rewriter got a copy of them.
type sameSlice struct {
	p            []byte
	same, copied int
}

func (w *sameSlice) Write(p []byte) (int, error) {
	if bytes.Equal(p, w.p) && len(p) > 0 {
		w.same++
		if &p[0] != &w.p[0] {
			w.copied++
		}
	}
	return len(p), nil
}

func TestUntouchedWritesAreNotCopied(t *testing.T) {
	var w sameSlice
	r := NewSSE(&w, opts)
	for _, e := range strings.SplitAfter(untouched[0].stream, "\n\n") {
		w.p = []byte(e)
		r.Write(w.p)
	}
	if w.same == 0 || w.copied > 0 {
		t.Fatalf("%d of %d Writes whose output is their input were copied", w.copied, w.same)
	}
}
