package chatcompletions

import (
	"bytes"
	"io"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/messagesapi"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/eventstream"
)

var errEOF = io.EOF

// chunk data helpers
func delta(d string) string {
	return `{"id":"chatcmpl-1","object":"chat.completion.chunk","choices":[{"index":0,"delta":` + d + `,"finish_reason":null}]}`
}
func finish(reason string) string {
	return `{"id":"chatcmpl-1","choices":[{"index":0,"delta":{},"finish_reason":"` + reason + `"}]}`
}

const usageChunk = `{"id":"chatcmpl-1","choices":[],"usage":{"prompt_tokens":120,"completion_tokens":30,"prompt_tokens_details":{"cached_tokens":100}}}`

// TestStreamFlavors: each server flavor's stream gives the same message:
// one thinking block before the text and the tool call.
func TestStreamFlavors(t *testing.T) {
	toolCalls := []string{
		delta(`{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"Bash","arguments":""}}]}`),
		delta(`{"tool_calls":[{"index":0,"function":{"arguments":"{\"command\":"}}]}`),
		delta(`{"tool_calls":[{"index":0,"function":{"arguments":"\"ls\"}"}}]}`),
		finish("tool_calls"), usageChunk, "[DONE]",
	}
	want := `[thinking "Let me look."][text "Listing."][tool_use call_1 Bash {"command":"ls"}] tool_use`
	tests := []struct {
		name   string
		chunks []string
	}{
		{"DeepSeek reasoning_content", []string{delta(`{"role":"assistant","content":null,"reasoning_content":""}`),
			delta(`{"content":null,"reasoning_content":"Let me"}`), delta(`{"content":null,"reasoning_content":" look."}`),
			delta(`{"content":"Listing.","reasoning_content":null}`)}},
		{"vLLM reasoning", []string{delta(`{"role":"assistant"}`), delta(`{"reasoning":"Let me"}`),
			delta(`{"reasoning":" look."}`), delta(`{"content":"\n\n"}`), delta(`{"content":"Listing."}`)}},
		{"think tags", []string{delta(`{"role":"assistant","content":"<think>"}`), delta(`{"content":"\nLet me"}`),
			delta(`{"content":" look.</think>"}`), delta(`{"content":"\n\nListing."}`)}},
		{"OpenRouter reasoning_details", []string{delta(`{"role":"assistant","content":""}`),
			delta(`{"reasoning":"Let me","reasoning_details":[{"type":"reasoning.text","text":"Let me"}]}`),
			delta(`{"reasoning":" look.","reasoning_details":[{"type":"reasoning.text","text":" look."}]}`),
			delta(`{"content":"Listing."}`)}},
		{"reasoning_details alone", []string{delta(`{"reasoning_details":[{"type":"reasoning.text","text":"Let me"},{"type":"reasoning.encrypted","data":"x"}]}`),
			delta(`{"reasoning_details":[{"type":"reasoning.summary","summary":" look."}]}`), delta(`{"content":"Listing."}`)}},
		{"reasoning and content in one chunk", []string{delta(`{"reasoning_content":"Let me look.","content":"Listing."}`)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := translate(testOptions(), sse(append(tt.chunks, toolCalls...)...))
			a, err := checkStream(out)
			if err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
			if got := a.summary(); got != want {
				t.Errorf("got  %s\nwant %s", got, want)
			}
			if a.Model != "claude-sonnet-4-5" || a.Usage["input_tokens"] != 20.0 || a.Usage["cache_read_input_tokens"] != 100.0 || a.Usage["output_tokens"] != 30.0 {
				t.Errorf("model %s usage %v", a.Model, a.Usage)
			}
		})
	}
}

// TestStreamEverySplit cuts think-tagged content and tool arguments into
// two chunks at every byte, and the upstream bytes into two reads at every
// byte: the message is always the same.
func TestStreamEverySplit(t *testing.T) {
	content := "<think>\nplan: 日本 ok</think>\n\nThe answer"
	args := `{"command":"ls -la","description":"list \"all\""}`
	want := `[thinking "plan: 日本 ok"][text "The answer"][tool_use call_9 Bash {"command":"ls -la","description":"list \"all\""}] tool_use`
	for i := 0; i <= len(content); i++ {
		if i < len(content) && !utf8.RuneStart(content[i]) {
			continue // a server's chunk is valid JSON: it never cuts a character
		}
		for _, j := range []int{0, len(args) / 3, len(args)} {
			chunks := []string{
				delta(`{"content":` + quote(content[:i]) + `}`), delta(`{"content":` + quote(content[i:]) + `}`),
				delta(`{"tool_calls":[{"index":0,"id":"call_9","function":{"name":"Bash","arguments":` + quote(args[:j]) + `}}]}`),
				delta(`{"tool_calls":[{"index":0,"function":{"arguments":` + quote(args[j:]) + `}}]}`),
				finish("tool_calls"), "[DONE]",
			}
			a, err := checkStream(translate(testOptions(), sse(chunks...)))
			if err != nil || a.summary() != want {
				t.Fatalf("content cut at %d, arguments at %d: %v\n got %s\nwant %s", i, j, err, a.summary(), want)
			}
		}
	}
	for j := 0; j <= len(args); j++ {
		chunks := []string{delta(`{"tool_calls":[{"index":0,"id":"call_9","function":{"name":"Bash","arguments":` + quote(args[:j]) + `}}]}`),
			delta(`{"tool_calls":[{"index":0,"function":{"arguments":` + quote(args[j:]) + `}}]}`), finish("tool_calls")}
		a, err := checkStream(translate(testOptions(), sse(chunks...)))
		if err != nil || !strings.HasSuffix(a.summary(), `{"command":"ls -la","description":"list \"all\""}] tool_use`) {
			t.Fatalf("arguments cut at %d: %v %s", j, err, a.summary())
		}
	}
	whole := sse(delta(`{"content":`+quote(content)+`}`), finish("stop"), usageChunk, "[DONE]")
	for i := 0; i <= len(whole); i++ {
		a, err := checkStream(translate(testOptions(), whole[:i], whole[i:]))
		if err != nil || a.summary() != `[thinking "plan: 日本 ok"][text "The answer"] end_turn` {
			t.Fatalf("bytes cut at %d: %v %s", i, err, a.summary())
		}
	}
}

