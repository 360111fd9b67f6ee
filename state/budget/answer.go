package budget

import (
	"errors"
	"io"
)

// Answer is an answer, or the start of one, held to be read or
// rewritten, in memory the budget counts for the request. An answer the
// handler observes never waits for room: one that does not fit is passed
// on as it came, unread. One a transport must translate waits (see
// WaitingAnswer).
type Answer struct {
	t     *Ticket
	limit int64
	buf   []byte
	wait  bool
}

// ErrAnswerTooLarge reports an answer held past its limit.
var ErrAnswerTooLarge = errors.New("answer exceeds the size llm_thinking holds")

// NewAnswer returns an empty answer of at most limit bytes, with room
// for size bytes already taken when size > 0.
func NewAnswer(t *Ticket, limit, size int64) (*Answer, error) {
	return newAnswer(t, limit, size, false)
}

// WaitingAnswer is NewAnswer for an answer that must be held to go on at
// all: without room, it waits for some as a request body does.
func WaitingAnswer(t *Ticket, limit, size int64) (*Answer, error) {
	return newAnswer(t, limit, size, true)
}

func newAnswer(t *Ticket, limit, size int64, wait bool) (*Answer, error) {
	a := &Answer{t: t, limit: limit, wait: wait}
	if size > limit {
		return nil, ErrAnswerTooLarge
	}
	if size > 0 {
		if err := a.room(int(size)); err != nil {
			return nil, err
		}
	}
	return a, nil
}

// Append holds p after what is held, failing with ErrAnswerTooLarge past the
// limit and ErrNoRoom when the budget has no room.
func (a *Answer) Append(p []byte) error {
	n := len(a.buf) + len(p)
	if int64(n) > a.limit {
		return ErrAnswerTooLarge
	}
	if err := a.room(n); err != nil {
		return err
	}
	a.buf = append(a.buf, p...)
	return nil
}

// room makes the buffer hold at least n bytes, at least doubling it.
func (a *Answer) room(n int) error {
	if n <= cap(a.buf) {
		return nil
	}
	need := int(min(max(int64(n), 2*int64(cap(a.buf))), a.limit))
	buf, err := a.t.Grow(a.buf, need, need, a.wait)
	if err != nil {
		return err
	}
	a.buf = buf
	return nil
}

// Fill holds everything r produces, within the limit.
func (a *Answer) Fill(r io.Reader) error {
	for {
		if len(a.buf) == cap(a.buf) {
			if int64(len(a.buf)) >= a.limit {
				var probe [1]byte
				if n, _ := r.Read(probe[:]); n > 0 {
					return ErrAnswerTooLarge
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

// Ticket returns the account the answer is held for.
func (a *Answer) Ticket() *Ticket { return a.t }

// Bytes returns what is held.
func (a *Answer) Bytes() []byte { return a.buf }

// Release gives the memory back; the answer holds nothing after.
func (a *Answer) Release() {
	if a != nil && cap(a.buf) > 0 {
		a.t.Put(a.buf)
		a.buf = nil
	}
}
