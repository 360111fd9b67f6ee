package observe

import (
	"github.com/caddy-llm-thinking/caddy-llm-thinking/block"

	"encoding/json"
	"strings"
	"testing"
)

// benchStream returns a realistic response as the events it is made of:
// message_start, ping, a thinking block of 40 thinking_deltas and a
// signature, a text block of 400 text_deltas, message_delta, message_stop.
func benchStream() []string {
	lit := func(s string) string {
		b, _ := json.Marshal(s)
		return string(b)
	}
	events := []string{messageStart, ping, blockStart(0, startThinking)}
	for i := range 40 {
		events = append(events, thinkingDelta(0, lit(strings.Repeat("Weighing the \"options\" <step "+string(rune('a'+i%26))+">\n", 3))))
	}
	events = append(events, signatureDelta(0, lit(strings.Repeat("EqQBCkYIBxgCKkCvJ9mF3z5Lq0pFvX1rZc8wT2nYb4HsK7dVeA6gMu+/", 8))), blockStop(0))
	events = append(events, blockStart(1, startText))
	words := strings.Fields("Here is the plan: read the file, then apply the edit and run the tests; it's quick.")
	for i := range 400 {
		events = append(events, textDelta(1, lit(" "+words[i%len(words)])))
	}
	return append(events, blockStop(1), messageDelta, messageStop)
}

// claudeStream returns the events of a long answer as the speed targets'
// bench streams it (bench/cmd/upstream: 2000 deltas, a quarter of them
// thinking, 40 bytes of text each, one Write per event).
func claudeStream() []string {
	const deltas = 2000
	events := []string{messageStart, ping, blockStart(0, startThinking)}
	for range deltas / 4 {
		events = append(events, thinkingDelta(0, `"considering the proxy path and the buffer"`))
	}
	events = append(events, signatureDelta(0, `"`+strings.Repeat("EqQBCkgIARABGAIiQL3fQ1p7k2mZ9x0", 6)+`=="`), blockStop(0), blockStart(1, startText))
	for range deltas - deltas/4 - 1 {
		events = append(events, textDelta(1, `"Here is the next piece of the answer, ok "`))
	}
	return append(events, blockStop(1), messageDelta, messageStop)
}

// BenchmarkObserveSSE2000Deltas observes the bench's long answer, one Write
// per event, and reports the cost per event and per answer: what the
// observer adds to a streamed request of the bench's load c.
func BenchmarkObserveSSE2000Deltas(b *testing.B) {
	writes, _ := eventWrites(claudeStream())
	observeWrites(b, writes)
}

// BenchmarkObserveSSE2000DeltasChunked is BenchmarkObserveSSE2000Deltas
// with the answer cut as reverse_proxy reads it under the bench's load c:
// Writes of 3.2 KB on average (counted in the running Caddy), so about 23
// events each, and cut anywhere, mostly inside an event.
func BenchmarkObserveSSE2000DeltasChunked(b *testing.B) {
	whole := []byte(strings.Join(claudeStream(), ""))
	var writes [][]byte
	for len(whole) > 0 {
		n := min(3200, len(whole))
		writes, whole = append(writes, whole[:n]), whole[n:]
	}
	observeWrites(b, writes)
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(claudeStream())), "ns/event")
}

// BenchmarkObserveSSE observes a realistic stream, one Write per event as a
// streaming upstream delivers it, and reports the cost per event.
func BenchmarkObserveSSE(b *testing.B) {
	writes, size := eventWrites(benchStream())
	b.SetBytes(int64(size))
	observeWrites(b, writes)
}

// eventWrites returns the events as the Writes of a streaming upstream,
// one an event, and how many bytes they hold.
func eventWrites(events []string) (writes [][]byte, size int) {
	writes = make([][]byte, len(events))
	for i, e := range events {
		writes[i] = []byte(e)
		size += len(e)
	}
	return writes, size
}

// observeWrites observes an answer of one thinking block made of writes,
// and reports the cost per event.
func observeWrites(b *testing.B, writes [][]byte) {
	b.ReportAllocs()
	blocks := 0
	for b.Loop() {
		s := NewSSE(func(bs []block.Observed) { blocks = len(bs) })
		for _, w := range writes {
			s.Write(w)
		}
		s.Close(false)
	}
	if blocks != 1 {
		b.Fatalf("reported %d blocks, want 1", blocks)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(writes)), "ns/event")
}

// BenchmarkObserveJSON reads the blocks of a non-streaming response, plain
// and gzipped.
func BenchmarkObserveJSON(b *testing.B) {
	msg := readFixture(b, messageFixture.file)
	for _, bc := range []struct {
		encoding string
		body     []byte
	}{{"identity", msg}, {"gzip", gzipped(b, msg)}} {
		b.Run(bc.encoding, func(b *testing.B) {
			b.SetBytes(int64(len(msg)))
			b.ReportAllocs()
			for b.Loop() {
				j := NewJSON(1<<20, bc.encoding)
				j.Write(bc.body)
				if blocks, err := j.Blocks(); err != nil || len(blocks) != 2 {
					b.Fatalf("Blocks() = %v, %v", blocks, err)
				}
			}
		})
	}
}

// BenchmarkObserveSSEDelta is the steady state of a response: text deltas,
// one Write per event, with a thinking block finished before them. The
// target is at most 30 ns and no allocation per event.
func BenchmarkObserveSSEDelta(b *testing.B) {
	s := NewSSE(func([]block.Observed) {})
	s.Write([]byte(messageStart + blockStart(0, startThinking) + signatureDelta(0, `"sig"`) + blockStop(0) + blockStart(1, startText)))
	event := []byte(textDelta(1, `" the next few words of the answer,"`))
	b.SetBytes(int64(len(event)))
	b.ReportAllocs()
	for b.Loop() {
		s.Write(event)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N), "ns/event")
}
