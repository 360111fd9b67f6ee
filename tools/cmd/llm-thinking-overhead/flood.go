package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"
	"text/tabwriter"
	"time"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/tools/llmtest"
)

// The floods: clients send hostile or merely large requests at once, to
// an upstream that reads 64 KiB every 50 ms, through each gateway on its
// full defaults; each scenario its own fresh Caddy per gateway. Plain
// reverse_proxy streams every body through a small buffer; llm_thinking
// must hold each whole, within its memory budget, and answers 529 to what
// does not fit, which the clients send again after Retry-After, as the
// SDKs do, until every request got its answer (a 413 is an answer). While
// a flood runs, a probe sends a normal one-message request every
// probeEvery and times it.
const (
	floodChunk    = 64 << 10
	floodInterval = 50 * time.Millisecond
	// floodDeadline bounds a whole flood through one gateway.
	floodDeadline = 15 * time.Minute
	// maxFloodAddedRSS is what llm_thinking's peak memory may add to plain
	// reverse_proxy's on top of its memory budget, before garbage.
	maxFloodAddedRSS = 30 << 20
	probeEvery       = 500 * time.Millisecond
	// maxProbe is the longest a normal request may take during a flood.
	maxProbe = 2 * time.Second
)

// A floodScenario is one flood: who sends what, where, and what answers
// it allows.
type floodScenario struct {
	name    string
	clients int
	body    func() []byte
	path    string
	// proxy is the reverse_proxy block of the llm_thinking gateway
	// ("transport openai"); plain reverse_proxy has none, and relays the
	// bodies as they come.
	proxy string
	// tooLarge says a 413 request_too_large is the answer expected.
	tooLarge bool
}

// floodScenarios are the floods of -flood all, by name.
var floodScenarios = []floodScenario{
	{name: "large", clients: 24, body: largeRequest, path: "/v1/messages"},
	{name: "tiny-thinking", clients: 8, body: tinyThinkingRequest, path: "/v1/messages", tooLarge: true},
	{name: "tiny-text-transport", clients: 8, body: tinyTextRequest, path: "/v1/messages", proxy: "transport openai"},
	{name: "count-tokens-transport", clients: 8, body: tinyTextRequest, path: "/v1/messages/count_tokens", proxy: "transport openai"},
	{name: "large-transport", clients: 24, body: largeRequest, path: "/v1/messages", proxy: "transport openai"},
}

// largeRequest is a Messages request of 27 MiB of text.
func largeRequest() []byte {
	const size = 27 << 20
	const head, tail = `{"model":"m","max_tokens":16,"messages":[{"role":"user","content":"`, `"}]}`
	return []byte(head + strings.Repeat("x", size-len(head)-len(tail)) + tail)
}

// tinyRequest is a Messages request whose message of role holds a million
// copies of block.
func tinyRequest(role, block string) []byte {
	return []byte(`{"model":"m","max_tokens":16,"messages":[{"role":"user","content":"hi"},{"role":"` + role + `","content":[` +
		strings.Repeat(block+",", 1_000_000) + `{"type":"text","text":"x"}]},{"role":"user","content":"go"}]}`)
}

// tinyThinkingRequest: a million thinking blocks of 19 bytes (19 MB),
// which cost a reader of structures seventeen times their size.
func tinyThinkingRequest() []byte { return tinyRequest("assistant", `{"type":"thinking"}`) }

// tinyTextRequest: a million empty text blocks (26 MB), which cost a
// translation more than their size.
func tinyTextRequest() []byte { return tinyRequest("user", `{"type":"text","text":""}`) }

// floodRun is what a flood through one gateway measured.
type floodRun struct {
	startRSS, peakRSS int64
	elapsed           time.Duration
	answers           int64 // requests answered 200
	tooLarge          int64 // answered 413
	overloaded        int64 // 529s, each followed by a new attempt
	errors            int64 // attempts that got no answer, each tried again
	probes            int64
	maxProbe          time.Duration
	memory            memoryStats
}

// memoryStats is the memory budget as GET /llm_thinking/stats reports it.
type memoryStats struct {
	Budget     int64 `json:"budget"`
	Held       int64 `json:"held"`
	Peak       int64 `json:"peak"`
	Waits      int64 `json:"waits"`
	Overloaded int64 `json:"overloaded"`
}

// floodResult is one scenario through both gateways.
type floodResult struct {
	scenario floodScenario
	runs     [2]floodRun
}

