package observe

import (
	"bytes"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/answer/events"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/block"
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
	complete func([]block.Observed)
	done     bool // complete ran, or the observation ended without it

	events eventstream.Assembler
	// between caches events.Between() as the last Write left it: a Write
	// that only passes over whole deltas leaves it as it was.
	between  bool
	open     []openBlock
	finished []block.Observed
	scratch  []byte
	model    []byte // as message_start names it
	usage    Usage  // as message_start and message_delta count it

	// pending is the start of an event that the last Write cut, held
	// until the Write that ends it when the Assembler stood between events
	// (see stash): the event is then read whole, as the deltas that came
	// before it were, instead of line by line.
	pending  [maxPending]byte
	nPending int
}

// maxPending bounds the start of an event an SSE holds in pending; a
// larger one is the Assembler's to keep. Deltas are a few hundred bytes.
const maxPending = 2 << 10

// NewSSE returns an observer that calls complete exactly once, with every
// finished thinking/redacted block (in the order they finished), when it
// reads the message_stop event (or at Close, see there). It never calls
// complete for a response that failed or that it gave up on. complete runs
// on the goroutine calling Write or Close and owns the slice it is given.
func NewSSE(complete func([]block.Observed)) *SSE {
	if complete == nil {
		panic("observe: NewSSE with a nil complete func")
	}
	return &SSE{complete: complete}
}

// Write feeds the next bytes of the body. It always returns len(p), nil: a
// response the observer cannot follow is the client's business, never a
// reason to fail the copy to the client.
func (s *SSE) Write(p []byte) (int, error) {
	n := len(p)
	if s.nPending > 0 && !s.done {
		p = s.unstash(p)
	}
	if s.between && !s.done {
		// Nearly every Write: deltas, which need nothing but their end
		// when their block is not followed (text, tool input).
		if p = p[s.deltas(p, false):]; len(p) == 0 || s.done || s.stash(p) {
			return n, nil
		}
	}
	if len(p) > 0 && !s.done {
		s.feed(p, true)
	}
	return n, nil
}

// write reads p, which follows what was read before, holding nothing in
// pending.
func (s *SSE) write(p []byte) {
	if s.between {
		if p = p[s.deltas(p, false):]; len(p) == 0 || s.done {
			return
		}
	}
	s.feed(p, false)
}

// feed reads p through the Assembler; with stash, the event p cuts may be
// held in pending (see stash) when the Assembler passed over the whole
// deltas before it.
func (s *SSE) feed(p []byte, stash bool) {
	s.events.Feed(p)
	defer s.settle()
	for !s.done {
		if raw, fresh := s.events.Fresh(); fresh {
			if k := s.deltas(raw, true); k > 0 {
				if s.events.Skip(k); s.events.Exhausted() {
					break
				}
				continue
			}
			if stash && s.stash(raw) {
				s.events.Skip(len(raw)) // the Assembler is left between events
				break
			}
		}
		f, ok := s.events.Next()
		if !ok {
			break
		}
		switch {
		case f.HasName && string(f.Name) == "error":
			// The JSON type is authoritative for everything but an error:
			// the SDKs raise an event named "error" whatever its data says.
			s.quit()
		case f.HasData:
			s.event(f.Data)
		}
	}
	if s.events.Overflow() {
		s.quit()
	}
}

// stash holds p, the start of an event and nothing more, which the
// Assembler standing between events would otherwise read line by line and
// keep in pieces; it reports false, holding nothing, when p holds a '\r'
// or a blank line (p is more than an event's start), or is too large.
// Upstreams flush a few KiB at a time, so nearly every Write of a long
// answer ends inside an event.
func (s *SSE) stash(p []byte) bool {
	if len(p) > maxPending || bytes.IndexByte(p, '\r') >= 0 || bytes.Index(p, blankLine) >= 0 {
		return false
	}
	s.nPending = copy(s.pending[:], p)
	return true
}

// unstash completes the event in pending with the start of p and reads
// it, and returns the rest of p. An event that p does not end either, if
// there is room, stays pending; one that p continues with a '\r', or that
// outgrows pending, is read as it came instead, and p after it.
func (s *SSE) unstash(p []byte) []byte {
	if len(p) == 0 {
		return p
	}
	end := -1
	if s.pending[s.nPending-1] == '\n' && p[0] == '\n' {
		end = 1
	} else if i := bytes.Index(p, blankLine); i >= 0 {
		end = i + len(blankLine)
	}
	upTo := end
	if end < 0 {
		upTo = len(p)
	}
	if s.nPending+upTo > maxPending || bytes.IndexByte(p[:upTo], '\r') >= 0 {
		s.readPending()
		return p
	}
	s.nPending += copy(s.pending[s.nPending:], p[:upTo])
	if end < 0 {
		return nil
	}
	s.readPending()
	return p[end:]
}

// readPending reads what pending holds and empties it.
func (s *SSE) readPending() {
	p := s.pending[:s.nPending]
	s.nPending = 0
	s.write(p)
}

// blankLine ends an event in a stream that holds no '\r'.
var blankLine = []byte("\n\n")

// settle records, after a Write that fed the Assembler, whether it is
// left between events.
func (s *SSE) settle() { s.between = !s.done && s.events.Between() }

// deltas reads the delta events written as the API writes them that raw,
// a stream's bytes from the start of an event, starts with (see
// events.DeltaEvent), and returns their length: each passed at the cost of
// finding its end when its block is not followed, its delta read in place
// when it is. crFree says raw holds no '\r'; else the events are read up
// to its first one, found in one scan, and the Assembler reads the rest.
func (s *SSE) deltas(raw []byte, crFree bool) int {
	if !crFree {
		if cr := bytes.IndexByte(raw, '\r'); cr >= 0 {
			raw = raw[:cr]
		}
	}
	at := 0
	for at < len(raw) {
		i, n, ok := events.DeltaEventNoCR(raw[at:])
		if !ok || n > eventstream.MaxEvent {
			break
		}
		if len(s.open) > 0 && i <= maxIndex {
			if b := s.slot(i); b >= 0 {
				if s.followedDelta(b, events.RawDelta(raw[at:at+n])); s.done {
					return at + n
				}
			}
		}
		at += n
	}
	return at
}

// Usage returns the tokens the response's usage counts: message_start's,
// and the cumulative counts of message_delta over them.
func (s *SSE) Usage() Usage { return s.usage }

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
	s.nPending = 0
	s.events.Release()
	s.scratch = nil // the model stays readable
	s.open, s.finished = nil, nil
}
