package main

import (
	"fmt"
	"io"
	"text/tabwriter"
	"time"
)

// report prints what was measured: a line per load, then a block per
// probed stream (the SSE stream, each translated one) with its time to
// first byte and its lockstep check, and the peak memory.
func report(w io.Writer, s summary) {
	fmt.Fprintf(w, "Caddy CPU per request and requests per second, medians of %d round(s) of %v per load and gateway, in turns of %d\n\n", s.rounds, s.window, turns)
	tw := tabwriter.NewWriter(w, 0, 0, 3, ' ', 0)
	fmt.Fprintln(tw, "load\tplain CPU/request (user)\tllm_thinking CPU/request (user)\tCPU ratio\trps ratio")
	for _, l := range s.loads.all() {
		ld := s.perLoad[l]
		fmt.Fprintf(tw, "%s\t%.1f µs (%.1f)\t%.1f µs (%.1f)\t%.3f\t%.3f\n", l.name,
			ld.cpu[viaPlain]*1e6, ld.user[viaPlain]*1e6, ld.cpu[viaLLMThinking]*1e6, ld.user[viaLLMThinking]*1e6, ld.cpuRatio(), ld.rpsRatio())
	}
	tw.Flush()
	fmt.Fprintln(w)
	reportStream(w, s.loads.stream.name, "every event in its own flush", s.streams[s.loads.stream])
	for _, l := range s.loads.translated {
		reportStream(w, fmt.Sprintf("%s (plain relays it, llm_thinking translates it with %s)", l.name, l.translation.api.transportName()),
			"one flush per upstream chunk", s.streams[l])
	}
	fmt.Fprintf(w, "peak RSS over the loads of one client: plain %.1f MiB, llm_thinking %.1f MiB, difference %+.1f MiB, registry of %d blocks\n",
		mebibytes(s.soloPeakRSS[viaPlain]), mebibytes(s.soloPeakRSS[viaLLMThinking]), mebibytes(s.soloPeakRSS[viaLLMThinking]-s.soloPeakRSS[viaPlain]), s.registryBlocks)
	fmt.Fprintf(w, "  over every load (several clients holding 1 MiB bodies at once, the budget's buffers kept for reuse): plain %.1f MiB, llm_thinking %.1f MiB, difference %+.1f MiB\n",
		mebibytes(s.peakRSS[viaPlain]), mebibytes(s.peakRSS[viaLLMThinking]), mebibytes(s.peakRSS[viaLLMThinking]-s.peakRSS[viaPlain]))
	fmt.Fprintf(w, "  of which once started, before the loads: plain %.1f MiB, llm_thinking %.1f MiB\n",
		mebibytes(s.startRSS[viaPlain]), mebibytes(s.startRSS[viaLLMThinking]))
}

// reportStream prints a probed stream's block: its time to first byte in
// the probe and in its load, and its lockstep check, named lockstep.
func reportStream(w io.Writer, name, lockstep string, ss streamSummary) {
	fmt.Fprintf(w, "%s\n", name)
	fmt.Fprintf(w, "  time to first byte p50, the first event alone (probe): %s\n", ttfbLine(ss.firstByte))
	fmt.Fprintf(w, "  time to first byte p50, the whole stream sent at once (load): %s\n", ttfbLine(ss.ttfb))
	fmt.Fprintf(w, "  %s: plain %s; llm_thinking %s\n", lockstep, ss.lockstep[viaPlain], ss.lockstep[viaLLMThinking])
}

// String tells whether every event arrived one by one, in how many rounds.
func (r lockstepResult) String() string {
	if r.failure == nil {
		return fmt.Sprintf("yes, in %d of %d round(s)", r.passed, r.rounds)
	}
	return fmt.Sprintf("NO, in %d of %d round(s) (%v)", r.rounds-r.passed, r.rounds, r.failure)
}

// ttfbLine gives both gateways' times to first byte and the difference.
func ttfbLine(d [2]time.Duration) string {
	return fmt.Sprintf("plain %.3f ms, llm_thinking %.3f ms, difference %+.3f ms", millis(d[viaPlain]), millis(d[viaLLMThinking]), millis(d[viaLLMThinking]-d[viaPlain]))
}

// millis returns d in milliseconds.
func millis(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// mebibytes returns n bytes in MiB.
func mebibytes(n int64) float64 { return float64(n) / (1 << 20) }
