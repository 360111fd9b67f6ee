package registry

import (
	"encoding/binary"
	"fmt"
	"testing"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/block"
)

// benchBlocks is how many blocks the benchmarks' registry holds: the
// default bound, full.
const benchBlocks = DefaultMaxBlocks

// benchKey returns the i-th benchmark key, spread as block keys are.
func benchKey(i int) block.Key {
	var k block.Key
	binary.LittleEndian.PutUint64(k[:], uint64(i)*0x9E3779B97F4A7C15)
	binary.LittleEndian.PutUint64(k[8:], uint64(i)^0xD1B54A32D192ED03)
	return k
}

// fullRegistry returns a registry holding benchBlocks blocks, produced by
// two backends in turn, as loaded from storage, and their keys.
func fullRegistry(b *testing.B) (*Registry, []block.Key) {
	b.Helper()
	r := New(Config{MaxBlocks: benchBlocks})
	keys := make([]block.Key, benchBlocks)
	changes := make([]Change, benchBlocks)
	for i := range keys {
		keys[i] = benchKey(i)
		changes[i] = Change{Op: Produced, Key: keys[i], Backend: []string{"anthropic", "glm"}[i%2]}
	}
	r.Apply(changes)
	return r, keys
}

// BenchmarkObserve inserts blocks into a full registry, the steady state
// of a busy gateway, as responses to a thousand conversations produce them:
// each insert evicts the least recently used block. ns/op is per block.
func BenchmarkObserve(b *testing.B) {
	r, _ := fullRegistry(b)
	benchmarkObserve(b, r)
}

func benchmarkObserve(b *testing.B, r *Registry) {
	threads := make([]ThreadID, 1000)
	for i := range threads {
		threads[i] = ThreadID(i + 1)
		r.StartThread(threads[i])
	}
	i := benchBlocks
	b.ReportAllocs()
	for b.Loop() {
		r.Observe(threads[i%len(threads)], "anthropic", benchKey(i))
		i++
	}
}

// lookupBatch is how many blocks a benchmarked request replays: a long
// Claude Code session.
const lookupBatch = 500

// BenchmarkAdmitNewConversation looks up the origins of lookupBatch blocks
// spread over a full registry, for a conversation the registry has not
// seen (every key goes through the index): ns/block is per lookup.
func BenchmarkAdmitNewConversation(b *testing.B) {
	r, keys := fullRegistry(b)
	req := Request{Backend: "anthropic", Keys: make([]block.Key, lookupBatch)}
	n := 0
	b.ReportAllocs()
	for b.Loop() {
		for j := range req.Keys {
			req.Keys[j] = keys[(n*lookupBatch+j*7919)%len(keys)]
		}
		req.Conversation = fmt.Sprint("c", n%1000)
		a := r.Admit(req)
		req.Origins, req.Refused = a.Origins, a.Refused
		n++
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(n*lookupBatch), "ns/block")
}

// BenchmarkAdmitNextRequest replays a conversation's lookupBatch blocks
// again and again, as its next requests do, tracked: the lifecycle
// advances and the blocks are found where the last request found them.
func BenchmarkAdmitNextRequest(b *testing.B) {
	r, keys := fullRegistry(b)
	history := make([]block.Key, lookupBatch)
	for j := range history {
		history[j] = keys[(j*7919)%len(keys)]
	}
	admitAgain(b, r, history, func(int) {})
}

// BenchmarkAdmitNextRequestUnknownHistory replays lookupBatch blocks the
// registry never learned (a history from before the gateway) again and
// again, tracked, each request after an answer that taught the registry a
// new block, as a conversation's requests follow its answers. The answer's
// block is learned outside the thread, so that the request need not
// replay it.
func BenchmarkAdmitNextRequestUnknownHistory(b *testing.B) {
	r, _ := fullRegistry(b)
	history := make([]block.Key, lookupBatch)
	for j := range history {
		history[j] = benchKey(-1 - j) // apart from every key learned
	}
	a := admitAgain(b, r, history, func(n int) { r.Observe(0, "anthropic", benchKey(benchBlocks+n)) })
	if a.Origins[0] != "" {
		b.Fatalf("an unknown block comes from %q", a.Origins[0])
	}
}

// admitAgain admits the next request of thread 1, which replays history,
// again and again, each after answer(n) for the n-th, and returns the last
// admission: ns/block is per block of a request.
func admitAgain(b *testing.B, r *Registry, history []block.Key, answer func(n int)) Admission {
	r.StartThread(1)
	req := Request{Conversation: "c", Thread: 1, Backend: "anthropic", Track: true, Keys: history}
	var a Admission
	n := 0
	b.ReportAllocs()
	for b.Loop() {
		answer(n)
		a = r.Admit(req)
		req.Origins, req.Refused = a.Origins, a.Refused
		n++
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(n*len(history)), "ns/block")
	return a
}
