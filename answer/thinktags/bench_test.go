package thinktags

import (
	"io"
	"strings"
	"testing"
)

// benchStream returns a realistic response as the events it is made of: a
// text block of 40 deltas of reasoning then 400 deltas of answer, and a
// tool call. With tags the reasoning is inside <think></think>; without,
// the same text is a genuine thinking block, so both streams carry the same
// events.
func benchStream(tags bool) []string {
	events := []string{messageStart, ping}
	var reasoning []string
	for i := range 40 {
		reasoning = append(reasoning, strings.Repeat("Weighing the \"options\" step "+string(rune('a'+i%26))+"\n", 3))
	}
	if tags {
		reasoning[0] = "<think>\n" + reasoning[0]
		reasoning[39] += "</think>\n\n"
	}
	words := strings.Fields("Here is the plan: read the file, then apply the edit and run the tests; it's quick.")
	index := 0
	if !tags {
		events = append(events, blockStart(0, startThinking))
		for _, r := range reasoning {
			events = append(events, thinkingDelta(0, r))
		}
		events = append(events, signatureDelta(0, strings.Repeat("EqQBCkYIBxgCKkCvJ9mF3z5Lq0pFvX1rZc8wT2nYb4HsK7dVeA6gMu+/", 8)), blockStop(0))
		index = 1
	}
	events = append(events, blockStart(index, startText))
	if tags {
		for _, r := range reasoning {
			events = append(events, textDelta(index, r))
		}
	}
	for i := range 400 {
		events = append(events, textDelta(index, " "+words[i%len(words)]))
	}
	events = append(events, blockStop(index))
	events = append(events, strings.SplitAfter(toolUse(index+1), "\n\n")[:3]...)
	return append(events, messageDelta, messageStop)
}

// BenchmarkRewriteSSE rewrites a realistic stream, one Write per event as a
// streaming upstream delivers it, and reports the cost per event. "copy" is
// the floor: the same Writes straight to the writer.
func BenchmarkRewriteSSE(b *testing.B) {
	for _, bc := range []struct {
		name string
		tags bool
		copy bool
	}{{"copy", false, true}, {"no tags", false, false}, {"think tags", true, false}} {
		b.Run(bc.name, func(b *testing.B) {
			events := benchStream(bc.tags)
			writes := make([][]byte, len(events))
			size := 0
			for i, e := range events {
				writes[i] = []byte(e)
				size += len(e)
			}
			b.SetBytes(int64(size))
			b.ReportAllocs()
			for b.Loop() {
				if bc.copy {
					for _, w := range writes {
						io.Discard.Write(w)
					}
					continue
				}
				r := NewSSE(io.Discard, opts)
				for _, w := range writes {
					r.Write(w)
				}
				r.Close()
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(events)), "ns/event")
		})
	}
}

// BenchmarkRewriteSSEDelta is the steady state of a stream: text deltas of a
// block without tags, one Write per event.
func BenchmarkRewriteSSEDelta(b *testing.B) {
	r := NewSSE(io.Discard, opts)
	r.Write([]byte(messageStart + blockStart(0, startText) + textDelta(0, "Hello")))
	event := []byte(textDelta(0, " the next few words of the answer,"))
	b.SetBytes(int64(len(event)))
	b.ReportAllocs()
	for b.Loop() {
		r.Write(event)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N), "ns/event")
}

func TestNoAllocationPerEvent(t *testing.T) {
	r := NewSSE(io.Discard, opts)
	r.Write([]byte(messageStart + blockStart(0, startText) + textDelta(0, "<think>plan")))
	for name, event := range map[string]string{
		"thinking delta":    textDelta(0, " more \"planning\" é"),
		"ping":              ping,
		"partial tag":       textDelta(0, "</thi") + textDelta(0, "nking"),
		"text after thinks": textDelta(0, "</think>answer") + textDelta(0, " and more"),
	} {
		p := []byte(event)
		if n := testing.AllocsPerRun(100, func() { r.Write(p) }); n != 0 {
			t.Errorf("%s: %v allocations per event", name, n)
		}
	}
	r = NewSSE(io.Discard, opts)
	r.Write([]byte(messageStart + blockStart(0, startText) + textDelta(0, "Hello")))
	p := []byte(textDelta(0, " words <b>"))
	if n := testing.AllocsPerRun(100, func() { r.Write(p) }); n != 0 {
		t.Errorf("text delta without tags: %v allocations per event", n)
	}
}
