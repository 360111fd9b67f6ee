package main

import (
	"cmp"
	"errors"
	"slices"
	"sync"
	"time"
)

// warmupRequests is how many requests of a load a gateway serves before
// the load is measured.
const warmupRequests = 200

// turns is how many turns each gateway takes at a load within a round:
// the window is cut into that many slices, and the gateways alternate
// slice by slice, so that whatever else the machine does weighs on both
// alike.
const turns = 6

// A sample is what one load through one gateway measured in a round.
type sample struct {
	cpuPerRequest float64 // seconds of Caddy's CPU
	// userPerRequest is the part of cpuPerRequest spent in user space.
	userPerRequest float64
	rps            float64 // requests per second of wall time
	ttfb           time.Duration
}

// A tally adds up the turns of one load through one gateway.
type tally struct {
	cpu   cpuTime
	wall  time.Duration
	ttfbs []time.Duration
}

// sample returns what the tally adds up to; ttfb is the median time to
// first byte.
func (t *tally) sample() sample {
	n := float64(len(t.ttfbs))
	return sample{cpuPerRequest: t.cpu.total() / n, userPerRequest: t.cpu.user / n, rps: n / t.wall.Seconds(), ttfb: median(t.ttfbs)}
}

// warm sends the load warmupRequests times through c.
func warm(c *client, l *load) error {
	for range warmupRequests {
		if _, err := c.send(l); err != nil {
			return err
		}
	}
	return nil
}

// turn sends the load again and again through every client of cs at once,
// one request at a time each, for d, and adds what that cost the Caddy
// process pid to t.
func (t *tally) turn(cs []*client, pid int, l *load, d time.Duration) error {
	before, err := cpuSeconds(pid)
	if err != nil {
		return err
	}
	start := time.Now()
	ttfbs := make([][]time.Duration, len(cs))
	errs := make([]error, len(cs))
	var wg sync.WaitGroup
	for i, c := range cs {
		wg.Go(func() {
			for time.Since(start) < d {
				ttfb, err := c.send(l)
				if err != nil {
					errs[i] = err
					return
				}
				ttfbs[i] = append(ttfbs[i], ttfb)
			}
		})
	}
	wg.Wait()
	t.wall += time.Since(start)
	if err := errors.Join(errs...); err != nil {
		return err
	}
	after, err := cpuSeconds(pid)
	if err != nil {
		return err
	}
	t.cpu = t.cpu.add(after.sub(before))
	for _, ts := range ttfbs {
		t.ttfbs = append(t.ttfbs, ts...)
	}
	return nil
}

// median returns the middle value of v, the upper one of an even count.
func median[T cmp.Ordered](v []T) T {
	s := slices.Clone(v)
	slices.Sort(s)
	return s[len(s)/2]
}
