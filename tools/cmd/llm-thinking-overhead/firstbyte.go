package main

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"io"
	"time"
)

// The time to first byte a gateway adds is measured apart from the loads.
// In a load, the upstream sends its 2000 events at once, and on this
// project's 2 cores the first byte then waits for the cores the rest of the
// stream keeps busy (the upstream writing it, the gateway relaying it, the
// client reading it): its median swings by more than the target between
// runs of one configuration. A model's first token comes alone, prefill
// takes time before it and decoding after it. So the probe's upstream
// holds the rest of its stream until the client has read the first event
// whole (the pacer, for that event only), and the time to first byte is
// the time from sending the request to the first byte of that event. The
// load's median is still reported.

// firstByteProbes is how many requests each gateway serves per stream and
// round for the probe, the gateways taking turns request by request.
const firstByteProbes = 100

// firstBytePath is the probe's route for the stream l, through either
// gateway. A translated load's slug in it makes llm_thinking's gateway
// route it through the load's transport.
func firstBytePath(l *load) string { return "/first-" + l.slug + "/v1/messages" }

// firstByte sends the streaming request on a probe's route, waits for the
// first event of the answer want, tells the pacer it was read, reads and
// checks the rest, and returns the time from sending to the first byte.
func (c *client) firstByte(p *pacer, path string, want *reply) (time.Duration, error) {
	start := time.Now()
	resp, err := c.post(path, lockstepSession, streamRequest)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	first := want.events[0]
	got := make([]byte, len(first))
	n, err := resp.Body.Read(got)
	ttfb := time.Since(start)
	if err == nil && n < len(got) {
		_, err = io.ReadFull(resp.Body, got[n:])
	}
	if err != nil {
		return 0, fmt.Errorf("%s: read the first event: %w", path, err)
	}
	if !bytes.Equal(got, first) {
		return 0, fmt.Errorf("%s: the first event arrived changed: %q", path, got)
	}
	if err := p.markRead(0); err != nil {
		return 0, err
	}
	h := sha256.New()
	h.Write(got)
	rest, err := io.Copy(h, resp.Body)
	if err != nil {
		return 0, fmt.Errorf("%s: read the rest of the stream: %w", path, err)
	}
	if int(rest)+len(got) != len(want.body) || !bytes.Equal(h.Sum(nil), want.sum[:]) {
		return 0, fmt.Errorf("%s: the answer arrived incomplete or changed: %d bytes, want %d", path, int(rest)+len(got), len(want.body))
	}
	return ttfb, nil
}

// probeFirstByte runs the probe on every probed stream through both
// gateways, taking turns, and records each gateway's medians in runs, in
// the order of loads.probed.
func (b *bench) probeFirstByte(round int, clients [2][]*client, runs *[2]gatewayRun) error {
	probed := b.loads.probed()
	var times [2][][]time.Duration // by gateway and stream
	for via := range gateways {
		times[via] = make([][]time.Duration, len(probed))
		runs[via].probes = make([]probeRun, len(probed))
	}
	for i := range firstByteProbes {
		for _, via := range order(round + i) {
			c := clients[via][0]
			for j, l := range probed {
				d, err := c.firstByte(b.pacer, firstBytePath(l), l.answer(gateways[via]))
				if err != nil {
					return fmt.Errorf("%s: %w", gateways[via].name, err)
				}
				times[via][j] = append(times[via][j], d)
			}
		}
	}
	for via := range gateways {
		for j := range probed {
			runs[via].probes[j].firstByte = median(times[via][j])
		}
	}
	return nil
}
