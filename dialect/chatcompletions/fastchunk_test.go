package chatcompletions

import (
	"bytes"
	"reflect"
	"strings"
	"testing"
)

// serverChunk is a chunk of the shape fastChunk reads, with the delta's
// one member field: literal.
func serverChunk(field, literal string) string {
	return `{"id":"chatcmpl-7","object":"chat.completion.chunk","created":1733000000,"model":"qwen3","choices":[{"index":0,"delta":{"` +
		field + `":` + literal + `},"finish_reason":null}]}`
}

// edit replaces the first old in s with repl, for the near misses.
func edit(s, old, repl string) string {
	if !strings.Contains(s, old) {
		panic("edit: " + old + " not in " + s)
	}
	return strings.Replace(s, old, repl, 1)
}

// fastChunkCases are chunks of the common shape (fast) and near misses
// that parseChunk must read instead.
var fastChunkCases = func() []struct {
	name string
	data string
	fast bool
} {
	text := serverChunk("content", `" token"`)
	fingerprint := edit(text, `,"choices"`, `,"system_fingerprint":"fp_1","choices"`)
	logprobs := edit(text, `,"finish_reason"`, `,"logprobs":null,"finish_reason"`)
	return []struct {
		name string
		data string
		fast bool
	}{
		{"content", text, true},
		{"reasoning_content", serverChunk("reasoning_content", `" token"`), true},
		{"reasoning", serverChunk("reasoning", `" token"`), true},
		{"system_fingerprint", fingerprint, true},
		{"logprobs null", logprobs, true},
		{"system_fingerprint and logprobs", edit(logprobs, `,"choices"`, `,"system_fingerprint":"fp_1","choices"`), true},
		{"empty content", serverChunk("content", `""`), true},
		{"empty reasoning", serverChunk("reasoning", `""`), true},
		{"escapes", serverChunk("content", `"a\"b\\c\n\u00e9\ud83d\ude00/"`), true},
		{"unicode", serverChunk("reasoning_content", `"日本 ok"`), true},
		{"the end inside the literal", serverChunk("content", `"\"},\"finish_reason\":null}]}"`), true},
		{"think tag", serverChunk("content", `"<think>plan"`), true},
		{"whitespace", serverChunk("content", `"\n\n"`), true},
		{"escaped id", edit(text, `"chatcmpl-7"`, `"chat\"cmpl\\"`), true},
		{"empty id", edit(text, `"chatcmpl-7"`, `""`), true},
		{"empty model", edit(text, `"qwen3"`, `""`), true},
		{"invalid UTF-8, as parseChunk takes it", serverChunk("content", "\"a\xffb\""), true},

		{"invalid escape", serverChunk("content", `"a\x"`), false},
		{"control character", serverChunk("content", "\"a\tb\""), false},
		{"lone quote", serverChunk("content", `"`), false},
		{"null content", serverChunk("content", `null`), false},
		{"number content", serverChunk("content", `1`), false},
		{"object content", serverChunk("content", `{}`), false},
		{"two literals", serverChunk("content", `"a" "b"`), false},
		{"space after literal", serverChunk("content", `"a" `), false},
		{"space before literal", serverChunk("content", ` "a"`), false},
		{"duplicate content", serverChunk("content", `"a","content":"b"`), false},
		{"content and reasoning", serverChunk("content", `"a","reasoning_content":"b"`), false},
		{"reasoning and reasoning_content", serverChunk("reasoning", `"a","reasoning_content":"b"`), false},
		{"content null and reasoning", serverChunk("content", `null,"reasoning_content":"b"`), false},
		{"role", serverChunk("role", `"assistant"`), false},
		{"role and content", edit(text, `{"content"`, `{"role":"assistant","content"`), false},
		{"tool_calls", serverChunk("tool_calls", `[{"index":0,"function":{"arguments":"{}"}}]`), false},
		{"reasoning_details", serverChunk("reasoning_details", `[{"type":"reasoning.text","text":"r"}]`), false},
		{"escaped key", edit(text, `"content"`, `"\u0063ontent"`), false},
		{"contents key", edit(text, `"content"`, `"contents"`), false},
		{"finish reason", edit(text, `"finish_reason":null`, `"finish_reason":"stop"`), false},
		{"logprobs object", edit(text, `,"finish_reason"`, `,"logprobs":{"content":[]},"finish_reason"`), false},
		{"logprobs after finish_reason", edit(text, `null}]`, `null,"logprobs":null}]`), false},
		{"fingerprint null", edit(text, `,"choices"`, `,"system_fingerprint":null,"choices"`), false},
		{"two fingerprints", edit(fingerprint, `,"choices"`, `,"system_fingerprint":"fp_2","choices"`), false},
		{"index 1", edit(text, `"index":0`, `"index":1`), false},
		{"two choices", edit(text, `null}]`, `null},{"index":1,"delta":{"content":"b"},"finish_reason":null}]`), false},
		{"two choices arrays", edit(text, `null}]}`, `null}],"choices":[{"index":0,"delta":{"content":"b"},"finish_reason":null}]}`), false},
		{"usage after choices", edit(text, `]}`, `],"usage":{"prompt_tokens":3,"completion_tokens":1}}`), false},
		{"usage null", edit(text, `]}`, `],"usage":null}`), false},
		{"error", edit(text, `{"id"`, `{"error":{"message":"x"},"id"`), false},
		{"duplicate id", edit(text, `,"object"`, `,"id":"other","object"`), false},
		{"space after colon", edit(text, `"content":`, `"content": `), false},
		{"space in object", edit(text, `{"id"`, `{ "id"`), false},
		{"created as a string", edit(text, `1733000000`, `"1"`), false},
		{"created negative", edit(text, `1733000000`, `-1`), false},
		{"created with junk", edit(text, `1733000000`, `17x`), false},
		{"no created", edit(text, `,"created":1733000000`, ``), false},
		{"model first", `{"model":"qwen3","id":"chatcmpl-7","object":"chat.completion.chunk","created":1,"choices":[{"index":0,"delta":{"content":" token"},"finish_reason":null}]}`, false},
		{"sorted keys", `{"choices":[{"delta":{"content":" token"},"finish_reason":null,"index":0}],"created":1,"id":"chatcmpl-7","model":"qwen3","object":"chat.completion.chunk"}`, false},
		{"unterminated id", `{"id":"chatcmpl-7`, false},
		{"truncated", text[:len(text)-1], false},
		{"trailing junk", text + "x", false},
		{"two objects", text + text, false},
		{"id not a string", edit(text, `"chatcmpl-7"`, `7`), false},
		{"other object", edit(text, `chat.completion.chunk`, `chat.completion`), false},
	}
}()

