package observe

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/block"
)

// result is what an SSE observer reported: how often complete ran and with
// which blocks.
type result struct {
	calls  int
	blocks []block.Observed
}

func (r result) equal(o result) bool {
	return r.calls == o.calls && slices.Equal(r.blocks, o.blocks)
}

func (r result) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d call(s)", r.calls)
	for _, blk := range r.blocks {
		fmt.Fprintf(&b, " {%v %d %v}", blk.Kind, blk.Index, blk.Key)
	}
	return b.String()
}

// reported is the result of a response that reported blocks.
func reported(blocks ...block.Observed) result { return result{calls: 1, blocks: blocks} }

// nothing is the result of a response that reported nothing.
var nothing = result{}

// observe feeds chunks to a new SSE, then closes it. Each chunk is written
// from a copy that is scribbled over right after the Write, so an observer
// that kept a slice of the caller's buffer gets caught.
func observe(t testing.TB, abort bool, chunks ...[]byte) result {
	t.Helper()
	var r result
	s := NewSSE(func(b []block.Observed) {
		r.calls++
		r.blocks = b
	})
	for _, c := range chunks {
		buf := slices.Clone(c)
		if n, err := s.Write(buf); n != len(c) || err != nil {
			t.Fatalf("Write(%d bytes) = %d, %v", len(c), n, err)
		}
		for i := range buf {
			buf[i] = '#'
		}
	}
	s.Close(abort)
	return r
}

// checkStream asserts that stream gives want whole, cut in two at every
// byte, and written one byte at a time.
func checkStream(t *testing.T, stream string, want result) {
	t.Helper()
	p := []byte(stream)
	if got := observe(t, false, p); !got.equal(want) {
		t.Fatalf("whole stream: got %v, want %v", got, want)
	}
	for i := range p {
		if got := observe(t, false, p[:i], p[i:]); !got.equal(want) {
			t.Fatalf("stream cut at %d (%q|%q): got %v, want %v", i, tail(p[:i]), head(p[i:]), got, want)
		}
	}
	bytewise := make([][]byte, len(p))
	for i := range p {
		bytewise[i] = p[i : i+1]
	}
	if got := observe(t, false, bytewise...); !got.equal(want) {
		t.Fatalf("stream written bytewise: got %v, want %v", got, want)
	}
}

func head(p []byte) []byte { return p[:min(len(p), 20)] }
func tail(p []byte) []byte { return p[max(0, len(p)-20):] }

func thinking(index int, text, signature string) block.Observed {
	return block.Observed{Kind: block.Thinking, Index: index, Key: thinkingKey(text, signature)}
}

func redacted(index int, data string) block.Observed {
	return block.Observed{Kind: block.Redacted, Index: index, Key: redactedKey(data)}
}

// thinkingKey is the key of a thinking block seen whole.
func thinkingKey(text, signature string) block.Key {
	var h block.Hasher
	h.Write([]byte(text))
	return h.Thinking([]byte(signature))
}

func redactedKey(data string) block.Key {
	var h block.Hasher
	return h.Redacted([]byte(data))
}

// ev formats one event as the Messages API sends it.
func ev(name, data string) string { return "event: " + name + "\ndata: " + data + "\n\n" }

func blockStart(index int, block string) string {
	return ev("content_block_start", fmt.Sprintf(`{"type":"content_block_start","index":%d,"content_block":%s}`, index, block))
}

func blockDelta(index int, delta string) string {
	return ev("content_block_delta", fmt.Sprintf(`{"type":"content_block_delta","index":%d,"delta":%s}`, index, delta))
}

func thinkingDelta(index int, lit string) string {
	return blockDelta(index, `{"type":"thinking_delta","thinking":`+lit+`}`)
}

func signatureDelta(index int, lit string) string {
	return blockDelta(index, `{"type":"signature_delta","signature":`+lit+`}`)
}

func textDelta(index int, lit string) string {
	return blockDelta(index, `{"type":"text_delta","text":`+lit+`}`)
}

func blockStop(index int) string {
	return ev("content_block_stop", fmt.Sprintf(`{"type":"content_block_stop","index":%d}`, index))
}

var (
	messageStart = ev("message_start", `{"type":"message_start","message":{"id":"msg_01","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":25,"output_tokens":1}}}`)
	ping         = ev("ping", `{"type": "ping"}`)
	messageDelta = ev("message_delta", `{"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":15}}`)
	messageStop  = ev("message_stop", `{"type":"message_stop"}`)

	startThinking = `{"type":"thinking","thinking":"","signature":""}`
	startText     = `{"type":"text","text":""}`
)

// fixture is testdata/thinking_tool_use.sse and the blocks it holds,
// decoded by hand.
var fixture = struct {
	file string
	want result
}{
	file: "testdata/thinking_tool_use.sse",
	want: reported(
		thinking(0,
			"The user wants the file list.\nI should run \"ls -la\" first"+
				", then read <README.md> "+
				"😀 café naïve – tab\there"+
				"\n\nDone planning.",
			"EqQBCkYIBxgCKkCvJ9mF3z5Lq0pFvX1rZc8wT2nYb4HsK7dVeA6gMuR0iJxNyQ5tB1oC3lW8pE9fD2hG4kS6jU7aV0zX+/9mQ1rY2hGgwR6dUo3n9L8x5kQ=="),
		redacted(3, "EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpPkNRj2YfWXGmKDxH4mPnZ5sQ7vB4URj6Eu7ex2dr1AOY/yhKm"),
	),
}

func readFixture(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
