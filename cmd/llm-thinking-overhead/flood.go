package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"text/tabwriter"
	"time"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/llmtest"
)

// The flood: floodClients clients upload a floodBody Messages request each,
// at once, to an upstream that reads 64 KiB every 50 ms (a body takes it
// some 21 s), through each gateway on its full defaults. Plain
// reverse_proxy streams every body through a small buffer; llm_thinking
// must hold each whole, within its memory budget, and answers 529 to what
// does not fit, which the clients send again after Retry-After, as the
// SDKs do, until every upload got its answer.
const (
	floodClients  = 24
	floodBody     = 27 << 20
	floodChunk    = 64 << 10
	floodInterval = 50 * time.Millisecond
	// floodDeadline bounds the whole flood through one gateway.
	floodDeadline = 15 * time.Minute
	// maxFloodAddedRSS is what llm_thinking's peak memory may add to plain
	// reverse_proxy's on top of its memory budget.
	maxFloodAddedRSS = 30 << 20
)

// floodGateways are the gateways the flood goes through: both on their
// defaults.
var floodGateways = [2]gateway{
	viaPlain:       {name: "plain", slug: "plain"},
	viaLLMThinking: {name: "llm_thinking", slug: "llm-thinking", handler: "llm_thinking " + gatewayBackend},
}

// floodRun is what the flood through one gateway measured.
type floodRun struct {
	startRSS, peakRSS int64
	elapsed           time.Duration
	answers           int64 // uploads answered 200
	overloaded        int64 // 529s, each followed by a new attempt
	errors            int64 // attempts that got no answer, each tried again
	memory            memoryStats
}

// memoryStats is the memory budget as GET /llm_thinking/stats reports it.
type memoryStats struct {
	Budget     int64 `json:"budget"`
	Peak       int64 `json:"peak"`
	Waits      int64 `json:"waits"`
	Overloaded int64 `json:"overloaded"`
}

// runFlood floods each gateway in turn, a fresh Caddy each, and returns
// what it measured of each.
func runFlood(bin string) ([2]floodRun, error) {
	var runs [2]floodRun
	up, err := llmtest.NewSlowUpstream(floodChunk, floodInterval)
	if err != nil {
		return runs, err
	}
	defer up.Close()
	body := floodRequest()
	for via, g := range floodGateways {
		dir, err := os.MkdirTemp("", "llm-thinking-flood-")
		if err != nil {
			return runs, err
		}
		runs[via], err = floodGateway(bin, g, dir, up.HostPort(), body)
		os.RemoveAll(dir)
		if err != nil {
			return runs, fmt.Errorf("%s: %w", g.name, err)
		}
	}
	return runs, nil
}

// floodRequest returns a Messages request of exactly floodBody bytes.
func floodRequest() []byte {
	const head, tail = `{"model":"m","max_tokens":16,"messages":[{"role":"user","content":"`, `"}]}`
	return []byte(head + strings.Repeat("x", floodBody-len(head)-len(tail)) + tail)
}

// floodGateway starts a Caddy serving g and floods it.
func floodGateway(bin string, g gateway, dir, upstream string, body []byte) (floodRun, error) {
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
	start := time.Now()
	var answers, overloaded, failures atomic.Int64
	errs := make(chan error, floodClients)
	var wg sync.WaitGroup
	for range floodClients {
		wg.Go(func() {
			if err := upload(ctx, client, "http://"+p.siteAddr, body, &overloaded, &failures); err != nil {
				errs <- err
				return
			}
			answers.Add(1)
		})
	}
	wg.Wait()
	run.elapsed = time.Since(start)
	close(errs)
	if err := <-errs; err != nil {
		return run, err
	}
	run.answers, run.overloaded, run.errors = answers.Load(), overloaded.Load(), failures.Load()
	if run.peakRSS, err = peakRSS(p.pid()); err != nil {
		return run, err
	}
	if g.rewrites() {
		run.memory, err = p.memory()
	}
	return run, err
}

