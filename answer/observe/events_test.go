package observe

import (
	"github.com/caddy-llm-thinking/caddy-llm-thinking/block"

	"strings"
	"testing"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/eventstream"
)

func TestSSEEvents(t *testing.T) {
	const sig = "EqQBCkYIBxgCKkCvJ9mF3z5Lq0pFvX1rZc8wT2n/Yb4HsK7dVeA6gMu=="
	tests := []struct {
		name   string
		stream string
		want   result
	}{{
		name: "thinking with text and signature",
		stream: messageStart + blockStart(0, startThinking) +
			thinkingDelta(0, `"Let me "`) + thinkingDelta(0, `"think."`) +
			signatureDelta(0, `"`+sig+`"`) + blockStop(0) +
			blockStart(1, startText) + textDelta(1, `"Hi."`) + blockStop(1) +
			messageDelta + messageStop,
		want: reported(thinking(0, "Let me think.", sig)),
	}, {
		name: "display omitted: no thinking deltas",
		stream: messageStart + blockStart(0, startThinking) +
			signatureDelta(0, `"`+sig+`"`) + blockStop(0) + messageStop,
		want: reported(thinking(0, "", sig)),
	}, {
		name: "no signature at all (Ollama)",
		stream: messageStart + blockStart(0, `{"type":"thinking","thinking":""}`) +
			thinkingDelta(0, `"local "`) + thinkingDelta(0, `"model"`) + blockStop(0) + messageStop,
		want: reported(thinking(0, "local model", "")),
	}, {
		// A delta of a block not followed is decided on its leading bytes:
		// what follows them does not matter, even a second type.
		name: "a delta of a block not followed is skipped whatever follows",
		stream: messageStart + blockStart(0, startThinking) + blockStart(1, startText) +
			`data: {"type":"content_block_delta","index":1,"type":"content_block_start","content_block":{"type":"thinking"}}` + "\n\n" +
			blockStop(1) + signatureDelta(0, `"`+sig+`"`) + blockStop(0) + messageStop,
		want: reported(thinking(0, "", sig)),
	}, {
		name:   "null signature counts as none",
		stream: blockStart(0, `{"type":"thinking","thinking":null,"signature":null}`) + thinkingDelta(0, `"x"`) + blockStop(0) + messageStop,
		want:   reported(thinking(0, "x", "")),
	}, {
		name:   "text and signature in content_block_start",
		stream: blockStart(0, `{"type":"thinking","thinking":"all at once","signature":"`+sig+`"}`) + blockStop(0) + messageStop,
		want:   reported(thinking(0, "all at once", sig)),
	}, {
		name:   "a signature_delta replaces the signature, as the SDKs do",
		stream: blockStart(0, `{"type":"thinking","thinking":"","signature":"from-start"}`) + signatureDelta(0, `"first"`) + signatureDelta(0, `"second"`) + blockStop(0) + messageStop,
		want:   reported(thinking(0, "", "second")),
	}, {
		name:   "redacted",
		stream: messageStart + blockStart(0, `{"type":"redacted_thinking","data":"EmwKAhgBEgy3va3pzix\/Laf=="}`) + blockStop(0) + messageStop,
		want:   reported(redacted(0, "EmwKAhgBEgy3va3pzix/Laf==")),
	}, {
		name: "text and tool_use blocks are ignored",
		stream: messageStart +
			blockStart(0, startText) + textDelta(0, `"Let me check."`) + blockStop(0) +
			blockStart(1, `{"type":"tool_use","id":"toolu_01","name":"Bash","input":{}}`) +
			blockDelta(1, `{"type":"input_json_delta","partial_json":""}`) +
			blockDelta(1, `{"type":"input_json_delta","partial_json":"{\"command\": \"ls\"}"}`) + blockStop(1) +
			messageDelta + messageStop,
		want: reported(),
	}, {
		name: "interleaved thinking between tool calls",
		stream: messageStart +
			blockStart(0, startThinking) + thinkingDelta(0, `"first"`) + signatureDelta(0, `"s1"`) + blockStop(0) +
			blockStart(1, `{"type":"tool_use","id":"toolu_01","name":"Bash","input":{}}`) + blockStop(1) +
			blockStart(2, `{"type":"redacted_thinking","data":"r2"}`) + blockStop(2) +
			blockStart(3, startThinking) + thinkingDelta(3, `"second"`) + signatureDelta(3, `"s3"`) + blockStop(3) +
			messageStop,
		want: reported(thinking(0, "first", "s1"), redacted(2, "r2"), thinking(3, "second", "s3")),
	}, {
		name:   "blocks are reported in the order they finish",
		stream: blockStart(0, startThinking) + blockStart(1, `{"type":"redacted_thinking","data":"r"}`) + blockStop(1) + blockStop(0) + messageStop,
		want:   reported(redacted(1, "r"), thinking(0, "", "")),
	}, {
		name: "ping anywhere",
		stream: ping + messageStart + ping + blockStart(0, startThinking) + ping + thinkingDelta(0, `"a"`) + ping +
			signatureDelta(0, `"s"`) + ping + blockStop(0) + ping + messageStop,
		want: reported(thinking(0, "a", "s")),
	}, {
		name: "unknown events and block types pass without effect",
		stream: messageStart + ev("future_event", `{"type":"future_event","index":0}`) +
			blockStart(0, `{"type":"compaction","content":""}`) + blockDelta(0, `{"type":"compaction_delta","content":"x"}`) + blockStop(0) +
			blockStart(1, startThinking) + blockDelta(1, `{"type":"future_delta","thinking":"not text"}`) +
			thinkingDelta(1, `"t"`) + blockStop(1) + messageStop,
		want: reported(thinking(1, "t", "")),
	}, {
		name: "JSON escapes decode to the text the client holds",
		stream: blockStart(0, startThinking) +
			thinkingDelta(0, `"line\nbreak \"quoted\" \\ back\/slash"`) +
			thinkingDelta(0, `" \u003cthink\u003e caf\u00e9 \ud83d\ude00 \t\r\b\f"`) +
			thinkingDelta(0, "\"raw UTF-8 déjà 😀\"") +
			signatureDelta(0, `"ab\/cd+ef=="`) + blockStop(0) + messageStop,
		want: reported(thinking(0, "line\nbreak \"quoted\" \\ back/slash <think> café 😀 \t\r\b\fraw UTF-8 déjà 😀", "ab/cd+ef==")),
	}, {
		name:   "a lone surrogate decodes as U+FFFD, as in encoding/json",
		stream: blockStart(0, startThinking) + thinkingDelta(0, `"\ud83d!"`) + blockStop(0) + messageStop,
		want:   reported(thinking(0, "\uFFFD!", "")),
	}, {
		name: "keys in any order, with escapes and duplicates (the last wins)",
		stream: ev("content_block_start", `{"content_block":{"signature":"s","type":"thinking"},"index":0,"type":"content_block_start"}`) +
			ev("content_block_delta", `{"index":1,"t\u0079pe":"content_block_delta","delta":{"thinking":"dup","type":"thinking_delta"},"index":0}`) +
			ev("content_block_delta", ` { "type" : "content_block_delta" , "index" : 0 , "delta" : { "type" : "thinking_delta" , "thinking" : "!" } } `) +
			ev("content_block_stop", `{"type":"content_block_stop","index":0}`) + messageStop,
		want: reported(thinking(0, "dup!", "s")),
	}, {
		name:   "deltas that do not fit the block are ignored",
		stream: blockStart(0, `{"type":"redacted_thinking","data":"r"}`) + thinkingDelta(0, `"x"`) + signatureDelta(0, `"y"`) + blockStop(0) + messageStop,
		want:   reported(redacted(0, "r")),
	}, {
		name:   "a text delta to a thinking block is ignored",
		stream: blockStart(0, startThinking) + textDelta(0, `"x"`) + blockStop(0) + messageStop,
		want:   reported(thinking(0, "", "")),
	}, {
		name:   "a start at an open index begins a new block",
		stream: blockStart(0, startThinking) + thinkingDelta(0, `"old"`) + blockStart(0, startThinking) + thinkingDelta(0, `"new"`) + blockStop(0) + messageStop,
		want:   reported(thinking(0, "new", "")),
	}, {
		name:   "a text block starting at an open index ends the thinking block unreported",
		stream: blockStart(0, startThinking) + blockStart(0, startText) + blockStop(0) + messageStop,
		want:   reported(),
	}, {
		name: "an index is reused after its block stopped",
		stream: blockStart(0, startThinking) + thinkingDelta(0, `"a"`) + blockStop(0) +
			blockStart(0, startThinking) + thinkingDelta(0, `"b"`) + blockStop(0) + messageStop,
		want: reported(thinking(0, "a", ""), thinking(0, "b", "")),
	}, {
		name: "absurd or malformed indexes are ignored",
		stream: blockStart(1025, startThinking) + blockStop(1025) +
			ev("content_block_start", `{"type":"content_block_start","index":-1,"content_block":{"type":"thinking"}}`) +
			ev("content_block_start", `{"type":"content_block_start","index":"2","content_block":{"type":"thinking"}}`) +
			ev("content_block_start", `{"type":"content_block_start","index":3.0,"content_block":{"type":"thinking"}}`) +
			ev("content_block_start", `{"type":"content_block_start","content_block":{"type":"thinking"}}`) +
			blockStart(1024, startThinking) + blockStop(1024) + messageStop,
		want: reported(thinking(1024, "", "")),
	}, {
		name:   "stops and deltas for blocks never started are ignored",
		stream: thinkingDelta(5, `"x"`) + blockStop(5) + blockStop(0) + messageStop,
		want:   reported(),
	}, {
		name:   "blocks still open at message_stop are not reported",
		stream: blockStart(0, startThinking) + blockStop(0) + blockStart(1, startThinking) + thinkingDelta(1, `"cut"`) + messageStop,
		want:   reported(thinking(0, "", "")),
	}, {
		name:   "data that is not a JSON object is ignored",
		stream: blockStart(0, startThinking) + "data: [DONE]\n\n" + ev("content_block_stop", `"content_block_stop"`) + ev("content_block_stop", `{"type":"content_block_stop","index":0`) + blockStop(0) + messageStop,
		want:   reported(thinking(0, "", "")),
	}, {
		name:   "a malformed content_block is ignored",
		stream: ev("content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"thinking",}}`) + blockStop(0) + messageStop,
		want:   reported(),
	}, {
		name:   "a message without thinking reports no blocks",
		stream: messageStart + blockStart(0, startText) + textDelta(0, `"Hello"`) + blockStop(0) + messageDelta + messageStop,
		want:   reported(),
	}, {
		name:   "an error event reports nothing",
		stream: messageStart + blockStart(0, startThinking) + blockStop(0) + ev("error", `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`) + messageStop,
		want:   nothing,
	}, {
		name:   "an error type without the event name reports nothing",
		stream: blockStart(0, startThinking) + blockStop(0) + "data: {\"type\":\"error\",\"error\":{\"type\":\"api_error\",\"message\":\"x\"}}\n\n",
		want:   nothing,
	}, {
		name:   "an event named error reports nothing whatever its data",
		stream: blockStart(0, startThinking) + blockStop(0) + "event: error\ndata: upstream went away\n\n" + messageStop,
		want:   nothing,
	}, {
		name:   "an event named error without data reports nothing",
		stream: blockStart(0, startThinking) + blockStop(0) + "event: error\n\n" + messageStop,
		want:   nothing,
	}, {
		name:   "thinking text that is not a well-formed string reports nothing",
		stream: blockStart(0, startThinking) + blockStop(0) + blockStart(1, startThinking) + thinkingDelta(1, `"bad \x escape"`) + blockStop(1) + messageStop,
		want:   nothing,
	}, {
		name:   "a signature that is not a string reports nothing",
		stream: blockStart(0, startThinking) + signatureDelta(0, `42`) + blockStop(0) + messageStop,
		want:   nothing,
	}, {
		name:   "redacted data that is not a string reports nothing",
		stream: blockStart(0, `{"type":"redacted_thinking","data":{}}`) + blockStop(0) + messageStop,
		want:   nothing,
	}, {
		name:   "a stream without message_stop reports what finished at Close",
		stream: messageStart + blockStart(0, startThinking) + signatureDelta(0, `"s"`) + blockStop(0) + blockStart(1, startThinking),
		want:   reported(thinking(0, "", "s")),
	}, {
		name:   "events after message_stop are ignored",
		stream: blockStart(0, startThinking) + blockStop(0) + messageStop + blockStart(1, startThinking) + blockStop(1) + messageStop,
		want:   reported(thinking(0, "", "")),
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checkStream(t, tt.stream, tt.want)
		})
	}
}

