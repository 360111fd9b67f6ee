// Command llm-thinking-overhead measures what llm_thinking costs end to end
// in a built Caddy: the same binary runs plain reverse_proxy and
// llm_thinking before reverse_proxy, against one upstream in this process,
// and the CPU time of the Caddy process (from /proc, so Linux only) is
// divided by the requests it served.
//
// Twelve loads are measured through both gateways: Claude Code sessions
// of 256 KiB and 1 MiB with nothing to change, the same sizes after a
// switch (10 thinking blocks produced by another backend, which
// llm_thinking must remove), a stream of 2000 SSE events, two streams of
// other APIs that llm_thinking's gateway translates (see translation.go)
// and plain reverse_proxy relays as they are: a chat-completions stream
// through transport openai and a Gemini stream through transport gemini,
// and the loads of other clients and of a team: sessions that name no
// session (256 KiB from 4 clients, 1 MiB from 2, blocks the gateway never
// saw), 4 clients cycling over 8 and over 64 sessions of 1 MiB, and 4
// clients whose 64 KiB requests are answered with 2000 text deltas. The
// registry starts with over 100,000 blocks. The upstream checks every body
// it receives (a translated load's, against the transport's translation)
// and the client every answer; any difference ends the run. For each
// stream, the SSE one and each translated one, a probe times the first
// event alone, and a lockstep check makes sure every upstream event is
// forwarded in its own flush.
//
// Every round starts a fresh Caddy per gateway; within a round the gateways
// take turns at each load, a slice of the window at a time. The report
// gives medians over rounds, ratios, and whether each target is met:
//
//	go -C tools run ./buildcaddy -o ../caddy
//	go -C tools run ./cmd/llm-thinking-overhead -caddy ../caddy -rounds 3 -window 3s -check
//
// Run it in the tools folder (go -C tools), beside the repository's
// testdata, which holds the captured session.
//
// With -flood all it measures memory under floods instead (see flood.go),
// through each gateway on its defaults, to a slow upstream: 24 clients
// uploading 27 MiB each at once, through llm_thinking and through
// llm_thinking with transport openai; 8 clients sending a million tiny
// thinking blocks each (19 MB); 8 sending a million empty text blocks (26
// MB) through transport openai, to /v1/messages and to count_tokens. The
// peak RSS of both gateways is reported side by side, with the target
// that llm_thinking's stays within plain's, its memory budget and 30 MiB,
// and a normal request sent every 0.5 s meanwhile is timed, with the
// target that none takes over 2 s. -flood takes a list of those floods'
// names too. All of them take about a quarter of an hour.
package main

import (
	"flag"
	"fmt"
	"log"
	"os"
	"time"
)

func main() {
	caddy := flag.String("caddy", "../caddy", "the Caddy binary built with llm_thinking")
	rounds := flag.Int("rounds", 3, "rounds; each starts a fresh Caddy per gateway")
	window := flag.Duration("window", 3*time.Second, "how long each load is measured per gateway and round")
	profiles := flag.String("profile", "", "write a CPU profile of each gateway and load, taken in the first round, to this directory; with -flood, a heap profile of llm_thinking at about its peak in each flood")
	check := flag.Bool("check", false, "exit with status 1 when a target is missed")
	flood := flag.String("flood", "", "measure the peak memory of floods to a slow upstream instead, and a normal request's latency meanwhile: all, or a comma-separated list of large, tiny-thinking, tiny-text-transport, count-tokens-transport, large-transport")
	memoryBudget := flag.String("memory-budget", "", "with -flood, the llm_thinking global option memory_budget (256MiB); unset, the default, which follows GOMEMLIMIT down")
	flag.Parse()
	log.SetFlags(0)
	log.SetPrefix("llm-thinking-overhead: ")
	if *flood == "" && (*rounds < 1 || *window <= 0) {
		log.Fatalf("need at least one round and a positive window, got -rounds %d -window %v", *rounds, *window)
	}
	if *profiles != "" {
		if err := os.MkdirAll(*profiles, 0o755); err != nil {
			log.Fatal(err)
		}
	}
	var ts []target
	if *flood != "" {
		results, err := runFloods(*caddy, *flood, *profiles, *memoryBudget)
		if err != nil {
			log.Fatal(err)
		}
		for _, r := range results {
			reportFlood(os.Stdout, r)
			ts = append(ts, floodTargets(r)...)
		}
	} else {
		s, err := run(*caddy, *rounds, *window, *profiles)
		if err != nil {
			log.Fatal(err)
		}
		report(os.Stdout, s)
		ts = targets(s)
		fmt.Println()
	}
	printTargets(os.Stdout, ts)
	if *check && !allMet(ts) {
		os.Exit(1)
	}
}

// run prepares the loads and the upstream, measures every round, and
// returns the medians.
func run(caddy string, rounds int, window time.Duration, profiles string) (summary, error) {
	ls, err := buildLoads()
	if err != nil {
		return summary{}, err
	}
	origins, err := registryOrigins(ls.all())
	if err != nil {
		return summary{}, err
	}
	pacer := newPacer()
	up, err := startUpstream(routes(ls, pacer))
	if err != nil {
		return summary{}, err
	}
	defer up.close()
	root, err := os.MkdirTemp("", "llm-thinking-overhead-")
	if err != nil {
		return summary{}, fmt.Errorf("create a directory for Caddy's files: %w", err)
	}
	defer os.RemoveAll(root)

	b := &bench{caddy: caddy, window: window, root: root, loads: ls, origins: origins, upstream: up.addr, pacer: pacer, profiles: profiles}
	var rs results
	for round := range rounds {
		r, err := b.runRound(round)
		if err != nil {
			return summary{}, fmt.Errorf("round %d: %w", round+1, err)
		}
		for via := range gateways {
			rs[via] = append(rs[via], r[via])
		}
	}
	return summarize(ls, rs, window), nil
}

// order returns the gateways in the order of a turn: plain first in even
// turns, llm_thinking first in odd ones, so that a drift of the machine
// over time weighs on both alike.
func order(turn int) [2]int {
	if turn%2 == 1 {
		return [2]int{viaLLMThinking, viaPlain}
	}
	return [2]int{viaPlain, viaLLMThinking}
}