// TestStreamEdges: the cases other translators got wrong, and bad input.
func TestStreamEdges(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"tool call only: no empty text block", sse(delta(`{"role":"assistant","content":""}`), delta(`{"content":"\n\n"}`),
			delta(`{"tool_calls":[{"index":0,"id":"c","function":{"name":"Bash","arguments":"{}"}}]}`), finish("tool_calls"), "[DONE]"),
			`[tool_use c Bash {}] tool_use`},
		{"two tool calls", sse(delta(`{"tool_calls":[{"index":0,"id":"a","function":{"name":"A","arguments":"{\"x\":1}"}},{"index":1,"id":"b","function":{"name":"B","arguments":"{\"y\":2}"}}]}`),
			finish("tool_calls"), "[DONE]"), `[tool_use a A {"x":1}][tool_use b B {"y":2}] tool_use`},
		{"text and finish in one chunk", sse(`{"choices":[{"delta":{"content":"Hi"},"finish_reason":"stop"}]}`, "[DONE]"), `[text "Hi"] end_turn`},
		{"finish with usage in one chunk", sse(`{"choices":[{"delta":{"content":"Hi"},"finish_reason":"length"}],"usage":{"prompt_tokens":3,"completion_tokens":1}}`), `[text "Hi"] max_tokens`},
		{"ends after finish without [DONE]", sse(delta(`{"content":"Hi"}`), finish("stop")), `[text "Hi"] end_turn`},
		{"content filter", sse(delta(`{"content":"Hi"}`), finish("content_filter"), "[DONE]"), `[text "Hi"] refusal`},
		{"ids the Messages API refuses are cleaned", sse(delta(`{"tool_calls":[{"index":0,"id":"functions.Bash:0","function":{"name":"Bash","arguments":"{}"}}]}`), finish("tool_calls"), "[DONE]"),
			`[tool_use functionsBash0 Bash {}] tool_use`},
		{"arguments cut by max_tokens are completed", sse(delta(`{"tool_calls":[{"index":0,"id":"c","function":{"name":"Bash","arguments":"{\"command\":\"ls -"}}]}`), finish("length"), "[DONE]"),
			`[tool_use c Bash {"command":"ls -"}] max_tokens`},
		{"arguments that are not JSON are kept as text", sse(delta(`{"tool_calls":[{"index":0,"id":"c","function":{"name":"Bash","arguments":"ls -la"}}]}`), finish("tool_calls"), "[DONE]"),
			`[tool_use c Bash {"raw_arguments":"ls -la"}] tool_use`},
		{"R1 style: no opening tag is text without think_tags open", sse(delta(`{"content":"plan</think>answer"}`), finish("stop")), `[text "plan</think>answer"] end_turn`},
		{"a late <think> is text", sse(delta(`{"content":"Hello <think>x</think>"}`), finish("stop")), `[text "Hello <think>x</think>"] end_turn`},
		{"a partial tag at the end is text", sse(delta(`{"content":"<thi"}`), finish("stop")), `[text "<thi"] end_turn`},
		{"comments and other fields are skipped", ": keep-alive\n\nevent: chunk\nid: 3\ndata: " + delta(`{"content":"Hi"}`) + "\r\n\r\n" + sse(finish("stop")), `[text "Hi"] end_turn`},
		{"malformed line", sse(delta(`{"content":"Hi"}`), `{"choices":[`), ` error api_error: the upstream sent a chunk that is not a JSON object`},
		{"truncated stream", sse(delta(`{"content":"Hi"}`)), ` error api_error: the upstream's stream ended before its answer was complete`},
		{"empty stream", "", ` error api_error: the upstream's stream ended before its answer was complete`},
		{"only [DONE]", sse("[DONE]"), ` error api_error: the upstream's stream ended without an answer`},
		{"error chunk", sse(delta(`{"content":"Hi"}`), `{"error":{"message":"overloaded","code":503}}`), ` error overloaded_error: overloaded`},
		{"interleaved tool calls", sse(delta(`{"tool_calls":[{"index":0,"id":"a","function":{"name":"A","arguments":"{"}}]}`),
			delta(`{"tool_calls":[{"index":1,"id":"b","function":{"name":"B","arguments":"{}"}}]}`),
			delta(`{"tool_calls":[{"index":0,"function":{"arguments":"}"}}]}`)), ` error api_error: the upstream interleaved the arguments of two tool calls`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := translate(testOptions(), tt.in)
			a, err := checkStream(out)
			if err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
			got := a.summary()
			if a.ErrType != "" {
				got = " error " + a.ErrType + ": " + a.ErrMessage
			}
			if got != tt.want {
				t.Errorf("got  %s\nwant %s\n%s", got, tt.want, out)
			}
		})
	}
}

