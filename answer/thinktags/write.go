package thinktags

import (
	"bytes"
	"strconv"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/jsonstr"
)

// The output of a Write is built in s.out, except that bytes copied from
// the input are first only marked as a span of p: a Write whose output is
// its input, as every Write of a stream without tags is, then hands p itself
// to w, with no copy.

// emit appends b to the output.
func (s *SSE) emit(b []byte) {
	s.flushSpan()
	s.out = append(s.out, b...)
}

// copySpan appends p[start:end] to the output.
func (s *SSE) copySpan(start, end int) {
	if s.spanOpen && s.spanEnd == start {
		s.spanEnd = end
		return
	}
	s.flushSpan()
	s.spanStart, s.spanEnd, s.spanOpen = start, end, true
}

func (s *SSE) flushSpan() {
	if s.spanOpen {
		s.out = append(s.out, s.p[s.spanStart:s.spanEnd]...)
		s.spanOpen = false
	}
}

// flushOut writes the output of the current call to w and returns what the
// call returns.
func (s *SSE) flushOut(n int) (int, error) {
	var err error
	switch {
	case len(s.out) == 0 && s.spanOpen && s.spanStart == 0 && s.spanEnd == len(s.p):
		_, err = s.w.Write(s.p)
	default:
		s.flushSpan()
		if len(s.out) > 0 {
			_, err = s.w.Write(s.out)
		}
	}
	s.p, s.spanOpen = nil, false
	if err != nil {
		s.err = err
		return 0, err
	}
	return n, nil
}

// writeRaw writes an event as it came.
func (s *SSE) writeRaw(ev event) {
	if ev.inP {
		s.copySpan(ev.start, ev.end)
		return
	}
	s.emit(ev.raw)
}

// writeIndexed writes a content block event with the given output index:
// as it came when that is its own index, rewritten otherwise.
func (s *SSE) writeIndexed(ev event, m message, index int) fate {
	if index == m.Index {
		s.writeRaw(ev)
		return copied
	}
	s.flushSpan()
	if ev.hasName {
		s.out = append(s.out, "event: "...)
		s.out = append(s.out, ev.name...)
		s.out = append(s.out, '\n')
	}
	data := ev.data
	rest := data[m.IndexAt[1]:]
	s.out = append(s.out, "data: "...)
	s.out = appendLines(s.out, data[:m.IndexAt[0]])
	s.out = strconv.AppendInt(s.out, int64(index), 10)
	s.out = appendLines(s.out, rest)
	s.out = append(s.out, "\n\n"...)
	return dropped
}

// appendLines appends data, starting a new data line at each '\n'.
func appendLines(dst, data []byte) []byte {
	for {
		i := bytes.IndexByte(data, '\n')
		if i < 0 {
			return append(dst, data...)
		}
		dst = append(dst, data[:i]...)
		dst = append(dst, "\ndata: "...)
		data = data[i+1:]
	}
}

const (
	startPrefix        = "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":"
	deltaPrefix        = "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":"
	stopPrefix         = "event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":"
	thinkingStartJSON  = `,"content_block":{"type":"thinking","thinking":"","signature":""}}` + "\n\n"
	textStartJSON      = `,"content_block":{"type":"text","text":""}}` + "\n\n"
	thinkingDeltaJSON  = `,"delta":{"type":"thinking_delta","thinking":"`
	textDeltaJSON      = `,"delta":{"type":"text_delta","text":"`
	signatureDeltaJSON = `,"delta":{"type":"signature_delta","signature":`
	deltaEnd           = "\"}}\n\n"
	eventEnd           = "}\n\n"
)

// writeStart writes the start of an output block of kind k.
func (s *SSE) writeStart(k kind, index int) {
	s.flushSpan()
	s.out = append(s.out, startPrefix...)
	s.out = strconv.AppendInt(s.out, int64(index), 10)
	if k == thinkingKind {
		s.out = append(s.out, thinkingStartJSON...)
	} else {
		s.out = append(s.out, textStartJSON...)
	}
}

// writeDelta writes one delta of the open output block carrying the text of
// runs, all of its kind. Thinking text goes into the block's key and
// signature too.
func (s *SSE) writeDelta(runs []Run) {
	s.flushSpan()
	s.out = append(s.out, deltaPrefix...)
	s.out = strconv.AppendInt(s.out, int64(s.text.next-1), 10)
	thinking := runs[0].Thinking
	if thinking {
		s.out = append(s.out, thinkingDeltaJSON...)
	} else {
		s.out = append(s.out, textDeltaJSON...)
	}
	for _, r := range runs {
		s.out = jsonstr.Escape(s.out, r.Text)
		if thinking {
			s.hasher.Write(r.Text)
			s.sum.Write(r.Text)
		}
	}
	s.out = append(s.out, deltaEnd...)
}

func (s *SSE) writeSignature(index int, sig string) {
	s.flushSpan()
	s.out = append(s.out, deltaPrefix...)
	s.out = strconv.AppendInt(s.out, int64(index), 10)
	s.out = append(s.out, signatureDeltaJSON...)
	s.out = jsonstr.Quote(s.out, []byte(sig))
	s.out = append(s.out, "}"+eventEnd...)
}

func (s *SSE) writeStop(index int) {
	s.flushSpan()
	s.out = append(s.out, stopPrefix...)
	s.out = strconv.AppendInt(s.out, int64(index), 10)
	s.out = append(s.out, eventEnd...)
}
