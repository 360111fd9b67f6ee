package main

import (
	"context"
	"fmt"
	"os"
	"time"
)

// seedTimeout bounds writing the registry to storage before a start.
const seedTimeout = time.Minute

// maxClients is the most clients a load has (see load.clients).
const maxClients = 4

// A bench holds what every round uses.
type bench struct {
	caddy    string // the Caddy binary
	window   time.Duration
	root     string // where each Caddy gets a directory of its own
	loads    loads
	origins  []origin // what the registry starts with
	upstream string   // host:port
	pacer    *pacer
	// profiles is where the first round writes a CPU profile of each
	// gateway per load; empty for none.
	profiles string
}

// A gatewayRun is what one Caddy process measured.
type gatewayRun struct {
	samples []sample // by load, in the order of loads.all
	// probes are the probed streams' checks, in the order of
	// loads.probed.
	probes  []probeRun
	peakRSS int64 // bytes
	// soloPeakRSS is the peak once the loads of one client ran, before
	// those of several: what the peak RSS target is about.
	soloPeakRSS int64
	// startRSS is the peak resident memory once Caddy served, before the
	// loads: what starting (and loading the registry) cost.
	startRSS int64
	// registryBlocks is how many blocks the registry held once Caddy
	// served; 0 for a gateway without one.
	registryBlocks int
}

// A probeRun is what one Caddy process measured of one probed stream
// apart from its load.
type probeRun struct {
	// firstByte is the first-byte probe's median (see firstbyte.go).
	firstByte time.Duration
	lockstep  error // why the lockstep check failed, nil when it passed
}

// runRound starts a fresh Caddy per gateway, each on storage seeded
// alike (though only llm_thinking reads it, so that both run in the same
// environment), measures every load through both, the gateways taking
// turns, runs the lockstep check through each, and stops them. round
// decides which gateway goes first.
func (b *bench) runRound(round int) ([2]gatewayRun, error) {
	var runs [2]gatewayRun
	var procs [2]*caddyProcess
	var clients [2][]*client // a load's clients are the first of these
	for via, g := range gateways {
		p, dir, err := b.start(g)
		if dir != "" {
			defer os.RemoveAll(dir)
		}
		if err != nil {
			return runs, fmt.Errorf("%s: %w", g.name, err)
		}
		defer p.stop()
		if runs[via].startRSS, err = peakRSS(p.pid()); err != nil {
			return runs, err
		}
		if g.rewrites() {
			if runs[via].registryBlocks, err = b.checkRegistry(p); err != nil {
				return runs, fmt.Errorf("%s: %w", g.name, err)
			}
		}
		for range maxClients {
			c := newClient("http://"+p.siteAddr, g)
			defer c.close()
			clients[via] = append(clients[via], c)
		}
		procs[via] = p
	}
	solo := true // only loads of one client ran so far
	for _, l := range b.loads.all() {
		if solo = solo && l.concurrency() == 1; !solo && runs[viaPlain].soloPeakRSS == 0 {
			for via := range gateways {
				var err error
				if runs[via].soloPeakRSS, err = peakRSS(procs[via].pid()); err != nil {
					return runs, err
				}
			}
		}
		for via := range gateways {
			if err := warm(clients[via][0], l); err != nil {
				return runs, fmt.Errorf("%s, load %q: %w", gateways[via].name, l.name, err)
			}
		}
		var profs [2]*profiling
		if b.profiles != "" && round == 0 {
			for via, g := range gateways {
				profs[via] = procs[via].startProfile(2*b.window, profilePath(b.profiles, g, l))
			}
		}
		var t [2]tally
		for k := range turns {
			for _, via := range order(round + k) {
				if err := t[via].turn(clients[via][:l.concurrency()], procs[via].pid(), l, b.window/turns); err != nil {
					return runs, fmt.Errorf("%s, load %q: %w", gateways[via].name, l.name, err)
				}
			}
		}
		for via := range gateways {
			runs[via].samples = append(runs[via].samples, t[via].sample())
			if profs[via] != nil {
				if err := profs[via].wait(); err != nil {
					return runs, fmt.Errorf("%s, load %q: %w", gateways[via].name, l.name, err)
				}
			}
		}
	}
	if err := b.probeFirstByte(round, clients, &runs); err != nil {
		return runs, err
	}
	for via := range gateways {
		var err error
		for j, l := range b.loads.probed() {
			runs[via].probes[j].lockstep = clients[via][0].lockstep(b.pacer, lockstepPath(l), l.answer(gateways[via]))
		}
		if runs[via].peakRSS, err = peakRSS(procs[via].pid()); err != nil {
			return runs, err
		}
		if runs[via].soloPeakRSS == 0 {
			runs[via].soloPeakRSS = runs[via].peakRSS
		}
		if b.profiles != "" && round == 0 {
			if err := procs[via].heapProfile(heapProfilePath(b.profiles, gateways[via])); err != nil {
				return runs, fmt.Errorf("%s: %w", gateways[via].name, err)
			}
		}
	}
	return runs, nil
}

// start starts a Caddy for the gateway g in a directory of its own, on
// freshly seeded storage, and returns the directory, to be removed once
// Caddy stops.
func (b *bench) start(g gateway) (*caddyProcess, string, error) {
	dir, err := os.MkdirTemp(b.root, g.slug+"-")
	if err != nil {
		return nil, "", fmt.Errorf("create a directory for Caddy: %w", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), seedTimeout)
	defer cancel()
	if err := seedStorage(ctx, dir, b.origins); err != nil {
		return nil, dir, err
	}
	p, err := startCaddy(b.caddy, g, dir, b.upstream)
	return p, dir, err
}

// checkRegistry returns how many blocks Caddy's registry holds, or an
// error when it did not load every block seeded for it: fewer would
// measure memory, or the loads, on a registry that is not the one meant.
func (b *bench) checkRegistry(p *caddyProcess) (int, error) {
	blocks, err := p.registryBlocks()
	if err != nil {
		return 0, fmt.Errorf("ask Caddy for its registry: %w", err)
	}
	n, ok := blocks[registryName]
	switch {
	case !ok:
		return 0, fmt.Errorf("caddy runs no registry %q", registryName)
	case n < len(b.origins):
		return 0, fmt.Errorf("registry %q holds %d blocks, want the %d seeded (%d of them for the memory target)", registryName, n, len(b.origins), fillerBlocks)
	}
	return n, nil
}
