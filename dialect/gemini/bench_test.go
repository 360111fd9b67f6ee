package gemini

import (
	"bytes"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/messagesapi"
)

// BenchmarkTranslateRequest: a Claude Code request of the captures, with
// its tools and history.
func BenchmarkTranslateRequest(b *testing.B) {
	body, err := os.ReadFile("../../testdata/claude-code-2.1.328/capture-4-continue-model-switch-opus-4-6.json")
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := TranslateRequest(body, RequestOptions{Model: "gemini-3-pro-preview", Signer: testSigner}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkStream: a stream of a thought and 2000 text chunks, read as the
// transport reads it.
func BenchmarkStream(b *testing.B) {
	var src bytes.Buffer
	src.WriteString("data: " + `{"candidates":[{"content":{"role":"model","parts":[{"text":"Let me think about this step by step.","thought":true}]},"index":0}],"responseId":"r"}` + "\r\n\r\n")
	chunk := "data: " + `{"candidates":[{"content":{"role":"model","parts":[{"text":"Here is some more of the answer, "}]},"index":0}],"responseId":"r"}` + "\r\n\r\n"
	src.WriteString(strings.Repeat(chunk, 2000))
	src.WriteString("data: " + `{"candidates":[{"content":{"role":"model","parts":[{"text":"","thoughtSignature":"EpEg"}]},"finishReason":"STOP","index":0}],"usageMetadata":{"promptTokenCount":10,"candidatesTokenCount":2000},"responseId":"r"}` + "\r\n\r\n")
	in := src.Bytes()
	b.SetBytes(int64(len(in)))
	b.ReportAllocs()
	for b.Loop() {
		n, err := io.Copy(io.Discard, messagesapi.NewReader(bytes.NewReader(in), NewStream(answerOptions())))
		if err != nil || n == 0 {
			b.Fatal(n, err)
		}
	}
}