func TestSSEFixture(t *testing.T) {
	checkStream(t, string(readFixture(t, fixture.file)), fixture.want)
}

func TestSSEClose(t *testing.T) {
	stream := []byte(messageStart + blockStart(0, startThinking) + signatureDelta(0, `"s"`) + blockStop(0))
	if got := observe(t, true, stream); !got.equal(nothing) {
		t.Errorf("Close(true) without message_stop: got %v, want nothing", got)
	}
	if got := observe(t, false, stream); !got.equal(reported(thinking(0, "", "s"))) {
		t.Errorf("Close(false) without message_stop: got %v", got)
	}
	full := append(stream, messageStop...)
	if got := observe(t, true, full); !got.equal(reported(thinking(0, "", "s"))) {
		t.Errorf("Close(true) after message_stop: got %v, want the blocks reported once", got)
	}

	calls := 0
	s := NewSSE(func([]block.Observed) { calls++ })
	s.Write(full)
	s.Close(false)
	s.Close(false)
	s.Write(full)
	if calls != 1 {
		t.Errorf("complete ran %d times, want once", calls)
	}
}

func TestNewSSEWithoutComplete(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("NewSSE(nil) did not panic")
		}
	}()
	NewSSE(nil)
}

// TestSSEBounds checks that an observer gives up, reporting nothing, on a
// response that would make it hold more than its bounds.
func TestSSEBounds(t *testing.T) {
	var tooManyOpen, tooManyFinished strings.Builder
	for i := range maxOpen + 1 {
		tooManyOpen.WriteString(blockStart(i, startThinking))
	}
	for range maxFinished + 1 {
		tooManyFinished.WriteString(blockStart(0, startThinking) + blockStop(0))
	}
	tests := []struct {
		name   string
		stream string
	}{
		{"too many open blocks", tooManyOpen.String() + blockStop(0) + messageStop},
		{"too many finished blocks", tooManyFinished.String() + messageStop},
		{"signature too long", blockStart(0, startThinking) + signatureDelta(0, `"`+strings.Repeat("A", maxSignature+1)+`"`) + blockStop(0) + messageStop},
		{"signature too long in start", blockStart(0, `{"type":"thinking","signature":"`+strings.Repeat("A", maxSignature+1)+`"}`) + blockStop(0) + messageStop},
		{"event too large", blockStart(0, startThinking) + blockStop(0) + textDelta(1, `"`+strings.Repeat("x", eventstream.MaxEvent)+`"`) + messageStop},
		{"event too large over many data lines", blockStart(0, startThinking) + blockStop(0) + strings.Repeat("data: "+strings.Repeat("x", 1023)+"\n", 1025) + "\n" + messageStop},
		{"comment line too large", blockStart(0, startThinking) + blockStop(0) + ":" + strings.Repeat("x", eventstream.MaxEvent) + "\n" + messageStop},
		{"unterminated line too large", blockStart(0, startThinking) + blockStop(0) + "data: " + strings.Repeat("x", eventstream.MaxEvent)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := []byte(tt.stream)
			for _, chunks := range [][][]byte{{p}, {p[:len(p)/2], p[len(p)/2:]}, split(p, 4096)} {
				if got := observe(t, false, chunks...); !got.equal(nothing) {
					t.Fatalf("%d chunk(s): got %v, want nothing", len(chunks), got)
				}
			}
		})
	}

	// Just within the bounds, everything is reported.
	var open strings.Builder
	for i := range maxOpen {
		open.WriteString(blockStart(i, startThinking))
	}
	open.WriteString(blockStop(maxOpen - 1))
	open.WriteString(signatureDelta(0, `"`+strings.Repeat("A", maxSignature)+`"`) + blockStop(0))
	open.WriteString(textDelta(1, `"`+strings.Repeat("x", eventstream.MaxEvent-200)+`"`) + messageStop)
	want := reported(thinking(maxOpen-1, "", ""), thinking(0, "", strings.Repeat("A", maxSignature)))
	if got := observe(t, false, []byte(open.String())); !got.equal(want) {
		t.Fatalf("within bounds: got %v, want %v", got, want)
	}
}

