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
	events eventstream.Assembler

	buf     []byte // the upstream's bytes read last, which events still points into
	unread  bool   // buf may hold events not read yet
	out     []byte // events not yet returned
	off     int
	srcErr  error
	flowing bool // a Read returned output: later ones take every event complete
	ended   bool
}

// readerBuffer is the room a Reader reads the upstream's bytes into.
// Events are a few hundred bytes: a small buffer costs a stream less than
// a large one (measured: 20 KB allocated for a 2000-chunk stream instead
// of 190 KB, and 10-30% faster), and each request's first byte 30 µs less;
// an event longer than a read is kept by the assembler until it ends.
const readerBuffer = 4 << 10

// NewReader returns a Reader of the upstream body src for stream s.
func NewReader(src io.Reader, s Translator) *Reader {
	r := &Reader{src: src, stream: s, buf: make([]byte, readerBuffer)}
	if stray, ok := s.(StrayLines); ok {
		r.events.Stray = stray.Stray
	}
	return r
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
		if r.unread && r.translate() {
			continue
		}
		if r.events.Overflow() {
			r.out = r.stream.Fail(r.out, "api_error", "the upstream sent an event over the size bound")
			r.ended = true
			return
		}
		if r.srcErr != nil {
			r.finish()
			return
		}
		n, err := r.src.Read(r.buf)
		if err != nil {
			r.srcErr = err
		}
		r.events.Feed(r.buf[:n])
		r.unread = true
	}
}

// translate translates the events of what was read last (before the first
// output, only until an event gives some), and reports whether it read
// any event.
func (r *Reader) translate() bool {
	read := false
	for !r.stream.Done() && (r.flowing || len(r.out) == 0) {
		f, ok := r.events.Next()
		if !ok {
			r.unread = false
			break
		}
		read = true
		if f.HasData {
			r.out = r.stream.Chunk(r.out, f.Data)
		}
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

// finish ends the stream when the upstream body ended or failed.
func (r *Reader) finish() {
	if f, ok := r.events.End(); ok && !r.stream.Done() {
		r.out = r.stream.Chunk(r.out, f.Data)
	}
	if errors.Is(r.srcErr, io.EOF) {
		r.out = r.stream.End(r.out)
	} else {
		r.out = r.stream.Fail(r.out, "api_error", "reading the upstream's stream failed: "+r.srcErr.Error())
	}
	r.ended = true
}
