package observe

import (
	"testing"
	"time"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/block"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/cachetest"
)

// The bench's long answer as reverse_proxy writes it under load c, and the
// three states the observer can meet its Writes in: warm (every
// benchmark's loop), cold (as the process meets them, see
// internal/cachetest), and cold but for the code (another request's Write
// ran it just before). Each Write is timed alone, the same way in all
// three, so the three figures compare; docs/performance.md has what they
// said.

// BenchmarkObserveSSEWritesWarm observes the answer's Writes with the
// caches warm, as a loop leaves them.
func BenchmarkObserveSSEWritesWarm(b *testing.B) { observeWritesIn(b, warm) }

// BenchmarkObserveSSEWritesCold observes the answer's Writes with the
// caches evicted before each.
func BenchmarkObserveSSEWritesCold(b *testing.B) { observeWritesIn(b, cold) }

// BenchmarkObserveSSEWritesColdData observes the answer's Writes with the
// caches evicted before each and the code then run again on another
// observer: only this observer's own data is cold.
func BenchmarkObserveSSEWritesColdData(b *testing.B) { observeWritesIn(b, coldData) }

// cacheState is what is in the caches when a Write comes.
type cacheState int

const (
	warm cacheState = iota
	cold
	coldData
)

// writesOfLoadC returns the bench's long answer cut as reverse_proxy
// writes it under load c: 3.2 KB a Write on average, as counted in the
// running Caddy (see BenchmarkObserveSSE2000DeltasChunked), each ending
// with an event, since the upstream sends each event as a chunk of its
// own and net/http's chunked reader does not wait for the next chunk.
func writesOfLoadC() [][]byte {
	const chunk = 3200
	var writes [][]byte
	var w []byte
	for _, e := range claudeStream() {
		if w = append(w, e...); len(w) >= chunk {
			writes, w = append(writes, w), nil
		}
	}
	if len(w) > 0 {
		writes = append(writes, w)
	}
	return writes
}

// observeWritesIn observes the answer a Write at a time, with the caches
// in state before each, and reports the time of a Write (ns/op counts the
// evictions too).
func observeWritesIn(b *testing.B, state cacheState) {
	writes := writesOfLoadC()
	var timed time.Duration
	blocks := 0
	for b.Loop() {
		s := NewSSE(func(bs []block.Observed) { blocks = len(bs) })
		other := NewSSE(func([]block.Observed) {})
		for _, p := range writes {
			if state != warm {
				cachetest.Evict(p)
			}
			if state == coldData {
				other.Write(p)
			}
			start := time.Now()
			s.Write(p)
			timed += time.Since(start)
		}
	}
	if blocks != 1 {
		b.Fatalf("reported %d blocks, want 1", blocks)
	}
	b.ReportMetric(float64(timed.Nanoseconds())/float64(b.N*len(writes)), "ns/write")
}