// upload sends body until it is answered 200, after Retry-After when
// answered 529 and after a second when the connection failed.
func upload(ctx context.Context, client *http.Client, site string, body []byte, overloaded, failures *atomic.Int64) error {
	for {
		wait, err := attempt(ctx, client, site, body)
		switch {
		case err != nil:
			return err
		case wait == 0:
			return nil
		case wait < 0:
			failures.Add(1)
			wait = time.Second
		default:
			overloaded.Add(1)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("the flood did not get through within %v", floodDeadline)
		case <-time.After(wait):
		}
	}
}

// attempt sends body once. It returns 0 when it was answered, the
// Retry-After of a 529, -1 when the connection failed, or an error for
// anything a client would not try again.
func attempt(ctx context.Context, client *http.Client, site string, body []byte) (time.Duration, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, site+"/v1/messages", bytes.NewReader(body))
	if err != nil {
		return 0, err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := client.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return 0, fmt.Errorf("the flood did not get through within %v", floodDeadline)
		}
		return -1, nil
	}
	defer resp.Body.Close()
	answer, err := io.ReadAll(resp.Body)
	switch {
	case err != nil:
		return -1, nil
	case resp.StatusCode == http.StatusOK && bytes.Contains(answer, []byte(`"read `+strconv.Itoa(len(body))+` bytes"`)):
		return 0, nil
	case resp.StatusCode == 529:
		seconds, err := strconv.Atoi(resp.Header.Get("Retry-After"))
		if err != nil || seconds < 1 {
			return 0, fmt.Errorf("a 529 without a usable Retry-After: %q", resp.Header.Get("Retry-After"))
		}
		return time.Duration(seconds) * time.Second, nil
	}
	return 0, fmt.Errorf("answered %d: %.200s", resp.StatusCode, answer)
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

// floodTarget is the flood's target: llm_thinking's peak RSS at most
// plain's, its budget and maxFloodAddedRSS.
func floodTarget(runs [2]floodRun) target {
	plain, module := runs[viaPlain].peakRSS, runs[viaLLMThinking].peakRSS
	bound := plain + runs[viaLLMThinking].memory.Budget + maxFloodAddedRSS
	return target{
		what: fmt.Sprintf("flood of %d x %d MiB: peak RSS %.1f MiB <= plain %.1f MiB + budget %.0f MiB + %.0f MiB = %.1f MiB",
			floodClients, floodBody>>20, mebibytes(module), mebibytes(plain), mebibytes(runs[viaLLMThinking].memory.Budget),
			mebibytes(maxFloodAddedRSS), mebibytes(bound)),
		met: module <= bound,
	}
}

// reportFlood prints what the flood measured through each gateway.
func reportFlood(w io.Writer, runs [2]floodRun) {
	fmt.Fprintf(w, "flood: %d clients upload %d MiB each at once to an upstream reading %d KiB per %v; 529s sent again after Retry-After\n\n",
		floodClients, floodBody>>20, floodChunk>>10, floodInterval)
	tw := tabwriter.NewWriter(w, 0, 0, 3, ' ', 0)
	fmt.Fprintln(tw, "gateway\tpeak RSS\tonce started\ttook\tanswered\t529s\tfailed attempts")
	for via, r := range runs {
		fmt.Fprintf(tw, "%s\t%.1f MiB\t%.1f MiB\t%v\t%d\t%d\t%d\n", floodGateways[via].name, mebibytes(r.peakRSS), mebibytes(r.startRSS),
			r.elapsed.Round(time.Second), r.answers, r.overloaded, r.errors)
	}
	tw.Flush()
	m := runs[viaLLMThinking].memory
	fmt.Fprintf(w, "\nllm_thinking's memory budget %.0f MiB: held %.1f MiB at its peak; %d requests waited for room, %d answered 529\n",
		mebibytes(m.Budget), mebibytes(m.Peak), m.Waits, m.Overloaded)
}
