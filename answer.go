package llmthinking

import (
	"errors"
	"fmt"
	"io"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/streaming"
)

// heldAnswer is an answer, or the start of one, held to be read or
// rewritten, in memory the budget counts for the request. An answer never
// waits for room: one that does not fit is passed on as it came, unread.
type heldAnswer struct {
	t     *memoryTicket
	limit int64
	buf   []byte
}

// errAnswerTooLarge reports an answer held past its limit.
var errAnswerTooLarge = errors.New("answer exceeds the size llm_thinking holds")

// newHeldAnswer returns an empty answer of at most limit bytes, with room
// for size bytes already taken when size > 0.
func newHeldAnswer(t *memoryTicket, limit, size int64) (*heldAnswer, error) {
	a := &heldAnswer{t: t, limit: limit}
	if size > limit {
		return nil, errAnswerTooLarge
	}
	if size > 0 {
		if err := a.room(int(size)); err != nil {
			return nil, err
		}
	}
	return a, nil
}

// write holds p after what is held, failing with errAnswerTooLarge past the
// limit and errNoRoom when the budget has no room.
func (a *heldAnswer) write(p []byte) error {
	n := len(a.buf) + len(p)
	if int64(n) > a.limit {
		return errAnswerTooLarge
	}
	if err := a.room(n); err != nil {
		return err
	}
	a.buf = append(a.buf, p...)
	return nil
}

// room makes the buffer hold at least n bytes, at least doubling it.
func (a *heldAnswer) room(n int) error {
	if n <= cap(a.buf) {
		return nil
	}
	need := int(min(max(int64(n), 2*int64(cap(a.buf))), a.limit))
	buf, err := a.t.grow(a.buf, need, need, false)
	if err != nil {
		return err
	}
	a.buf = buf
	return nil
}

// readFrom holds everything r produces, within the limit.
func (a *heldAnswer) readFrom(r io.Reader) error {
	for {
		if len(a.buf) == cap(a.buf) {
			if int64(len(a.buf)) >= a.limit {
				var probe [1]byte
				if n, _ := r.Read(probe[:]); n > 0 {
					return errAnswerTooLarge
				}
				return nil
			}
			if err := a.room(len(a.buf) + 1); err != nil {
				return err
			}
		}
		n, err := r.Read(a.buf[len(a.buf):min(int64(cap(a.buf)), a.limit)])
		a.buf = a.buf[:len(a.buf)+n]
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// bytes returns what is held.
func (a *heldAnswer) bytes() []byte { return a.buf }

// release gives the memory back; the answer holds nothing after.
func (a *heldAnswer) release() {
	if a != nil && cap(a.buf) > 0 {
		a.t.put(a.buf)
		a.buf = nil
	}
}

// decoded returns the answer held with its Content-Encoding removed:
// itself, or for gzip a new held answer of at most limit bytes, which the
// caller releases.
func (a *heldAnswer) decoded(contentEncoding string, limit int64) (*heldAnswer, error) {
	zr, err := streaming.Decompressor(a.buf, contentEncoding)
	switch {
	case err != nil:
		return nil, err
	case zr == nil:
		return a, nil
	}
	out := &heldAnswer{t: a.t, limit: limit}
	if err := out.readFrom(zr); err != nil {
		out.release()
		return nil, fmt.Errorf("reading gzip answer: %w", err)
	}
	return out, nil
}
