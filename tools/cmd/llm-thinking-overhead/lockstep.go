package main

import (
	"bytes"
	"fmt"
	"io"
)

// lockstepSession is the session id of the lockstep check's request.
const lockstepSession = "bench-lockstep"

// lockstepPath is the route of the lockstep check of the stream l, through
// either gateway. A translated load's slug in it makes llm_thinking's
// gateway route it through the load's transport.
func lockstepPath(l *load) string { return "/lockstep-" + l.slug + "/v1/messages" }

// lockstep sends the streaming request on the paced route and reads the
// answer event by event, telling the pacer after each one: the upstream
// writes an event only once the client read the one before, so the check
// passes only when the gateway forwards every event in its own flush.
func (c *client) lockstep(p *pacer, path string, want *reply) error {
	resp, err := c.post(path, lockstepSession, streamRequest)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	for i, event := range want.events {
		got := make([]byte, len(event))
		if _, err := io.ReadFull(resp.Body, got); err != nil {
			return fmt.Errorf("read event %d of %d: %w", i, len(want.events), err)
		}
		if !bytes.Equal(got, event) {
			return fmt.Errorf("event %d arrived changed: %q", i, got)
		}
		if err := p.markRead(i); err != nil {
			return err
		}
	}
	extra, err := io.Copy(io.Discard, resp.Body)
	switch {
	case err != nil:
		return fmt.Errorf("read the end of the stream: %w", err)
	case extra > 0:
		return fmt.Errorf("%d bytes arrived after the last event", extra)
	}
	return nil
}
