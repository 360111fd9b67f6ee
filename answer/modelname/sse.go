package modelname

import (
	"bytes"
	"io"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/answer/events"
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
	events   eventstream.Assembler
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
	out := p[:0:0]
	if s.events.Feed(p) {
		out = append(out, '\n') // the end of an event written already
	}
	for {
		f, ok := s.events.Next()
		if !ok {
			break
		}
		raw, decides := s.event(f)
		if out = append(out, raw...); decides {
			s.done = true
			out = append(out, s.events.Rest()...)
			break
		}
	}
	if !s.done && (s.events.Overflow() || len(s.events.Pending()) > maxHeld) {
		s.done = true // no event that long is one to rewrite
		out = append(append(out, s.events.Pending()...), s.events.Rest()...)
	}
	if s.done {
		s.events.Release()
	}
	if len(out) == 0 {
		return len(p), nil
	}
	_, err := s.w.Write(out)
	return len(p), err
}

// Close writes what is still held back, a stream cut before its first
// event ended.
func (s *SSE) Close() error {
	if s.done {
		return nil
	}
	s.done = true
	held := s.events.Pending()
	s.events.Release()
	if len(held) == 0 {
		return nil
	}
	_, err := s.w.Write(held)
	return err
}

// event returns the bytes of one whole event, rewritten when it is
// message_start, and reports whether it decides the stream: message_start,
// or any event but a ping and those with no data to tell.
func (s *SSE) event(f *eventstream.Frame) ([]byte, bool) {
	if !f.HasData || f.DataAt < 0 {
		return f.Raw, false // comments, retry lines, several data lines: nothing to decide
	}
	ev, ok := events.Read(f.Data)
	switch {
	case ok && ev.Type == events.Ping:
		return f.Raw, false
	case !ok || ev.Type != events.MessageStart:
		return f.Raw, true
	}
	model, upstream := modelMember(ev.Message)
	s.upstream = upstream
	if model[1] == 0 || bytes.Equal(ev.Message[model[0]:model[1]], s.literal) {
		return f.Raw, true
	}
	at := f.DataAt + offsetIn(f.Data, ev.Message)
	rewritten := make([]byte, 0, len(f.Raw)-(model[1]-model[0])+len(s.literal))
	rewritten = append(rewritten, f.Raw[:at+model[0]]...)
	rewritten = append(rewritten, s.literal...)
	s.rewrote = true
	return append(rewritten, f.Raw[at+model[1]:]...), true
}

// offsetIn returns where sub, a slice of b, starts in b.
func offsetIn(b, sub []byte) int { return cap(b) - cap(sub) }
