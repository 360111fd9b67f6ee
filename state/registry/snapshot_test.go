package registry

import (
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"
)

// snapshot returns every change of a snapshot of r, in one slice.
func snapshot(r *Registry) []Change {
	var all []Change
	r.Snapshot(nil, func(batch []Change) { all = append(all, batch...) })
	return all
}

func TestASnapshotOfManyPagesRebuildsEverything(t *testing.T) {
	const blocks = 3*pageSize + 5
	r, c := newTestRegistry(t, Config{})
	for i := range blocks {
		r.Observe(tid(fmt.Sprint("s", i%7)), []string{"A", "B"}[i%2], key(fmt.Sprint(i)))
		if i%100 == 0 {
			r.Refuse("C", key(fmt.Sprint(i)))
		}
	}
	r.Refuse("C", key("refused, origin unknown"))
	for i := range 7 {
		admit(r, fmt.Sprint("s", i), "A", true)
		c.advance(time.Second)
		admit(r, fmt.Sprint("s", i), "B", true)
	}
	batches := 0
	var all []Change
	r.Snapshot(nil, func(batch []Change) {
		batches++
		all = append(all, batch...)
	})
	if batches < 5 { // four pages of blocks, one of conversations
		t.Fatalf("%d batches, want one per page", batches)
	}

	other, _ := newTestRegistry(t, Config{})
	other.Apply(all)
	for i := range blocks {
		a := admit(other, "", "C", false, fmt.Sprint(i))
		if a.Origins[0] != []string{"A", "B"}[i%2] || a.Refused[0] != (i%100 == 0) {
			t.Fatalf("block %d: origin %q, refused %v", i, a.Origins[0], a.Refused[0])
		}
	}
	if a := admit(other, "", "C", false, "refused, origin unknown"); a.Origins[0] != "" || !a.Refused[0] {
		t.Fatalf("a refusal of a block of unknown origin: %+v", a)
	}
	for i := range 7 {
		if got := other.Last(fmt.Sprint("s", i)); got != "B" {
			t.Fatalf("conversation s%d: last %q, want B", i, got)
		}
		if a := admit(other, fmt.Sprint("s", i), "B", false); !a.Mixed {
			t.Fatalf("conversation s%d forgot it was served by A too", i)
		}
	}
}

// TestSnapshotEmitsOutsideTheLock: a request must never wait for the
// consumer of a snapshot (writing it out), and the consumer may use the
// registry.
func TestSnapshotEmitsOutsideTheLock(t *testing.T) {
	r, _ := newTestRegistry(t, Config{})
	for i := range 2 * pageSize {
		r.Observe(tid("s1"), "A", key(fmt.Sprint(i)))
	}
	r.Served("s1", "A")
	calls := 0
	r.Snapshot(nil, func([]Change) {
		calls++
		if !r.mu.TryLock() {
			t.Fatal("emit was called with the registry locked")
		}
		r.mu.Unlock()
		r.Observe(tid("s2"), "B", key(fmt.Sprint("during ", calls))) // takes the lock
		_ = r.Stats()
	})
	if calls < 3 {
		t.Fatalf("emit called %d times, want one per page", calls)
	}
}

// TestSnapshotRunsAlongsideRequests: blocks learned while a snapshot runs
// may or may not be in it, but every block that stays put is.
func TestSnapshotRunsAlongsideRequests(t *testing.T) {
	r, _ := newTestRegistry(t, Config{})
	const before = 4 * pageSize
	for i := range before {
		r.Observe(tid("s1"), "A", key(fmt.Sprint(i)))
	}
	start := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		<-start
		for i := range 2 * pageSize {
			r.Observe(tid("s2"), "B", key(fmt.Sprint("new ", i)))
			admit(r, "s1", "A", false, fmt.Sprint(i%before)) // moves in recency, not in the slab
		}
	})
	seen := make(map[string]bool)
	first := true
	r.Snapshot(make([]Change, 0, 16), func(batch []Change) {
		if first {
			close(start)
			first = false
		}
		for _, c := range batch {
			if c.Op == Produced {
				seen[string(c.Key[:])] = true
			}
		}
	})
	wg.Wait()
	for i := range before {
		if k := key(fmt.Sprint(i)); !seen[string(k[:])] {
			t.Fatalf("block %d, there all along, is not in the snapshot", i)
		}
	}
}

// TestSnapshotAllocatesNothingPerChange: a snapshot of a full registry
// costs its batch, not a copy of the registry.
func TestSnapshotAllocatesNothingPerChange(t *testing.T) {
	r, _ := newTestRegistry(t, Config{MaxBlocks: 20 * pageSize})
	for i := range 20 * pageSize {
		r.Observe(tid(fmt.Sprint("s", i%50)), []string{"A", "B"}[i%2], key(fmt.Sprint(i)))
	}
	for i := range 50 {
		r.Served(fmt.Sprint("s", i), "A")
	}
	got := snapshot(r)
	if !slices.ContainsFunc(got, func(c Change) bool { return c.Op == Served }) {
		t.Fatal("the snapshot has no conversations")
	}
	buf := make([]Change, 0, 2*pageSize)
	allocs := testing.AllocsPerRun(3, func() {
		r.Snapshot(buf, func([]Change) {})
	})
	if allocs > 0 {
		t.Fatalf("a snapshot of %d changes made %.0f allocations", len(got), allocs)
	}
}

// BenchmarkSnapshot walks a full registry. A request waits at most for one
// page of it (page-ns), where it waited for the whole walk when a snapshot
// held the lock throughout.
func BenchmarkSnapshot(b *testing.B) {
	r, _ := fullRegistry(b)
	buf := make([]Change, 0, 2*pageSize)
	pages := 0
	b.ReportAllocs()
	for b.Loop() {
		pages = 0
		r.Snapshot(buf, func([]Change) { pages++ })
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(pages), "page-ns")
}
