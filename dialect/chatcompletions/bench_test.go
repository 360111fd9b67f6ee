package chatcompletions

import (
	"bytes"
	"io"
	"strconv"
	"strings"
	"testing"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/messagesapi"
)

// BenchmarkTranslateStreamTextChunk is the cost of one text chunk of a
// stream, the bulk of every answer (target: <= 300 ns, 0 allocations).
func BenchmarkTranslateStreamTextChunk(b *testing.B) {
	benchmarkChunk(b, `{"content":" token"}`)
}

// BenchmarkTranslateStreamReasoningChunk is the same for reasoning, which
// is also hashed for the block's signature.
func BenchmarkTranslateStreamReasoningChunk(b *testing.B) {
	benchmarkChunk(b, `{"reasoning_content":" token"}`)
}

// benchmarkChunk measures one chunk of delta, after the first.
func benchmarkChunk(b *testing.B, delta string) {
	s := NewStream(testOptions())
	data := []byte(`{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"qwen3","choices":[{"index":0,"delta":` + delta + `,"finish_reason":null}]}`)
	out := s.Chunk(nil, data)
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		out = s.Chunk(out[:0], data)
	}
}

// BenchmarkReader2000Chunks reads a whole 2000-chunk stream through a
// Reader, the work transport openai adds per answer.
func BenchmarkReader2000Chunks(b *testing.B) {
	var in strings.Builder
	for range 2000 {
		in.WriteString("data: " + delta(`{"content":" token"}`) + "\n\n")
	}
	in.WriteString(sse(finish("stop"), usageChunk, "[DONE]"))
	src := in.String()
	buf := make([]byte, 32<<10)
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for range b.N {
		r := messagesapi.NewReader(strings.NewReader(src), NewStream(testOptions()))
		if _, err := io.CopyBuffer(io.Discard, struct{ io.Reader }{r}, buf); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkTranslateRequest translates a Claude Code request.
func BenchmarkTranslateRequest(b *testing.B) {
	body := bytes.Repeat([]byte(" "), 0)
	body = append(body, claudeCodeRequest...)
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for range b.N {
		if _, err := TranslateRequest(body, RequestOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkResultsOutOfOrder: 100,000 results in the reverse order of
// their calls and 100,000 repeated; linear, as a request of a tenth of it
// takes a tenth of the time (a scan per result would take a hundredth).
func BenchmarkResultsOutOfOrder(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		body := resultsOutOfOrder(n)
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			b.SetBytes(int64(len(body)))
			for b.Loop() {
				if _, err := TranslateRequest(body, RequestOptions{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
