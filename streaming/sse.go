package streaming

import (
	"bytes"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/eventstream"
)

// SSE observes a text/event-stream Messages response.
//
// It splits lines and events as the WHATWG event-stream parser and the
// Anthropic SDKs do, so it reads the events the client reads however the
// body is cut into Writes. It goes by each event's JSON type, except that an
// event named "error" fails the response whatever its data, as it does in
// the SDKs. An SSE is not safe for concurrent use.
type SSE struct {
	complete func([]Block)
	done     bool // complete ran, or the observation ended without it

	lines    eventstream.Lines
	line     []byte // the start of a line cut by the end of a Write
	data     []byte // the data lines of the event being read, joined by '\n'
	hasData  bool   // the event being read has a data line, maybe empty
	errEvent bool   // the event being read is named "error"
	// skip says the event being read is a delta of a block not followed,
	// as its first data line says: its data is not kept.
	skip bool

	open     []openBlock
	finished []Block
	scratch  []byte
	model    []byte // as message_start names it
}

// NewSSE returns an observer that calls complete exactly once, with every
// finished thinking/redacted block (in the order they finished), when it
// reads the message_stop event (or at Close, see there). It never calls
// complete for a response that failed or that it gave up on. complete runs
// on the goroutine calling Write or Close and owns the slice it is given.
func NewSSE(complete func([]Block)) *SSE {
	if complete == nil {
		panic("streaming: NewSSE with a nil complete func")
	}
	return &SSE{complete: complete}
}

// Write feeds the next bytes of the body. It always returns len(p), nil: a
// response the observer cannot follow is the client's business, never a
// reason to fail the copy to the client.
func (s *SSE) Write(p []byte) (int, error) {
	i := s.lines.Chunk(p)
	for !s.done && i < len(p) {
		if s.lines.Plain() {
			if n := s.skipDelta(p[i:]); n > 0 {
				i += n
				continue
			}
		}
		end, next := s.lines.Next(p, i)
		if end < 0 {
			if s.fits(len(s.line) + len(p) - i) {
				s.line = append(s.line, p[i:]...)
			}
			break
		}
		line := p[i:end]
		if len(s.line) > 0 {
			if !s.fits(len(s.line) + len(line)) {
				break
			}
			s.line = append(s.line, line...)
			line = s.line
		} else if !s.fits(len(line)) {
			break
		}
		s.readLine(s.lines.Line(line))
		s.line = s.line[:0]
		i = next
	}
	return len(p), nil
}

// deltaEvent starts a content_block_delta event as the Messages API
// writes it.
const deltaEvent = "event: content_block_delta\ndata: " + deltaPrefix

// skipDelta passes over the delta event p starts with, when it is whole in
// p, written as the API writes it, and a delta of a block not followed
// (see unfollowedDelta), and returns its length; else it returns 0 and
// the event is read line by line. p holds no '\r'.
func (s *SSE) skipDelta(p []byte) int {
	if len(s.line) > 0 || s.hasData || s.skip || s.errEvent || !s.lines.Begun() || !bytes.HasPrefix(p, []byte(deltaEvent)) {
		return 0
	}
	rest := p[len(deltaEvent):]
	end := bytes.IndexByte(rest, '\n')
	if end < 0 || end+1 >= len(rest) || rest[end+1] != '\n' || !s.fits(len(deltaPrefix)+end) || !s.unfollowedIndex(rest[:end]) {
		return 0
	}
	return len(deltaEvent) + end + 2
}

// Model returns the model the response's message_start names, or "" when
// none was read (yet).
func (s *SSE) Model() string { return string(s.model) }

// Close ends the observation. When message_stop never came, the stream saw
// no error event, and abort is false, complete is called with the blocks
// finished so far: the upstream ended its stream without message_stop, and
// the client keeps what it received. With abort true (client gone, write
// failed) nothing is reported. Calling Close after complete already ran does
// nothing.
func (s *SSE) Close(abort bool) {
	if s.done {
		return
	}
	if abort {
		s.quit()
		return
	}
	s.report()
}

// fits reports whether a line of n bytes fits beside the pending event's
// data, and gives up on the response when it does not. Counting whole lines
// makes the verdict the same however the body is cut into Writes.
func (s *SSE) fits(n int) bool {
	if len(s.data)+n <= eventstream.MaxEvent {
		return true
	}
	s.quit()
	return false
}

// readLine interprets one line of the event stream.
func (s *SSE) readLine(line []byte) {
	if len(line) == 0 {
		s.dispatch()
		return
	}
	field, value, comment := eventstream.Field(line)
	if comment {
		return
	}
	switch string(field) {
	case "data":
		switch {
		case s.skip:
		case !s.hasData && s.unfollowedDelta(value):
			s.skip = true
		default:
			s.data, s.hasData = eventstream.AppendData(s.data, s.hasData, value), true
		}
	case "event":
		// The JSON type is authoritative for everything but an error: the
		// SDKs raise an event named "error" whatever its data says.
		s.errEvent = string(value) == "error"
	}
}

// dispatch ends the event being read.
func (s *SSE) dispatch() {
	switch {
	case s.errEvent:
		s.quit()
	case s.hasData:
		s.event(s.data)
	}
	s.data, s.hasData, s.errEvent, s.skip = s.data[:0], false, false, false
}

// report calls complete with the finished blocks and ends the observation.
func (s *SSE) report() {
	blocks := s.finished
	s.quit()
	s.complete(blocks)
}

// quit ends the observation and lets go of its buffers, since the caller may
// keep the observer until the response is fully copied.
func (s *SSE) quit() {
	s.done = true
	s.line, s.data, s.scratch = nil, nil, nil // the model stays readable
	s.open, s.finished = nil, nil
}