// TestStreamAssumeOpen: a model that omits the opening tag starts inside
// the section with think_tags open.
func TestStreamAssumeOpen(t *testing.T) {
	opts := testOptions()
	opts.AssumeOpen = true
	a, err := checkStream(translate(opts, sse(delta(`{"content":"plan"}`), delta(`{"content":"</think>\n\nanswer"}`), finish("stop"))))
	if err != nil || a.summary() != `[thinking "plan"][text "answer"] end_turn` {
		t.Errorf("%v %s", err, a.summary())
	}
}

// TestReaderOneReadPerChunk: a chunk's events come out of one Read as soon
// as the chunk is complete, without waiting for the next; what arrived
// together leaves together.
func TestReaderOneReadPerChunk(t *testing.T) {
	chunks := []string{sse(delta(`{"content":"a"}`)), sse(delta(`{"content":"b"}`)), sse(delta(`{"content":"c"}`)), sse(finish("stop")) + sse(usageChunk)}
	// Each upstream read is one chunk, but the second is cut in two.
	pieces := []string{chunks[0], chunks[1][:20], chunks[1][20:], chunks[2], chunks[3]}
	r := messagesapi.NewReader(&piecewise{pieces: pieces}, NewStream(testOptions()))
	buf := make([]byte, 64<<10)
	var reads []string
	for {
		n, err := r.Read(buf)
		if n > 0 {
			reads = append(reads, string(buf[:n]))
		}
		if err != nil {
			break
		}
	}
	if len(reads) != 4 || !strings.HasPrefix(reads[0], "event: message_start") || !strings.Contains(reads[0], `"text":"a"`) ||
		!strings.Contains(reads[1], `"text":"b"`) || strings.Contains(reads[1], `"text":"c"`) ||
		!strings.HasPrefix(reads[3], "event: content_block_stop") || !strings.HasSuffix(reads[3], "event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n") {
		t.Errorf("reads: %q", reads)
	}
}

// TestSignatureSameStreamedOrNot: the thinking block's key does not depend
// on how the answer came.
func TestSignatureSameStreamedOrNot(t *testing.T) {
	a, _ := checkStream(translate(testOptions(), sse(delta(`{"reasoning_content":"a"}`), delta(`{"reasoning_content":"b"}`), delta(`{"content":"x"}`), finish("stop"))))
	body, err := TranslateAnswer([]byte(`{"choices":[{"message":{"content":"x","reasoning_content":"ab"},"finish_reason":"stop"}]}`), testOptions())
	if err != nil || !strings.Contains(string(body), `"signature":"`+a.Blocks[0]["signature"].(string)+`"`) {
		t.Errorf("%v %s vs %v", err, body, a.Blocks[0])
	}
}

func quote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"', '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case '\n':
			b.WriteString(`\n`)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// TestStreamLongWhitespace: whitespace past the bound held before a text
// block never opens a blank block.
func TestStreamLongWhitespace(t *testing.T) {
	ws := strings.Repeat(`\n`, 3000)
	a, err := checkStream(translate(testOptions(), sse(delta(`{"content":"`+ws+`"}`), delta(`{"content":"`+ws+`"}`), finish("stop"))))
	if err != nil || len(a.Blocks) != 0 {
		t.Errorf("%v %s", err, a.summary())
	}
}

// TestReaderSkipsAByteOrderMark: a stream that opens with a byte order
// mark reads as the same stream without it, wherever the reads cut it.
func TestReaderSkipsAByteOrderMark(t *testing.T) {
	stream := sse(delta(`{"content":"a"}`), finish("stop")) + sse(usageChunk)
	want := translate(testOptions(), stream)
	withBOM := string(eventstream.BOM) + stream
	for cut := range len(withBOM) {
		if got := translate(testOptions(), withBOM[:cut], withBOM[cut:]); !bytes.Equal(got, want) {
			t.Fatalf("cut at %d:\n got %s\nwant %s", cut, got, want)
		}
	}
}