// split cuts p into chunks of n bytes.
func split(p []byte, n int) [][]byte {
	var chunks [][]byte
	for len(p) > n {
		chunks = append(chunks, p[:n])
		p = p[n:]
	}
	return append(chunks, p)
}

func TestSSEDoesNotAllocatePerDelta(t *testing.T) {
	s := NewSSE(func([]block.Observed) { t.Fatal("complete ran") })
	s.Write([]byte(messageStart + blockStart(0, startThinking) + blockStart(1, startText)))
	var batch strings.Builder
	for i := range 50 {
		if i%10 == 0 {
			batch.WriteString(thinkingDelta(0, `"Considering \"escapes\",\nnewlines and caf\u00e9 \ud83d\ude00 at some length."`))
			batch.WriteString(ping)
		}
		batch.WriteString(textDelta(1, `"a word "`))
		batch.WriteString(blockDelta(2, `{"type":"input_json_delta","partial_json":"{\"command\": \"ls"}`))
	}
	p := []byte(batch.String())
	chunks := split(p, 777) // cuts events, and lines, between Writes
	write := func() {
		for _, c := range chunks {
			s.Write(c)
		}
	}
	write()
	if allocs := testing.AllocsPerRun(100, write); allocs != 0 {
		t.Fatalf("observing %d bytes of deltas allocated %v times", len(p), allocs)
	}
}
