package persist

import (
	"encoding/binary"
	"fmt"
	"runtime"
	"testing"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/block"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/state/registry"
)

// Sizes of the registry the snapshot tests and benchmarks write: the
// default bound, full, as issue 8's memory target has it.
const (
	bigBlocks        = registry.DefaultMaxBlocks
	bigConversations = 1000
)

// bigRegistry returns a registry of bigBlocks blocks produced by two
// backends in turn, a few refused, and of bigConversations conversations
// served by both, and a Store that writes it.
func bigRegistry(tb testing.TB) (*registry.Registry, *Store) {
	tb.Helper()
	reg := registry.New(registry.Config{MaxBlocks: bigBlocks})
	batch := make([]registry.Change, 0, 1024)
	for i := range bigBlocks {
		var k block.Key
		binary.LittleEndian.PutUint64(k[:], uint64(i)*0x9E3779B97F4A7C15)
		binary.LittleEndian.PutUint64(k[8:], uint64(i))
		batch = append(batch, registry.Change{Op: registry.Produced, Key: k, Backend: []string{"anthropic", "glm"}[i%2]})
		if i%1000 == 0 {
			batch = append(batch, registry.Change{Op: registry.Refused, Key: k, Backend: "glm"})
		}
		if len(batch) >= 1000 {
			reg.Apply(batch)
			batch = batch[:0]
		}
	}
	reg.Apply(batch)
	for i := range bigConversations {
		reg.Served(fmt.Sprintf("session-%04d", i), "glm")
		reg.Served(fmt.Sprintf("session-%04d", i), "anthropic")
	}
	return reg, &Store{reg: reg, writer: "bench"}
}

// names is how many names a big registry's snapshot holds.
const bigNames = 2 + bigConversations

// TestSnapshotsCostTheirNamesNotTheirChanges: writing and reading a
// snapshot of a full registry allocates for its names and batches (and the
// file's buffer), not for each of its hundred thousand changes, so a fold
// or a start does not leave the garbage collector a registry's worth of
// small objects to sweep.
func TestSnapshotsCostTheirNamesNotTheirChanges(t *testing.T) {
	_, s := bigRegistry(t)
	var data []byte
	writes := testing.AllocsPerRun(2, func() { data = s.encodeSnapshot(1, []string{"folded"}) })
	n := 0
	var total runtime.MemStats
	runtime.ReadMemStats(&total)
	before := total.TotalAlloc
	reads := testing.AllocsPerRun(2, func() {
		n = 0
		if _, err := readFile(data, func(b []registry.Change) { n += len(b) }); err != nil {
			t.Fatal(err)
		}
	})
	runtime.ReadMemStats(&total)
	readBytes := (total.TotalAlloc - before) / 3 // AllocsPerRun runs once more to warm up
	if n < bigBlocks+2*bigConversations {
		t.Fatalf("%d changes read back, want %d", n, bigBlocks+2*bigConversations)
	}
	t.Logf("%d changes, %d names, %d bytes: %.0f allocations to write, %.0f (%d bytes) to read", n, bigNames, len(data), writes, reads, readBytes)
	if writes > 100 {
		t.Errorf("writing %d changes made %.0f allocations", n, writes)
	}
	if reads > bigNames+100 {
		t.Errorf("reading %d changes of %d names made %.0f allocations", n, bigNames, reads)
	}
	if readBytes > 1<<20 {
		t.Errorf("reading %d changes allocated %d bytes", n, readBytes)
	}
}

func BenchmarkWriteSnapshot100k(b *testing.B) {
	_, s := bigRegistry(b)
	folded := []string{"llm_thinking/registries/default/journal/1.json"}
	var size int
	b.ReportAllocs()
	for b.Loop() {
		size = len(s.encodeSnapshot(1, folded))
	}
	b.ReportMetric(float64(size), "file-bytes")
}

func BenchmarkReadSnapshot100k(b *testing.B) {
	_, s := bigRegistry(b)
	data := s.encodeSnapshot(1, nil)
	n := 0
	b.ReportAllocs()
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := readFile(data, func(batch []registry.Change) { n += len(batch) }); err != nil {
			b.Fatal(err)
		}
	}
}
