package modelname

import (
	"io"
	"strconv"
	"strings"
	"testing"
)

// BenchmarkRewriteSSE renames the model of a stream of 2000 text deltas,
// one Write per event as a streaming upstream delivers it, and reports the
// cost per event: after message_start, every event passes at the cost of
// finding its end.
func BenchmarkRewriteSSE(b *testing.B) {
	events := []string{start, ping, "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n"}
	for i := range 2000 {
		events = append(events, "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\" word "+strconv.Itoa(i)+" of the answer, about forty bytes\"}}\n\n")
	}
	events = append(events, "event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n",
		"event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n")
	chunks := make([][]byte, len(events))
	size := 0
	for i, e := range events {
		chunks[i] = []byte(e)
		size += len(e)
	}
	b.SetBytes(int64(size))
	b.ReportAllocs()
	for b.Loop() {
		s := NewSSE(io.Discard, "claude-sonnet-4-5")
		for _, c := range chunks {
			s.Write(c)
		}
		s.Close()
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(events)), "ns/event")
}

// BenchmarkRewriteJSON renames the model of a whole answer.
func BenchmarkRewriteJSON(b *testing.B) {
	body := []byte(`{"id":"msg_1","type":"message","role":"assistant","model":"glm-4.6","content":[{"type":"text","text":"` +
		strings.Repeat("the answer ", 400) + `"}],"stop_reason":"end_turn","usage":{"input_tokens":10,"output_tokens":400}}`)
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		RewriteJSON(body, "claude-sonnet-4-5")
	}
}
