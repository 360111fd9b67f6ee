package messagesapi

import (
	"errors"
	"io"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/eventstream"
)

// MaxChunk bounds one event of an upstream stream, as every reader of
// events bounds it; a longer one ends the stream with an error event.
const MaxChunk = eventstream.MaxEvent

// Translator turns an upstream's events into a Messages stream (see
// Reader).
type Translator interface {
	// Chunk appends the events for the data of one upstream event.
	Chunk(dst, data []byte) []byte
	// Fail appends an error event of type typ and ends the stream.
	Fail(dst []byte, typ, msg string) []byte
	// End appends what ends the stream when the upstream's body ended.
	End(dst []byte) []byte
	// Done reports whether the stream has ended.
	Done() bool
}

// StrayLines is a Translator that is told the lines of the upstream body
// that are no field of an event (Gemini ends a failed stream with an
// error object written bare, over several lines).
type StrayLines interface {
	Stray(line []byte)
}

// maxTrailer bounds what is read of an upstream stream after the message
// ended: a chat-completions [DONE] and the end of its body, read so that
// the connection can serve another request, as it would after a relay.
const maxTrailer = 64 << 10

// Reader reads an upstream's event stream from its body and yields the
// Messages stream a Translator makes of it. A Read returns the events
// of every upstream event complete so far, as soon as one is, and never
// waits for more while it has some: a proxy that flushes after each Read
// flushes each upstream chunk's events together and at once, as it would
// relay the chunk itself. The first Read returns as soon as one upstream
// event gave output, without translating what came with it: the client's
// first byte does not wait for the events a fast upstream sent meanwhile. It ends (io.EOF) after message_stop, once it
// read what the upstream still sends (see maxTrailer), or after an error
// event; an upstream that fails or ends early gives an error event first,
// never a bare end.
type Reader struct {
	src    io.Reader
	stream Translator

	buf       []byte // upstream bytes not yet read as lines
	data      []byte // the data of the event being read
	own       []byte // where data is kept when it cannot point into buf
	hasData   bool
	dataInBuf bool   // data points into buf (one data line, not yet moved)
	out       []byte // events not yet returned
	off       int
	srcErr    error
	framing   eventstream.Lines
	flowing   bool // a Read returned output: later ones take every event complete
	ended     bool
}

// readerBuffer is the room a Reader starts with for the upstream's bytes;
// it grows for an event that does not fit (up to MaxChunk). Events are a
// few hundred bytes: a small start costs a stream less than a large one
// (measured: 20 KB allocated for a 2000-chunk stream instead of 190 KB,
// and 10-30% faster), and each request's first byte 30 µs less.
const readerBuffer = 4 << 10

// NewReader returns a Reader of the upstream body src for stream s.
func NewReader(src io.Reader, s Translator) *Reader {
	return &Reader{src: src, stream: s, buf: make([]byte, 0, readerBuffer)}
}

// Read implements io.Reader.
func (r *Reader) Read(p []byte) (int, error) {
	for r.off == len(r.out) {
		if r.ended {
			return 0, io.EOF
		}
		r.out, r.off = r.out[:0], 0
		r.next()
	}
	n := copy(p, r.out[r.off:])
	r.off += n
	r.flowing = true
	return n, nil
}

// Prime reads the upstream until its first event gave output, or the
// stream ended, and keeps the output for the first Read: a caller that
// must know what the first event said (a transport that sends a request
// again when its answer holds nothing) learns it before the client's first
// byte, and the first Read still returns only that event's output.
func (r *Reader) Prime() {
	for r.off == len(r.out) && !r.ended {
		r.out, r.off = r.out[:0], 0
		r.next()
	}
}

// next reads upstream until at least one event gave output, or the
// stream ended. Once the message ended and its last events were returned,
// it reads what is left of the upstream body ([DONE], the body's end) up
// to maxTrailer, and the Reader ends with it.
func (r *Reader) next() {
	if r.stream.Done() && !r.ended {
		r.trailer()
		return
	}
	for len(r.out) == 0 && !r.ended {
		if r.lines() {
			continue
		}
		if r.srcErr != nil {
			r.finish()
			return
		}
		if len(r.buf) > MaxChunk {
			r.out = r.stream.Fail(r.out, "api_error", "the upstream sent an event over the size bound")
			r.ended = true
			return
		}
		if len(r.buf) == cap(r.buf) {
			r.buf = append(r.buf, 0)[:len(r.buf)]
		}
		n, err := r.src.Read(r.buf[len(r.buf):cap(r.buf)])
		r.buf = r.buf[:len(r.buf)+n]
		if err != nil {
			r.srcErr = err
		}
	}
}

// lines reads the complete lines in buf (before the first output, only
// until an event gives some), and reports whether it read any line.
func (r *Reader) lines() bool {
	read := false
	start := 0
	defer func() {
		if r.dataInBuf {
			// The event's data outlives the bytes it points into.
			r.own = append(r.own[:0], r.data...)
			r.data, r.dataInBuf = r.own, false
		}
		r.buf = r.buf[:copy(r.buf, r.buf[start:])]
	}()
	start = r.framing.Chunk(r.buf)
	for !r.stream.Done() && (r.flowing || len(r.out) == 0) {
		end, next := r.framing.Next(r.buf, start)
		if end < 0 {
			break
		}
		read = true
		r.line(r.buf[start:end])
		start = next
	}
	return read
}

// trailer reads the rest of the upstream body after the message ended.
func (r *Reader) trailer() {
	r.ended = true
	if r.srcErr != nil {
		return
	}
	_, _ = io.CopyN(io.Discard, r.src, maxTrailer)
}

// line handles one line of the upstream stream.
func (r *Reader) line(line []byte) {
	line = r.framing.Line(line)
	if len(line) == 0 {
		if r.hasData {
			r.out = r.stream.Chunk(r.out, r.data)
		}
		r.data, r.hasData, r.dataInBuf = r.own[:0], false, false
		return
	}
	field, value, comment := eventstream.Field(line)
	if comment || string(field) != "data" {
		if s, ok := r.stream.(StrayLines); ok && !comment && !eventstream.IsField(field) {
			s.Stray(line)
		}
		return
	}
	if len(r.data)+len(value) > MaxChunk {
		r.out = r.stream.Fail(r.out, "api_error", "the upstream sent an event over the size bound")
		return
	}
	if !r.hasData {
		// The usual event is one data line: read in place, not copied.
		r.data, r.hasData, r.dataInBuf = value, true, true
		return
	}
	if r.dataInBuf {
		r.own = append(r.own[:0], r.data...)
		r.data, r.dataInBuf = r.own, false
	}
	r.data = eventstream.AppendData(r.data, true, value)
	r.own = r.data
}

// finish ends the stream when the upstream body ended or failed.
func (r *Reader) finish() {
	if len(r.buf) > 0 {
		r.line(r.buf)
		if r.dataInBuf {
			r.own = append(r.own[:0], r.data...)
			r.data, r.dataInBuf = r.own, false
		}
		r.buf = r.buf[:0]
	}
	if r.hasData {
		r.out = r.stream.Chunk(r.out, r.data)
		r.hasData = false
	}
	if errors.Is(r.srcErr, io.EOF) {
		r.out = r.stream.End(r.out)
	} else {
		r.out = r.stream.Fail(r.out, "api_error", "reading the upstream's stream failed: "+r.srcErr.Error())
	}
	r.ended = true
}
