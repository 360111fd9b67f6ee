package thinktags

import (
	"crypto/sha256"
	"errors"
	"hash"
	"io"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/block"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/eventstream"
)

// maxEvent bounds the bytes of one event (and so of any line) the rewriter
// reads, and the events it holds back. Past it the rewriter closes the blocks
// it opened and copies the rest of the stream untouched: a stream it already
// renumbered may then carry stale indices, but its memory stays bounded.
const maxEvent = eventstream.MaxEvent

// errClosed is returned by a Write after Close.
var errClosed = errors.New("thinktags: write to a closed SSE rewriter")

// SSE rewrites a text/event-stream Messages response as it passes, turning
// the think sections of its text blocks into thinking blocks.
//
// It frames lines and events as the WHATWG event-stream parser does, so the
// output is the same however the input is cut into Writes. Every event comes
// out in the Write that completes it, except that the start of a text block
// waits for its first text, to learn whether a section opens it, and that
// events carrying a tag that may still be completing wait for the event that
// decides it. Events it does not change (everything in a stream without
// tags) come out byte for byte; events it changes or synthesizes are written
// as "event: <type>" and one "data:" line per data line, ended by "\n".
//
// An SSE is not safe for concurrent use.
type SSE struct {
	w    io.Writer
	opts Options
	err  error // the first error of w, or errClosed

	// Framing.
	lines   eventstream.Lines
	crEnded bool              // the '\r' that ended the last Write ended an event
	lastOut fate              // what became of the last event, to follow it with that '\n'
	carry   []byte            // the bytes of the event being read that came in earlier Writes
	lineOff int               // where the line being read starts, in carry and then p
	ev      eventstream.Event // the fields of the event being read
	copying bool              // gave up: every byte is copied untouched

	// Output of the current Write: out, preceded by the span of p not yet
	// appended to it.
	p                  []byte
	out                []byte
	spanStart, spanEnd int
	spanOpen           bool

	runs    []Run  // the runs of the text being split
	scratch []byte // decoded text with escapes

	// Rewriting.
	shift   int  // what to add to an upstream index after the text blocks so far
	seen    bool // a content block started, so AssumeOpen no longer applies
	dropIdx int  // upstream index of a text block ended early whose events are dropped, or -1
	left    int  // sections that may still open
	text    textBlock
	held    held
	hasher  block.Hasher
	sum     hash.Hash
	blocks  []Block
}

// fate is what became of an event's bytes.
type fate uint8

const (
	dropped fate = iota // rewritten, replaced or dropped
	copied              // written as they came
	kept                // held back as they came
)

// NewSSE returns a rewriter that writes the rewritten stream to w. It panics
// when opts.Sign is nil.
func NewSSE(w io.Writer, opts Options) *SSE {
	if opts.Sign == nil {
		panic("thinktags: NewSSE with a nil Sign")
	}
	return &SSE{w: w, opts: opts, dropIdx: -1, left: maxSections, sum: sha256.New()}
}

// Blocks returns the thinking blocks synthesized so far, in the order they
// finished. A block is reported once its signature is written. The slice
// belongs to the rewriter until the next Write or Close.
func (s *SSE) Blocks() []Block { return s.blocks }

// Write rewrites the next bytes of the stream and writes what they complete
// to w, in one call of w.Write at most. It returns len(p) or the error of w,
// which every later call returns too.
func (s *SSE) Write(p []byte) (int, error) {
	if s.err != nil {
		return 0, s.err
	}
	if s.copying {
		return s.copyThrough(p)
	}
	s.p, s.out, s.spanOpen = p, s.out[:0], false
	i, evStart := s.lines.Chunk(p), 0
	if i > 0 { // the '\n' of a "\r\n" the last Write cut
		if s.crEnded {
			s.lateLF()
			evStart = 1
		} else {
			s.lineOff++ // the '\n' ends the line before
		}
	}
	s.readLines(p, i, evStart)
	return s.flushOut(len(p))
}

// Close ends the stream. A text block still open gets the events that end
// it: the upstream stopped mid-stream, and the client keeps what it got with
// every block the rewriter opened closed. The bytes of an event left
// incomplete are copied when nothing was added after them, and dropped
// otherwise, as the client would drop them. Close writes to w at most once.
func (s *SSE) Close() error {
	if s.err == errClosed {
		return nil
	}
	if s.err != nil {
		return s.err
	}
	if s.copying {
		s.err = errClosed
		return nil
	}
	s.p, s.out, s.spanOpen = nil, s.out[:0], false
	if !s.text.active || !s.endText(nil, message{}) {
		s.emit(s.carry)
	}
	_, err := s.flushOut(0)
	if err == nil {
		s.err = errClosed
	}
	s.release()
	return err
}

// readLines reads the lines of p from i on. The event being read is carry
// followed by p[evStart:].
func (s *SSE) readLines(p []byte, i, evStart int) {
	for i < len(p) {
		end, next := s.lines.Next(p, i)
		if end < 0 {
			break
		}
		if len(s.carry)+next-evStart > maxEvent {
			s.giveUp(p[evStart:])
			return
		}
		line := p[i:end]
		if len(s.carry) > s.lineOff {
			// The line began in an earlier Write: make it whole in carry,
			// which then holds the event up to here.
			s.carry = append(s.carry, p[evStart:next]...)
			line = s.carry[s.lineOff : len(s.carry)-(next-end)]
			evStart = next
		}
		s.crEnded = s.ev.Line(s.lines.Line(line))
		if s.crEnded {
			s.dispatch(s.rawEvent(p, evStart, next))
			s.carry, evStart = s.carry[:0], next
			s.ev.Reset()
		}
		s.lineOff = len(s.carry) + next - evStart
		i = next
	}
	if evStart < len(p) {
		if len(s.carry)+len(p)-evStart > maxEvent {
			s.giveUp(p[evStart:])
			return
		}
		s.carry = append(s.carry, p[evStart:]...)
	}
}

// rawEvent returns where the bytes of the event that ends at p[end] are.
func (s *SSE) rawEvent(p []byte, start, end int) event {
	if len(s.carry) == 0 {
		return event{inP: true, start: start, end: end, raw: p[start:end], name: s.ev.Name, hasName: s.ev.HasName, data: s.ev.Data, hasData: s.ev.HasData}
	}
	s.carry = append(s.carry, p[start:end]...)
	return event{raw: s.carry, name: s.ev.Name, hasName: s.ev.HasName, data: s.ev.Data, hasData: s.ev.HasData}
}

// lateLF places the '\n' that completes the "\r\n" ending the last event,
// cut from it by the end of the previous Write, where the event's bytes
// went: so the output is the same however the input was cut.
func (s *SSE) lateLF() {
	switch s.lastOut {
	case copied:
		s.copySpan(0, 1)
	case kept:
		s.held.extendLast('\n')
	}
}

// giveUp stops rewriting: the blocks the rewriter opened are closed and the
// event being read, rest (its bytes in p) and everything after it are copied.
func (s *SSE) giveUp(rest []byte) {
	if s.text.active {
		s.endText(nil, message{})
	}
	s.emit(s.carry)
	s.emit(rest)
	s.copying = true
	s.release()
}

// release lets go of the buffers, which the caller may keep until the
// response is fully copied.
func (s *SSE) release() {
	s.carry, s.ev, s.scratch, s.runs = nil, eventstream.Event{}, nil, nil
	s.held = held{}
}

// copyThrough writes p untouched.
func (s *SSE) copyThrough(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	if _, err := s.w.Write(p); err != nil {
		s.err = err
		return 0, err
	}
	return len(p), nil
}