// runFloods runs the scenarios named (all for "all"), each through each
// gateway, a fresh Caddy each; llm_thinking's with the memory budget
// given, or its default when "".
func runFloods(bin, names, profiles, memoryBudget string) ([]floodResult, error) {
	var chosen []floodScenario
	for _, s := range floodScenarios {
		if names == "all" || strings.Contains(","+names+",", ","+s.name+",") {
			chosen = append(chosen, s)
		}
	}
	if len(chosen) == 0 {
		return nil, fmt.Errorf("no flood named %q", names)
	}
	up, err := llmtest.NewSlowUpstream(floodChunk, floodInterval)
	if err != nil {
		return nil, err
	}
	defer up.Close()
	var results []floodResult
	for _, s := range chosen {
		r := floodResult{scenario: s}
		body := s.body()
		gws := [2]gateway{
			viaPlain:       {name: "plain", slug: "plain"},
			viaLLMThinking: {name: "llm_thinking", slug: "llm-thinking", handler: "llm_thinking " + gatewayBackend, proxy: s.proxy, memoryBudget: memoryBudget},
		}
		for via, g := range gws {
			dir, err := os.MkdirTemp("", "llm-thinking-flood-")
			if err != nil {
				return nil, err
			}
			var heap string
			if profiles != "" && g.rewrites() {
				heap = filepath.Join(profiles, "flood-"+s.name+"-heap.pprof")
			}
			r.runs[via], err = floodGateway(bin, g, s, dir, up.HostPort(), body, heap)
			os.RemoveAll(dir)
			if err != nil {
				return nil, fmt.Errorf("%s through %s: %w", s.name, g.name, err)
			}
		}
		results = append(results, r)
	}
	return results, nil
}

// floodGateway starts a Caddy serving g and floods it as s says, probing
// it meanwhile.
func floodGateway(bin string, g gateway, s floodScenario, dir, upstream string, body []byte, heap string) (floodRun, error) {
	var run floodRun
	p, err := startCaddy(bin, g, dir, upstream)
	if err != nil {
		return run, err
	}
	defer p.stop()
	if run.startRSS, err = peakRSS(p.pid()); err != nil {
		return run, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), floodDeadline)
	defer cancel()
	client := &http.Client{Transport: &http.Transport{DisableCompression: true}}
	defer client.CloseIdleConnections()
	site := "http://" + p.siteAddr
	stopProbe := probe(site, &run)
	if heap != "" {
		defer p.heapAtPeak(heap)()
	}
	start := time.Now()
	var c floodCounts
	errs := make(chan error, s.clients)
	var wg sync.WaitGroup
	for range s.clients {
		wg.Go(func() {
			if err := c.send(ctx, client, site+s.path, body, s.tooLarge && g.rewrites()); err != nil {
				errs <- err
			}
		})
	}
	wg.Wait()
	run.elapsed = time.Since(start)
	stopProbe()
	close(errs)
	if err := <-errs; err != nil {
		return run, err
	}
	run.answers, run.tooLarge, run.overloaded, run.errors = c.answers.Load(), c.tooLarge.Load(), c.overloaded.Load(), c.failures.Load()
	if run.peakRSS, err = peakRSS(p.pid()); err != nil {
		return run, err
	}
	if g.rewrites() {
		run.memory, err = p.memory()
	}
	return run, err
}

// probe sends a normal one-message request to site every probeEvery until
// the function it returns is called, and records how long the slowest
// took in run.
func probe(site string, run *floodRun) func() {
	var slowest, n atomic.Int64
	body := []byte(`{"model":"m","max_tokens":16,"messages":[{"role":"user","content":"are you there?"}]}`)
	client := &http.Client{Timeout: time.Minute}
	var sent sync.WaitGroup
	stop := every(probeEvery, func() {
		sent.Go(func() {
			start := time.Now()
			var c floodCounts
			// A probe answered 529 counts as slow as it took to be
			// answered 200 in the end.
			if err := c.send(context.Background(), client, site+"/v1/messages", body, false); err != nil {
				return
			}
			n.Add(1)
			d := int64(time.Since(start))
			for {
				cur := slowest.Load()
				if d <= cur || slowest.CompareAndSwap(cur, d) {
					break
				}
			}
		})
	})
	return func() {
		stop()
		sent.Wait()
		run.probes, run.maxProbe = n.Load(), time.Duration(slowest.Load())
	}
}

// every calls f every d, in a goroutine of its own, until the function it
// returns is called, which returns once f runs no more.
func every(d time.Duration, f func()) func() {
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		tick := time.NewTicker(d)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
				f()
			}
		}
	})
	return func() { close(done); wg.Wait() }
}

