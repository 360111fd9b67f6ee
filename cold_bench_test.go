package llmthinking

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2/modules/caddyhttp"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/cachetest"
)

// In the running Caddy a long answer reaches the observer as a Write and a
// flush every few events, and between two of them the request's goroutine
// waits on the upstream while the kernel, the other requests and the
// upstream run: what the observer touches is no longer in the caches when
// the next Write comes. The Cold benchmarks below measure a Write and its
// flush as the process pays them: the caches are evicted before each (see
// internal/cachetest), and only the Write and the flush are timed. The
// Warm ones time them the same way with the caches as a loop leaves them.

// flushingDiscard is a client's writer that can be flushed, as Caddy's is.
type flushingDiscard struct {
	discard
	flushes int
}

// FlushError counts a flush.
func (d *flushingDiscard) FlushError() error { d.flushes++; return nil }

// benchChunk is what reverse_proxy writes at a time of load c's answer,
// on average, as counted in the running Caddy (see the observer's
// BenchmarkObserveSSE2000DeltasChunked): its 317 KB in about 100 Writes.
const benchChunk = 3200

// coldStream is load c's answer (bench/cmd/upstream): 500 thinking deltas,
// a signature, 1499 text deltas, in Writes of benchChunk bytes or a little
// more, each ending with an event. The upstream sends every event as a
// chunk of its own, and net/http's chunked reader stops at the end of a
// chunk rather than wait for the next one, so reverse_proxy's reads end
// between events.
func coldStream() [][]byte {
	events := replyShape{
		message:        `{"id":"msg_1","type":"message","role":"assistant","model":"claude-sonnet-4-5-20250929","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":16000,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":1}}`,
		ping:           true,
		thinkingDeltas: 500, thinking: "considering the proxy path and the buffer",
		signature:  strings.Repeat("EqQBCkgIARABGAIiQL", 12) + "==",
		textDeltas: 1499, text: "Here is the next piece of the answer, ok ",
		outputTokens: 20000,
	}.events()
	var writes [][]byte
	var w []byte
	for _, e := range events {
		if w = append(w, e...); len(w) >= benchChunk {
			writes, w = append(writes, w), nil
		}
	}
	if len(w) > 0 {
		writes = append(writes, w)
	}
	return writes
}

// benchmarkWrites writes load c's answer through next as reverse_proxy
// does, a Write and a flush at a time, with the caches evicted before
// each when cold, and reports the time of a Write and its flush, timed
// one by one (ns/op counts the evictions too). The timer is not stopped
// around the evictions: testing.B's StopTimer and StartTimer stop the
// world to read the memory statistics, which would be timed as the
// Write's.
func benchmarkWrites(b *testing.B, cold bool, serve func(w http.ResponseWriter, r *http.Request, next caddyhttp.Handler) error) {
	writes := coldStream()
	var timed time.Duration // the Writes and flushes, without the evictions
	next := caddyhttp.HandlerFunc(func(w http.ResponseWriter, r *http.Request) error {
		if err := drain.ServeHTTP(w, r); err != nil {
			return err
		}
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		rc := http.NewResponseController(w)
		for _, p := range writes {
			if cold {
				cachetest.Evict(p)
			}
			start := time.Now()
			if _, err := w.Write(p); err != nil {
				return err
			}
			err := rc.Flush()
			timed += time.Since(start)
			if err != nil {
				return err
			}
		}
		return nil
	})
	body := []byte(`{"messages":[{"role":"user","content":"hi"}],"stream":true,"thinking":{"type":"enabled","budget_tokens":2000}}`)
	for b.Loop() {
		w := &flushingDiscard{discard: discard{header: http.Header{}}}
		if err := serve(w, benchRequest(body), next); err != nil {
			b.Fatal(err)
		}
		if w.flushes != len(writes) {
			b.Fatalf("%d flushes reached the client, want %d", w.flushes, len(writes))
		}
	}
	b.ReportMetric(float64(timed.Nanoseconds())/float64(b.N*len(writes)), "ns/write")
}

// passThrough serves a request by next alone, the baseline of the
// handler's benchmarks.
func passThrough(w http.ResponseWriter, r *http.Request, next caddyhttp.Handler) error {
	return next.ServeHTTP(w, r)
}

// BenchmarkPassThroughColdWrites is the baseline of
// BenchmarkObserveColdWrites: the Writes and flushes alone, met cold.
func BenchmarkPassThroughColdWrites(b *testing.B) { benchmarkWrites(b, true, passThrough) }

// BenchmarkObserveColdWrites is a Write and a flush of a long answer
// through the handler, met cold, as the process meets them: the
// observer, its wrappers and the client's flush. Only the Writes and
// flushes are timed, not the request's plan.
func BenchmarkObserveColdWrites(b *testing.B) { benchmarkWrites(b, true, quietHandler(b).ServeHTTP) }

// BenchmarkPassThroughWarmWrites is BenchmarkPassThroughColdWrites with
// the caches as a loop leaves them.
func BenchmarkPassThroughWarmWrites(b *testing.B) { benchmarkWrites(b, false, passThrough) }

// BenchmarkObserveWarmWrites is BenchmarkObserveColdWrites with the
// caches as a loop leaves them.
func BenchmarkObserveWarmWrites(b *testing.B) { benchmarkWrites(b, false, quietHandler(b).ServeHTTP) }
