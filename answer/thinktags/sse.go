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
	events  eventstream.Assembler
	lastOut fate // what became of the last event, to follow it with a late '\n'
	copying bool // gave up: every byte is copied untouched

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
	if s.events.Feed(p) { // the '\n' of a "\r\n" the last Write cut
		s.lateLF()
	}
	for {
		f, ok := s.events.Next()
		if !ok {
			break
		}
		s.dispatch(event{inP: f.InChunk, start: f.Start, end: f.End, raw: f.Raw, name: f.Name, hasName: f.HasName, data: f.Data, hasData: f.HasData})
	}
	if s.events.Overflow() {
		s.giveUp()
	}
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
		s.emit(s.events.Pending())
	}
	_, err := s.flushOut(0)
	if err == nil {
		s.err = errClosed
	}
	s.release()
	return err
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
// event being read and everything after it are copied.
func (s *SSE) giveUp() {
	if s.text.active {
		s.endText(nil, message{})
	}
	s.emit(s.events.Pending())
	s.emit(s.events.Rest())
	s.copying = true
	s.release()
}

// release lets go of the buffers, which the caller may keep until the
// response is fully copied.
func (s *SSE) release() {
	s.events.Release()
	s.scratch, s.runs = nil, nil
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
