package llmtest

import (
	"context"
	"sync"
	"time"
)

// holdTimeout bounds a hold, so a test against a buffering gateway fails
// instead of hanging.
const holdTimeout = 10 * time.Second

// hold pauses one streamed response after its message_start event, or
// after its last content block when afterBlocks is set.
type hold struct {
	released    chan struct{}
	once        sync.Once
	timeout     time.Duration
	afterBlocks bool
}

func (h *hold) release() { h.once.Do(func() { close(h.released) }) }

// wait blocks until the hold is released, the request or the Upstream ends,
// or the safety timeout passes; it reports whether the timeout ended it.
func (h *hold) wait(ctx context.Context, closed <-chan struct{}) (timedOut bool) {
	t := time.NewTimer(h.timeout)
	defer t.Stop()
	select {
	case <-h.released:
	case <-ctx.Done():
	case <-closed:
	case <-t.C:
		return true
	}
	return false
}

// HoldStream makes the next streamed response pause right after it has
// written and flushed its message_start event, until release is called or a
// 10 s safety timeout passes (recorded as Received.HoldTimedOut). A client
// that reads message_start before calling release proves that nothing in
// between buffers the stream. Calling HoldStream again before a stream took
// the hold replaces it. release may be called any number of times.
func (u *Upstream) HoldStream() (release func()) {
	return u.setHold(false)
}

// HoldStreamAfterBlocks is HoldStream with the pause after the last
// content_block_stop, before message_delta and message_stop: every block is
// finished but the message is not. A test that disconnects there proves
// that an unfinished message registers nothing.
func (u *Upstream) HoldStreamAfterBlocks() (release func()) {
	return u.setHold(true)
}

func (u *Upstream) setHold(afterBlocks bool) (release func()) {
	u.mu.Lock()
	h := &hold{released: make(chan struct{}), timeout: u.holdTimeout, afterBlocks: afterBlocks}
	if u.hold != nil {
		u.hold.release()
	}
	u.hold = h
	u.mu.Unlock()
	return h.release
}
