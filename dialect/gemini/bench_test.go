package gemini

import (
	"bytes"
	"strings"
	"testing"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/dialecttest"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/messagesapi"
)

// BenchmarkStream: a stream of a thought and 2000 text chunks, read as the
// transport reads it.
func BenchmarkStream(b *testing.B) {
	var src bytes.Buffer
	src.WriteString("data: " + `{"candidates":[{"content":{"role":"model","parts":[{"text":"Let me think about this step by step.","thought":true}]},"index":0}],"responseId":"r"}` + "\r\n\r\n")
	chunk := "data: " + `{"candidates":[{"content":{"role":"model","parts":[{"text":"Here is some more of the answer, "}]},"index":0}],"responseId":"r"}` + "\r\n\r\n"
	src.WriteString(strings.Repeat(chunk, 2000))
	src.WriteString("data: " + `{"candidates":[{"content":{"role":"model","parts":[{"text":"","thoughtSignature":"EpEg"}]},"finishReason":"STOP","index":0}],"usageMetadata":{"promptTokenCount":10,"candidatesTokenCount":2000},"responseId":"r"}` + "\r\n\r\n")
	dialecttest.BenchmarkStream(b, src.Bytes(), func() messagesapi.Translator { return NewStream(answerOptions()) })
}

// BenchmarkTranslateRequest: a Claude Code request of the captures, with
// its tools and history.
func BenchmarkTranslateRequest(b *testing.B) {
	dialecttest.BenchmarkRequest(b, translateInto)
}
