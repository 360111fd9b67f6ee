package budget

import (
	"context"
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/gctest"
)

// TestABufferNobodyGaveBackComesBackWhenCollected: a request that drops a
// buffer without giving it back holds its room until Go collects it; then
// the room comes back, counted as collected, and a waiter gets it.
func TestABufferNobodyGaveBackComesBackWhenCollected(t *testing.T) {
	b := New(16 << 20)
	dropper := b.Ticket(context.Background(), time.Minute)
	buffer(t, dropper, 12<<20) // dropped, never given back
	if s := b.Stats(); s.Held != 12<<20 || s.InUse != 12<<20 {
		t.Fatalf("stats %+v, want the dropped buffer held until collected", s)
	}
	gctest.Until(t, func() bool { return b.Stats().Held == 0 },
		func() string { return fmt.Sprintf("a dropped buffer still held 10s on: %+v", b.Stats()) })
	b.mu.Lock()
	held, leases := dropper.held, len(b.leases)
	b.mu.Unlock()
	if s := b.Stats(); s.InUse != 0 || s.Collected != 1 || held != 0 || leases != 0 {
		t.Fatalf("stats %+v, the request holds %d, %d buffers leased: want nothing, one collected", s, held, leases)
	}
	got, err := b.Ticket(context.Background(), time.Second).Buffer(12<<20, 12<<20, true)
	if err != nil {
		t.Fatalf("after the dropped buffer was collected: %v", err)
	}
	runtime.KeepAlive(got)
}

// TestAGivenBackBufferIsNotCountedTwice: the cleanup of a buffer given
// back, cached or let go, gives nothing back should it run late (its
// buffer collected before the cleanup was stopped); nor does that of an
// old buffer whose address a new one took, for the new one.
func TestAGivenBackBufferIsNotCountedTwice(t *testing.T) {
	b := New(64 << 20)
	tk := b.Ticket(context.Background(), time.Minute)
	cached := buffer(t, tk, 1<<20)
	letGo := buffer(t, tk, 8<<20) // too large to be cached
	kept := buffer(t, tk, 2<<20)
	b.mu.Lock()
	cachedLease, letGoLease, keptLease := b.leases[addressOf(cached)], b.leases[addressOf(letGo)], b.leases[addressOf(kept)]
	b.mu.Unlock()
	tk.Put(cached)
	tk.Put(letGo)
	tk.Put(letGo) // twice: a bug, which must not give room back twice
	want := Stats{Budget: 64 << 20, Held: 3 << 20, InUse: 2 << 20, Cached: 1 << 20, Peak: 11 << 20}
	if s := b.Stats(); s != want {
		t.Fatalf("stats %+v, want %+v", s, want)
	}
	b.freed(cachedLease)
	b.freed(letGoLease)
	// A new buffer at the address of the one let go, before its cleanup ran.
	b.mu.Lock()
	keptLease.at = letGoLease.at
	b.leases[letGoLease.at] = keptLease
	delete(b.leases, addressOf(kept))
	b.mu.Unlock()
	b.freed(letGoLease)
	b.mu.Lock()
	newKept := b.leases[letGoLease.at] == keptLease
	b.mu.Unlock()
	if s := b.Stats(); s != want || !newKept {
		t.Fatalf("stats %+v after late cleanups, want %+v; the new buffer's lease kept: %v", s, want, newKept)
	}
	runtime.KeepAlive([][]byte{cached, letGo, kept})
}
