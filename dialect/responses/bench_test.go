package responses

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/dialecttest"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/messagesapi"
)

// BenchmarkTranslateRequest: a Claude Code request of a session that
// switched models, as the transport translates it.
func BenchmarkTranslateRequest(b *testing.B) {
	dialecttest.BenchmarkRequest(b, translateInto)
}

// BenchmarkStream: a stream of a reasoning item summarized in 100 deltas
// and a message of 2000 text deltas, as the API writes them (an event line
// each), read as the transport reads it.
func BenchmarkStream(b *testing.B) {
	var src bytes.Buffer
	seq := 0
	event := func(typ, rest string) {
		seq++
		fmt.Fprintf(&src, "event: %s\ndata: {\"type\":%q,%s,\"sequence_number\":%d}\n\n", typ, typ, rest, seq)
	}
	event("response.created", `"response":{"id":"resp_b","object":"response","status":"in_progress","model":"gpt-5","output":[]}`)
	event("response.output_item.added", `"output_index":0,"item":{"id":"rs_b","type":"reasoning","summary":[]}`)
	event("response.reasoning_summary_part.added", `"item_id":"rs_b","output_index":0,"summary_index":0,"part":{"type":"summary_text","text":""}`)
	for range 100 {
		event("response.reasoning_summary_text.delta", `"item_id":"rs_b","output_index":0,"summary_index":0,"delta":"Let me think about this. ","obfuscation":"aB3"`)
	}
	event("response.output_item.done", `"output_index":0,"item":{"id":"rs_b","type":"reasoning","summary":[{"type":"summary_text","text":"…"}],"encrypted_content":"`+strings.Repeat("gAAAAABo", 200)+`"}`)
	event("response.output_item.added", `"output_index":1,"item":{"id":"msg_b","type":"message","status":"in_progress","content":[],"role":"assistant"}`)
	for range 2000 {
		event("response.output_text.delta", `"item_id":"msg_b","output_index":1,"content_index":0,"delta":"Here is some more of the answer, ","logprobs":[],"obfuscation":"x1Yz"`)
	}
	event("response.output_item.done", `"output_index":1,"item":{"id":"msg_b","type":"message","status":"completed","content":[{"type":"output_text","annotations":[],"text":"…"}],"role":"assistant"}`)
	event("response.completed", `"response":{"id":"resp_b","status":"completed","usage":{"input_tokens":10,"output_tokens":2100}}`)
	dialecttest.BenchmarkStream(b, src.Bytes(), func() messagesapi.Translator {
		return NewStream(AnswerOptions{Model: "claude-sonnet-4-5", Signer: testSigner})
	})
}

// BenchmarkTextDelta: one output_text.delta event.
func BenchmarkTextDelta(b *testing.B) {
	data := []byte(`{"type":"response.output_text.delta","item_id":"msg_b","output_index":1,"content_index":0,"delta":"Here is some more of the answer, ","logprobs":[],"obfuscation":"x1Yz","sequence_number":7}`)
	s := NewStream(AnswerOptions{Model: "m", Signer: testSigner})
	dst := s.Chunk(nil, []byte(`{"type":"response.created","response":{"id":"r"}}`))
	b.ReportAllocs()
	for b.Loop() {
		dst = s.Chunk(dst[:0], data)
	}
}
