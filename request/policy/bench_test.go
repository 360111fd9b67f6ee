package policy

import (
	"bytes"
	"encoding/json"
	"net/http"
	"os"
	"testing"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/cachetest"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/claudecode"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/request/thinking"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/state/registry"
)

// capture256KiB is the captured --continue request of Claude Code grown
// to 256 KiB of history, as the bench's load a sends, with its metadata
// (and so its conversation's name) taken out when anonymous.
func capture256KiB(b *testing.B, anonymous bool) []byte { return captureOfSize(b, 256<<10, anonymous) }

// captureOfSize is capture256KiB grown to size bytes.
func captureOfSize(b *testing.B, size int, anonymous bool) []byte {
	b.Helper()
	raw, err := os.ReadFile("../../testdata/claude-code-2.1.328/capture-3-continue-replays-thinking.json")
	if err != nil {
		b.Fatal(err)
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, raw); err != nil {
		b.Fatal(err)
	}
	body, err := claudecode.GrowHistory(compact.Bytes(), size)
	if err != nil {
		b.Fatal(err)
	}
	if anonymous {
		at := bytes.Index(body, []byte(`,"metadata":`))
		end := bytes.Index(body[at+1:], []byte(`},`))
		body = append(body[:at:at], body[at+1+end+1:]...)
	}
	return body
}

// benchmarkPlan plans body for anthropic again and again, every block of
// it known as anthropic's: the plan's whole cost on the request path, the
// body read, its thread found, each block looked up, nothing to change.
func benchmarkPlan(b *testing.B, body []byte, header http.Header, p *Policy) {
	benchmarkPlanAfter(b, body, header, p, func() {})
}

// benchmarkPlanAfter is benchmarkPlan, calling before ahead of every plan.
func benchmarkPlanAfter(b *testing.B, body []byte, header http.Header, p *Policy, before func()) {
	req, err := thinking.Parse(body)
	if err != nil {
		b.Fatal(err)
	}
	for _, blk := range req.Blocks() {
		p.Registry.Observe(0, "anthropic", blk.Key)
	}
	req.Release()
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		before()
		plan := p.Plan(Request{Body: body, Header: header, Backend: "anthropic"})
		if plan.Passthrough != nil || plan.Result.Changed() {
			b.Fatalf("plan: %v, changed %v", plan.Passthrough, plan.Result.Changed())
		}
		plan.Release()
	}
}

// BenchmarkPlan256KiBNextRequest: a conversation's next request, which its
// thread's checkpoint lets the plan read only past what it knows.
func BenchmarkPlan256KiBNextRequest(b *testing.B) {
	benchmarkPlan(b, capture256KiB(b, false), session("bench"), newPolicy())
}

// BenchmarkPlanBenchLoadC plans the body of the whole-process bench's
// load c (testdata/bench) again and again, as the running Caddy does:
// without a session, and with Heads, since that body sends its system
// prompt and tools before the messages.
func BenchmarkPlanBenchLoadC(b *testing.B) {
	body, err := os.ReadFile("../../testdata/bench/load-c-64KiB.json")
	if err != nil {
		b.Fatal(err)
	}
	p := newPolicy()
	p.Heads = new(thinking.Heads)
	benchmarkPlan(b, body, http.Header{}, p)
}

// BenchmarkPlan256KiBNoSession: the same of a client that names no
// conversation: the thread is found from the history's digests alone.
func BenchmarkPlan256KiBNoSession(b *testing.B) {
	benchmarkPlan(b, capture256KiB(b, true), http.Header{}, newPolicy())
}

// BenchmarkPlan256KiBCold: no threads, so every request is read whole:
// what the checkpoints save.
func BenchmarkPlan256KiBCold(b *testing.B) {
	benchmarkPlan(b, capture256KiB(b, false), session("bench"), &Policy{Registry: registry.New(registry.Config{}), Foreign: thinking.Strip})
}

// BenchmarkPlan1MiBNextRequest is BenchmarkPlan256KiBNextRequest at the
// size of the bench's load b.
func BenchmarkPlan1MiBNextRequest(b *testing.B) {
	benchmarkPlan(b, captureOfSize(b, 1<<20, false), session("bench"), newPolicy())
}

// BenchmarkPlan1MiBNextRequestCachesCold is BenchmarkPlan1MiBNextRequest
// with the processor's caches emptied before every plan of all but the
// body, which is copied in as if just read: the state a plan finds in the
// running Caddy, where a megabyte of body streams through the caches with
// every request and the policy's memory (thread, checkpoint, registry) is
// touched once a request. What the plan costs here beyond the warm
// benchmark is what reading that memory costs, most of it the body's hash
// (see docs/performance.md; which cache the body comes from is a reading,
// unmeasured: the machine has no hardware counters).
func BenchmarkPlan1MiBNextRequestCachesCold(b *testing.B) {
	body := captureOfSize(b, 1<<20, false)
	read := bytes.Clone(body)
	benchmarkPlanAfter(b, read, session("bench"), newPolicy(), func() {
		b.StopTimer()
		cachetest.EvictBytes(16<<20, nil) // well into the shared L3 too
		copy(read, body)
		b.StartTimer()
	})
}
