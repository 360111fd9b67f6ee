package main

import (
	"fmt"
	"io"
	"time"
)

// The targets llm_thinking's overhead must meet.
const (
	// Nothing to change: CPU per request and requests per second against
	// plain reverse_proxy.
	maxUnchangedCPURatio = 1.15
	minUnchangedRPSRatio = 0.9
	// The CPU added per byte at 1 MiB against the CPU added per byte at
	// 256 KiB: the cost must grow linearly with the body.
	maxAddedPerByteGrowth = 1.25
	// After a switch: CPU per request against plain reverse_proxy.
	maxSwitchedCPURatio = 1.3
	// The stream: CPU per request against plain reverse_proxy, and the
	// time to first byte added.
	maxStreamCPURatio = 1.05
	maxAddedTTFB      = 200 * time.Microsecond
	// A stream of another API translated by its transport (behind
	// llm_thinking) against plain reverse_proxy relaying it untranslated:
	// CPU per request; the time to first byte added is maxAddedTTFB.
	maxTranslatedCPURatio = 1.5
	// Peak memory added with a registry of fillerBlocks blocks or more.
	maxAddedRSS = 30 << 20
	// Clients without a session, at 256 KiB and 1 MiB: CPU per request.
	maxAnonymous256CPURatio = 1.15
	maxAnonymous1MCPURatio  = 1.25
	// A team's 64 sessions of 1 MiB: CPU per request.
	maxSessionsCPURatio = 1.25
)

// A target is one bound the overhead must stay within, and whether it did.
type target struct {
	what string // what is bounded, as measured, and the bound
	met  bool
}

// targets returns every target with what was measured, in the order of
// the report.
func targets(s summary) []target {
	ls := s.loads
	var ts []target
	for _, l := range []*load{ls.unchanged256, ls.unchanged1M} {
		ld := s.perLoad[l]
		ts = append(ts,
			atMost(l.name+": CPU ratio", ld.cpuRatio(), maxUnchangedCPURatio),
			atLeast(l.name+": rps ratio", ld.rpsRatio(), minUnchangedRPSRatio))
	}
	small, large := s.perLoad[ls.unchanged256].addedPerByte(), s.perLoad[ls.unchanged1M].addedPerByte()
	ts = append(ts, target{
		what: fmt.Sprintf("cost linear in body size: added CPU %.1f ns/KiB at 1 MiB <= %.2f x %.1f ns/KiB at 256 KiB",
			large*1e9*1024, maxAddedPerByteGrowth, small*1e9*1024),
		met: large <= maxAddedPerByteGrowth*small,
	})
	for _, l := range []*load{ls.switched256, ls.switched1M} {
		ts = append(ts, atMost(l.name+": CPU ratio", s.perLoad[l].cpuRatio(), maxSwitchedCPURatio))
	}
	stream := s.streams[ls.stream]
	ts = append(ts,
		atMost(ls.stream.name+": CPU ratio", s.perLoad[ls.stream].cpuRatio(), maxStreamCPURatio),
		firstByteTarget(ls.stream, stream),
		lockstepTarget(ls.stream.name+": every event in its own flush through llm_thinking", stream))
	for _, l := range ls.translated {
		ts = append(ts,
			atMost(l.name+": CPU ratio, translated against relayed", s.perLoad[l].cpuRatio(), maxTranslatedCPURatio),
			firstByteTarget(l, s.streams[l]),
			lockstepTarget(fmt.Sprintf("%s: one flush per upstream chunk through %s", l.name, l.translation.api.transportName()), s.streams[l]))
	}
	addedRSS := s.soloPeakRSS[viaLLMThinking] - s.soloPeakRSS[viaPlain]
	ts = append(ts,
		target{
			what: fmt.Sprintf("peak RSS difference over the loads of one client %+.1f MiB <= %.0f MiB with %d blocks in the registry (>= %d)",
				mebibytes(addedRSS), mebibytes(maxAddedRSS), s.registryBlocks, fillerBlocks),
			met: addedRSS <= maxAddedRSS && s.registryBlocks >= fillerBlocks,
		},
		atMost(ls.anonymous256.name+": CPU ratio", s.perLoad[ls.anonymous256].cpuRatio(), maxAnonymous256CPURatio),
		atMost(ls.anonymous1M.name+": CPU ratio", s.perLoad[ls.anonymous1M].cpuRatio(), maxAnonymous1MCPURatio),
		atMost(ls.sessions64.name+": CPU ratio", s.perLoad[ls.sessions64].cpuRatio(), maxSessionsCPURatio),
		atMost(ls.textStream.name+": CPU ratio", s.perLoad[ls.textStream].cpuRatio(), maxStreamCPURatio))
	return ts
}

// firstByteTarget returns the target on the time to first byte
// llm_thinking adds to the first event of the stream l alone.
func firstByteTarget(l *load, ss streamSummary) target {
	added := ss.addedFirstByte()
	return target{
		what: fmt.Sprintf("%s: time to first byte p50 difference, the first event alone, %+.3f ms <= %.3f ms", l.name, millis(added), millis(maxAddedTTFB)),
		met:  added <= maxAddedTTFB,
	}
}

// lockstepTarget returns the target that the lockstep check of a stream
// passed through llm_thinking in every round.
func lockstepTarget(what string, ss streamSummary) target {
	r := ss.lockstep[viaLLMThinking]
	return target{what: fmt.Sprintf("%s: %s", what, r), met: r.passed == r.rounds}
}

// atMost returns the target value <= bound.
func atMost(what string, value, bound float64) target {
	return target{what: fmt.Sprintf("%s %.3f <= %.2f", what, value, bound), met: value <= bound}
}

// atLeast returns the target value >= bound.
func atLeast(what string, value, bound float64) target {
	return target{what: fmt.Sprintf("%s %.3f >= %.2f", what, value, bound), met: value >= bound}
}

// printTargets prints each target, PASS or FAIL.
func printTargets(w io.Writer, ts []target) {
	fmt.Fprintln(w, "targets")
	for _, t := range ts {
		verdict := "FAIL"
		if t.met {
			verdict = "PASS"
		}
		fmt.Fprintf(w, "  %s  %s\n", verdict, t.what)
	}
}

// allMet reports whether every target is met.
func allMet(ts []target) bool {
	for _, t := range ts {
		if !t.met {
			return false
		}
	}
	return true
}
