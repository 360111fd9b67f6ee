package budget

import (
	"context"
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/gctest"
)

func TestBufferSizes(t *testing.T) {
	for _, c := range []struct {
		need int
		size int64
	}{
		{0, 4 << 10}, {1, 4 << 10}, {4<<10 + 1, 8 << 10}, {32 << 10, 32 << 10}, {32<<10 + 1, 64 << 10},
		{1 << 20, 1 << 20}, {1<<20 + 1, 2 << 20}, {4 << 20, 4 << 20},
		{4<<20 + 1, 4<<20 + 8<<10}, {27 << 20, 27 << 20}, {27<<20 + 100, 27<<20 + 8<<10},
	} {
		if got := bufferSize(c.need); got != c.size {
			t.Errorf("bufferSize(%d) = %d, want %d", c.need, got, c.size)
		}
		if k, ok := classOf(int(c.size)); ok != (c.size <= maxCachedBuffer) || ok && int64(minBuffer)<<k != c.size {
			t.Errorf("classOf(%d) = %d, %v", c.size, k, ok)
		}
	}
	for _, c := range []struct {
		capacity int
		charge   int64
	}{{100, 100}, {8 << 10, 8 << 10}, {8<<10 + 1, 16 << 10}, {5 << 20, 5 << 20}} {
		if got := charge(c.capacity); got != c.charge {
			t.Errorf("charge(%d) = %d, want %d", c.capacity, got, c.charge)
		}
	}
}

// TestBudgetLetsAnIdleCacheGo: buffers cached and not taken through two
// garbage collections are let go, as sync.Pool's are; a size in use
// stays.
func TestBudgetLetsAnIdleCacheGo(t *testing.T) {
	b := New(64 << 20)
	tk := b.Ticket(context.Background(), time.Second)
	buf := buffer(t, tk, 1<<20)
	tk.Put(buf)
	buf = nil
	if s := b.Stats(); s.Cached != 1<<20 {
		t.Fatalf("stats %+v, want the buffer cached", s)
	}
	gctest.Until(t, func() bool { return b.Stats().Held == 0 },
		func() string { return fmt.Sprintf("an idle cache still held after 10s: %+v", b.Stats()) })

	// A size taken between every two collections stays; another goes.
	inUse := buffer(t, tk, 64<<10)
	unused := buffer(t, tk, 256<<10)
	tk.Put(inUse)
	tk.Put(unused)
	unused = nil
	deadline := time.Now().Add(10 * time.Second)
	for b.Stats().Held != 64<<10 {
		if time.Now().After(deadline) {
			t.Fatalf("a size no request asks for still held after 10s: %+v", b.Stats())
		}
		buf := buffer(t, tk, 64<<10)
		tk.Put(buf)
		runtime.GC()
		time.Sleep(time.Millisecond)
	}
}