// TestFastChunkReadsAsParseChunk: fastChunk takes the chunks of the common
// shape, leaves the rest, and reads what it takes as parseChunk does.
func TestFastChunkReadsAsParseChunk(t *testing.T) {
	for _, tc := range fastChunkCases {
		t.Run(tc.name, func(t *testing.T) {
			var fast chunk
			if got := fastChunk([]byte(tc.data), &fast); got != tc.fast {
				t.Fatalf("fastChunk = %v, want %v: %s", got, tc.fast, tc.data)
			}
			if tc.fast {
				checkFastChunk(t, []byte(tc.data))
			}
		})
	}
}

// checkFastChunk checks that parseChunk reads what fastChunk took the same.
func checkFastChunk(t *testing.T, data []byte) {
	t.Helper()
	var fast, full chunk
	if !fastChunk(data, &fast) {
		return
	}
	if !parseChunk(data, &full) {
		t.Fatalf("fastChunk took what parseChunk refuses: %q", data)
	}
	if !reflect.DeepEqual(fast, full) {
		t.Fatalf("fastChunk read %+v\nparseChunk read %+v\nof %q", fast, full, data)
	}
}

// fastChunkStates are streams at the points a chunk can come: the chunks
// that lead there and the options.
var fastChunkStates = []struct {
	name       string
	before     []string
	assumeOpen bool
}{
	{name: "first chunk"},
	{name: "in text", before: []string{serverChunk("content", `"Hi"`)}},
	{name: "in reasoning", before: []string{serverChunk("reasoning_content", `"hm"`)}},
	{name: "reasoning then text", before: []string{serverChunk("reasoning", `"hm"`), serverChunk("content", `"\n\nHi"`)}},
	{name: "undecided", before: []string{serverChunk("content", `"\n "`)}},
	{name: "partial tag", before: []string{serverChunk("content", `"<thi"`)}},
	{name: "in think tags", before: []string{serverChunk("content", `"<think>a"`)}},
	{name: "after think tags", before: []string{serverChunk("content", `"<think>a</think>\n\n"`)}},
	{name: "assume open", assumeOpen: true},
	{name: "in a tool call", before: []string{delta(`{"tool_calls":[{"index":0,"id":"c","function":{"name":"B","arguments":"{\"a\":"}}]}`)}},
	{name: "after the finish reason", before: []string{serverChunk("content", `"Hi"`), finish("stop")}},
	{name: "after the usage", before: []string{serverChunk("content", `"Hi"`), usageChunk}},
}

// TestFastChunkStream: a Stream gives the same bytes, event for event,
// with and without fastChunk, for every case in every state.
func TestFastChunkStream(t *testing.T) {
	for _, st := range fastChunkStates {
		for _, tc := range fastChunkCases {
			t.Run(st.name+"/"+tc.name, func(t *testing.T) {
				checkFastStream(t, st.assumeOpen, st.before, tc.data)
			})
		}
	}
}

// checkFastStream feeds the chunks before, then data twice, then the
// finish reason and the usage, to a Stream with fastChunk and to one
// without, and compares what each chunk gives.
func checkFastStream(t *testing.T, assumeOpen bool, before []string, data string) {
	t.Helper()
	opts := testOptions()
	opts.AssumeOpen = assumeOpen
	fast, full := NewStream(opts), NewStream(opts)
	full.noFast = true
	chunks := append(append([]string(nil), before...), data, data, finish("stop"), usageChunk)
	var a, b []byte
	for _, c := range chunks {
		a, b = fast.Chunk(a[:0], []byte(c)), full.Chunk(b[:0], []byte(c))
		if !bytes.Equal(a, b) {
			t.Fatalf("after %q\nwith fastChunk    %q\nwithout fastChunk %q", chunks, a, b)
		}
	}
	if a, b = fast.End(a[:0]), full.End(b[:0]); !bytes.Equal(a, b) {
		t.Fatalf("at the end of %q\nwith fastChunk    %q\nwithout fastChunk %q", chunks, a, b)
	}
}

// FuzzFastChunk: on any chunk, fastChunk either leaves it or reads it as
// parseChunk does, and a Stream gives the same bytes with it as without it
// in each state.
func FuzzFastChunk(f *testing.F) {
	for _, tc := range fastChunkCases {
		f.Add([]byte(tc.data))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		checkFastChunk(t, data)
		for _, st := range fastChunkStates {
			checkFastStream(t, st.assumeOpen, st.before, string(data))
		}
	})
}
