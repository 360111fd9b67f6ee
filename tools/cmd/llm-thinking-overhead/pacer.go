package main

import (
	"fmt"
	"time"
)

// eventTimeout bounds how long either side of the lockstep check waits for
// the other.
const eventTimeout = 5 * time.Second

// A pacer holds the upstream's stream back until the client has read each
// event whole: the upstream writes event i+1 only once the client said it
// read event i. Through a gateway that held an event back, both sides would
// wait for each other; each wait is bounded by eventTimeout, and running
// out is a failure.
type pacer struct {
	read chan int // the index of the event the client just read
}

// newPacer returns a pacer. Its channel is unbuffered, so no word of one
// check is left over for the next.
func newPacer() *pacer { return &pacer{read: make(chan int)} }

// awaitRead waits, on the upstream's side, until the client read event i.
func (p *pacer) awaitRead(i int) error {
	t := time.NewTimer(eventTimeout)
	defer t.Stop()
	select {
	case n := <-p.read:
		if n != i {
			return fmt.Errorf("the client read event %d while the upstream waited for event %d", n, i)
		}
		return nil
	case <-t.C:
		return fmt.Errorf("event %d did not reach the client within %v of its flush", i, eventTimeout)
	}
}

// markRead tells the upstream, on the client's side, that the client read
// event i whole.
func (p *pacer) markRead(i int) error {
	t := time.NewTimer(eventTimeout)
	defer t.Stop()
	select {
	case p.read <- i:
		return nil
	case <-t.C:
		return fmt.Errorf("event %d arrived after the upstream stopped waiting for it: it was held back over %v", i, eventTimeout)
	}
}
