package modelname

import (
	"bytes"
	"io"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/eventstream"
)

// maxHeld bounds what an SSE holds back while it looks for message_start,
// which is the first event of a response and a few hundred bytes long.
const maxHeld = 64 << 10

// SSE rewrites the model of the message_start event of a text/event-stream
// Messages response written to it, and writes the stream on to w. It holds
// bytes back only until the event that decides is complete: message_start
// itself, or a content event, which means there is none to rewrite. An SSE
// is not safe for concurrent use.
type SSE struct {
	w        io.Writer
	literal  []byte // the requested model, as a JSON string
	held     []byte // the bytes from the start of the event being read on
	read     int    // where the line being read starts in held
	lines    eventstream.Lines
	ev       eventstream.Event
	done     bool
	upstream string
	rewrote  bool
}

// NewSSE returns an SSE that writes to w with the model requested.
func NewSSE(w io.Writer, requested string) *SSE {
	return &SSE{w: w, literal: literal(requested)}
}

// Upstream returns the model the backend named in message_start, or "".
func (s *SSE) Upstream() string { return s.upstream }

// Write passes p on, rewritten once message_start is complete. It returns
// the error of the underlying writer; its count is of p.
func (s *SSE) Write(p []byte) (int, error) {
	if s.done {
		return s.w.Write(p)
	}
	s.held = append(s.held, p...)
	chunk := s.held[s.read:]
	i := s.lines.Chunk(chunk)
	for !s.done {
		end, next := s.lines.Next(chunk, i)
		if end < 0 {
			break
		}
		line := chunk[i:end]
		i = next
		if !s.ev.Line(s.lines.Line(line)) {
			continue
		}
		s.ev.Reset()
		evEnd := s.read + next
		if s.event(s.held[:evEnd]) {
			s.done = true
			break
		}
		// An event before message_start (a ping): it leaves now.
		if _, err := s.w.Write(s.held[:evEnd]); err != nil {
			return len(p), err
		}
		s.held = s.held[:copy(s.held, s.held[evEnd:])]
		s.read, chunk, i = 0, s.held, 0
	}
	if !s.done {
		s.read += i
		if len(s.held) > maxHeld {
			s.done = true // no event that long is one to rewrite
		}
	}
	if !s.done {
		return len(p), nil
	}
	_, err := s.w.Write(s.held)
	s.held = nil
	return len(p), err
}

// Close writes what is still held back, a stream cut before its first
// event ended.
func (s *SSE) Close() error {
	if s.done || len(s.held) == 0 {
		s.done = true
		return nil
	}
	s.done = true
	_, err := s.w.Write(s.held)
	s.held = nil
	return err
}

// event looks at one whole event at the start of s.held, rewriting it in
// place when it is message_start, and reports whether it decides the
// stream: message_start, or any event but a ping.
func (s *SSE) event(ev []byte) bool {
	start, end, ok := dataLine(ev)
	if !ok {
		return false // comments, retry lines: nothing to decide
	}
	data := ev[start:end]
	typ, model, upstream := readStart(data)
	switch typ {
	case "ping":
		return false
	case "message_start":
	default:
		return true
	}
	s.upstream = upstream
	if model[1] == 0 || bytes.Equal(data[model[0]:model[1]], s.literal) {
		return true
	}
	at, to := start+model[0], start+model[1]
	rewritten := make([]byte, 0, len(s.held)+len(s.literal))
	rewritten = append(rewritten, s.held[:at]...)
	rewritten = append(rewritten, s.literal...)
	s.held = append(rewritten, s.held[to:]...)
	s.rewrote = true
	return true
}

// dataLine returns where the value of the event's one data line starts and
// ends; an event with no data line, or several, is not one to rewrite.
func dataLine(ev []byte) (start, end int, ok bool) {
	at := 0
	if bytes.HasPrefix(ev, eventstream.BOM) {
		at = len(eventstream.BOM) // the stream's first event
	}
	for at < len(ev) {
		e, next := eventstream.LineEnd(ev[at:])
		if e <= 0 {
			break // the blank line that ends the event
		}
		field, value, comment := eventstream.Field(ev[at : at+e])
		if !comment && string(field) == "data" && len(field) < e {
			if ok {
				return 0, 0, false
			}
			ok, end = true, at+e
			start = end - len(value)
		}
		at += next
	}
	return start, end, ok
}