// heapAtPeak writes a heap profile of p to path each time the memory
// budget holds more than it held before, until the function it returns is
// called: the last one written is of about the peak.
func (p *caddyProcess) heapAtPeak(path string) func() {
	var most int64
	return every(250*time.Millisecond, func() {
		if m, err := p.memory(); err == nil && m.Held > most+most/20 {
			most = m.Held
			_ = p.fetch("/debug/pprof/heap", 30*time.Second, path) // a profile missed is the one before
		}
	})
}

// memory reads the memory budget from the admin API.
func (p *caddyProcess) memory() (memoryStats, error) {
	c := http.Client{Timeout: 5 * time.Second}
	resp, err := c.Get(p.admin + "/llm_thinking/stats")
	if err != nil {
		return memoryStats{}, err
	}
	defer resp.Body.Close()
	var stats struct {
		Memory memoryStats `json:"memory"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&stats); err != nil {
		return memoryStats{}, fmt.Errorf("read /llm_thinking/stats: %w", err)
	}
	return stats.Memory, nil
}

// floodTargets are a flood's targets: llm_thinking's peak RSS within what
// Go lets a process reach whose live memory is plain's, its budget and
// maxFloodAddedRSS, and a normal request answered within maxProbe
// meanwhile. The budget bounds what is live; the garbage is Go's to bound:
// with GOMEMLIMIT (which Caddy gets from the tool's environment, as the
// tool does), Go keeps the process within it, and the bound is plain's and
// the limit; without, Go collects when the heap doubled (GOGC's default),
// and the bound is plain's and twice the rest.
func floodTargets(r floodResult) []target {
	plain, module := r.runs[viaPlain].peakRSS, r.runs[viaLLMThinking].peakRSS
	budget := r.runs[viaLLMThinking].memory.Budget
	bound := plain + 2*(budget+maxFloodAddedRSS)
	how := fmt.Sprintf("plain %.1f MiB + 2 x (budget %.0f MiB + %.0f MiB), no GOMEMLIMIT",
		mebibytes(plain), mebibytes(budget), mebibytes(maxFloodAddedRSS))
	if limit := debug.SetMemoryLimit(-1); limit < math.MaxInt64 {
		bound = plain + limit
		how = fmt.Sprintf("plain %.1f MiB + GOMEMLIMIT %.0f MiB", mebibytes(plain), mebibytes(limit))
	}
	probe := r.runs[viaLLMThinking].maxProbe
	return []target{{
		what: fmt.Sprintf("flood %s: peak RSS %.1f MiB <= %s = %.1f MiB", r.scenario.name, mebibytes(module), how, mebibytes(bound)),
		met:  module <= bound,
	}, {
		what: fmt.Sprintf("flood %s: a normal request every %v answered within %v (slowest %v of %d)",
			r.scenario.name, probeEvery, maxProbe, probe.Round(time.Millisecond), r.runs[viaLLMThinking].probes),
		met: probe <= maxProbe && r.runs[viaLLMThinking].probes > 0,
	}}
}

// reportFlood prints what a flood measured through each gateway.
func reportFlood(w io.Writer, r floodResult) {
	s := r.scenario
	fmt.Fprintf(w, "flood %s: %d clients send %.0f MiB each at once to %s (%s), to an upstream reading %d KiB per %v; 529s sent again after Retry-After\n\n",
		s.name, s.clients, mebibytes(int64(len(s.body()))), s.path, orPlain(s.proxy), floodChunk>>10, floodInterval)
	tw := tabwriter.NewWriter(w, 0, 0, 3, ' ', 0)
	fmt.Fprintln(tw, "gateway\tpeak RSS\tonce started\ttook\tanswered\t413s\t529s\tfailed attempts\tslowest probe")
	for via, run := range r.runs {
		fmt.Fprintf(tw, "%s\t%.1f MiB\t%.1f MiB\t%v\t%d\t%d\t%d\t%d\t%v\n", [2]string{"plain", "llm_thinking"}[via], mebibytes(run.peakRSS), mebibytes(run.startRSS),
			run.elapsed.Round(time.Second), run.answers, run.tooLarge, run.overloaded, run.errors, run.maxProbe.Round(time.Millisecond))
	}
	tw.Flush()
	m := r.runs[viaLLMThinking].memory
	fmt.Fprintf(w, "\nllm_thinking's memory budget %.0f MiB: held %.1f MiB at its peak; %d requests waited for room, %d answered 529\n\n",
		mebibytes(m.Budget), mebibytes(m.Peak), m.Waits, m.Overloaded)
}

// orPlain names a reverse_proxy block for the report.
func orPlain(proxy string) string {
	if proxy == "" {
		return "reverse_proxy"
	}
	return "reverse_proxy with " + proxy
}
