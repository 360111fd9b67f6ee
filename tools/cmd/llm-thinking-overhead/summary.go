package main

import (
	"slices"
	"time"
)

// results are every round's runs, by gateway.
type results [2][]gatewayRun

// A summary is what the report gives: medians over rounds, through both
// gateways (indexed viaPlain and viaLLMThinking).
type summary struct {
	rounds  int
	window  time.Duration
	loads   loads
	perLoad map[*load]loadSummary
	// streams are the probed streams' times to first byte and lockstep
	// checks (see loads.probed).
	streams map[*load]streamSummary
	peakRSS [2]int64
	// soloPeakRSS is the peak over the loads of one client.
	soloPeakRSS [2]int64
	startRSS    [2]int64 // peak once started, before the loads
	// registryBlocks is the fewest blocks llm_thinking's registry held
	// at a start.
	registryBlocks int
}

// A loadSummary is one load's medians through both gateways.
type loadSummary struct {
	load *load
	cpu  [2]float64 // seconds of Caddy's CPU per request
	user [2]float64 // the part of cpu spent in user space
	rps  [2]float64
}

// cpuRatio is llm_thinking's CPU per request over plain's.
func (s loadSummary) cpuRatio() float64 { return s.cpu[viaLLMThinking] / s.cpu[viaPlain] }

// rpsRatio is llm_thinking's requests per second over plain's.
func (s loadSummary) rpsRatio() float64 { return s.rps[viaLLMThinking] / s.rps[viaPlain] }

// addedPerByte is the CPU llm_thinking adds per byte of request body.
func (s loadSummary) addedPerByte() float64 {
	return (s.cpu[viaLLMThinking] - s.cpu[viaPlain]) / float64(len(s.load.body))
}

// A streamSummary is one probed stream's time to first byte and lockstep
// check through both gateways.
type streamSummary struct {
	// ttfb is the median time to first byte in the stream's load,
	// firstByte the first-byte probe's (see firstbyte.go).
	ttfb, firstByte [2]time.Duration
	lockstep        [2]lockstepResult
}

// addedFirstByte is the time to first byte llm_thinking adds in the probe.
func (s streamSummary) addedFirstByte() time.Duration {
	return s.firstByte[viaLLMThinking] - s.firstByte[viaPlain]
}

// A lockstepResult is how the lockstep check went through one gateway
// over the rounds.
type lockstepResult struct {
	passed, rounds int
	failure        error // the first, if any
}

// add counts one round's check.
func (r *lockstepResult) add(err error) {
	r.rounds++
	if err == nil {
		r.passed++
	} else if r.failure == nil {
		r.failure = err
	}
}

// summarize takes the medians of the rounds' results.
func summarize(ls loads, rs results, window time.Duration) summary {
	s := summary{rounds: len(rs[viaPlain]), window: window, loads: ls, perLoad: make(map[*load]loadSummary), streams: make(map[*load]streamSummary)}
	for i, l := range ls.all() {
		ld := loadSummary{load: l}
		for via, runs := range rs {
			var cpu, user, rps []float64
			for _, r := range runs {
				cpu = append(cpu, r.samples[i].cpuPerRequest)
				user = append(user, r.samples[i].userPerRequest)
				rps = append(rps, r.samples[i].rps)
			}
			ld.cpu[via], ld.user[via], ld.rps[via] = median(cpu), median(user), median(rps)
		}
		s.perLoad[l] = ld
	}
	for j, l := range ls.probed() {
		s.streams[l] = summarizeStream(rs, slices.Index(ls.all(), l), j)
	}
	for via, runs := range rs {
		var rss, solo, start []int64
		for _, r := range runs {
			rss, solo, start = append(rss, r.peakRSS), append(solo, r.soloPeakRSS), append(start, r.startRSS)
		}
		s.peakRSS[via], s.soloPeakRSS[via], s.startRSS[via] = median(rss), median(solo), median(start)
	}
	for _, r := range rs[viaLLMThinking] {
		if s.registryBlocks == 0 || r.registryBlocks < s.registryBlocks {
			s.registryBlocks = r.registryBlocks
		}
	}
	return s
}

// summarizeStream takes the medians of a probed stream: sample is its
// index in loads.all, probe in loads.probed.
func summarizeStream(rs results, sample, probe int) streamSummary {
	var ss streamSummary
	for via, runs := range rs {
		var ttfb, first []time.Duration
		for _, r := range runs {
			ttfb = append(ttfb, r.samples[sample].ttfb)
			first = append(first, r.probes[probe].firstByte)
			ss.lockstep[via].add(r.probes[probe].lockstep)
		}
		ss.ttfb[via], ss.firstByte[via] = median(ttfb), median(first)
	}
	return ss
}
