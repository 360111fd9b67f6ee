package llmthinking

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
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

// taken is the outcome of take.
type taken struct {
	buf []byte
	err error
}

// take asks for a buffer of need bytes for tk in a goroutine, and returns
// a channel that gets the outcome. The caller keeps the buffer reachable:
// collected, it would give its room back.
func take(tk *memoryTicket, need int) chan taken {
	done := make(chan taken, 1)
	go func() {
		buf, err := tk.buffer(need, need, true)
		done <- taken{buf, err}
	}()
	return done
}

// awaitWaiters waits until n requests wait for room in b.
func awaitWaiters(t *testing.T, b *memoryBudget, n int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		b.mu.Lock()
		got := len(b.waiters)
		b.mu.Unlock()
		if got == n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d requests wait for room, want %d", got, n)
		}
		time.Sleep(time.Millisecond)
	}
}

func TestBudgetServesTheOldestRequestFirst(t *testing.T) {
	b := newMemoryBudget(2 << 20)
	ctx := context.Background()
	holder, older, younger := b.ticket(ctx, time.Minute), b.ticket(ctx, time.Minute), b.ticket(ctx, time.Minute)
	held, err := holder.buffer(2<<20, 2<<20, true)
	if err != nil {
		t.Fatal(err)
	}
	fromYounger := take(younger, 1<<20)
	awaitWaiters(t, b, 1)
	fromOlder := take(older, 2<<20)
	awaitWaiters(t, b, 2)
	holder.put(held)
	got := <-fromOlder
	if got.err != nil {
		t.Fatalf("the older request: %v", got.err)
	}
	defer runtime.KeepAlive(got.buf)
	select {
	case got := <-fromYounger:
		t.Fatalf("the younger request was served (%v) while the older one held everything", got.err)
	default:
	}
	if s := b.stats(); s.InUse != 2<<20 || s.Waits != 2 {
		t.Fatalf("stats %+v", s)
	}
}

func TestBudgetWaitIsBounded(t *testing.T) {
	b := newMemoryBudget(1 << 20)
	holder := b.ticket(context.Background(), time.Minute)
	held, err := holder.buffer(1<<20, 1<<20, true)
	if err != nil {
		t.Fatal(err)
	}
	defer runtime.KeepAlive(held) // collected, it would give its room back
	waiter := b.ticket(context.Background(), 20*time.Millisecond)
	if _, err := waiter.buffer(64<<10, 64<<10, true); !errors.Is(err, errOverloaded) {
		t.Fatalf("err = %v, want errOverloaded", err)
	}
	// The wait is bounded in all: the next one fails at once.
	start := time.Now()
	if _, err := waiter.buffer(64<<10, 64<<10, true); !errors.Is(err, errOverloaded) || time.Since(start) > 5*time.Second {
		t.Fatalf("second wait: %v after %v", err, time.Since(start))
	}
	ctx, cancel := context.WithCancel(context.Background())
	gone := b.ticket(ctx, time.Minute)
	done := take(gone, 64<<10)
	awaitWaiters(t, b, 1)
	cancel()
	if got := <-done; !errors.Is(got.err, context.Canceled) {
		t.Fatalf("a client gone: err = %v", got.err)
	}
	if _, err := b.ticket(context.Background(), time.Minute).buffer(64<<10, 64<<10, false); !errors.Is(err, errNoRoom) {
		t.Fatalf("an answer's buffer without room: err = %v", err)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.waiters) != 0 || b.inUse != 1<<20 {
		t.Fatalf("%d waiters, %d in use", len(b.waiters), b.inUse)
	}
}

// TestBudgetYoungestGivesWay: two requests hold half the budget each and
// both wait for more; neither could ever finish, so the younger gives way.
func TestBudgetYoungestGivesWay(t *testing.T) {
	b := newMemoryBudget(2 << 20)
	older, younger := b.ticket(context.Background(), time.Minute), b.ticket(context.Background(), time.Minute)
	var held [][]byte
	for _, tk := range []*memoryTicket{older, younger} {
		buf, err := tk.buffer(1<<20, 1<<20, true)
		if err != nil {
			t.Fatal(err)
		}
		held = append(held, buf)
	}
	defer runtime.KeepAlive(held) // collected, they would give their room back
	fromYounger := take(younger, 1<<20)
	awaitWaiters(t, b, 1)
	fromOlder := take(older, 1<<20)
	if got := <-fromYounger; !errors.Is(got.err, errGaveWay) {
		t.Fatalf("the younger request: %v, want errGaveWay", got.err)
	}
	select {
	case got := <-fromOlder:
		t.Fatalf("the older request was served (%v) before the younger let go", got.err)
	default:
	}
	younger.put(held[1])
	if got := <-fromOlder; got.err != nil {
		t.Fatalf("the older request: %v", got.err)
	}
}

// TestBudgetWaitersGiveWayToOlderOnes: a younger request that waits holding
// bytes gives them to an older one that waits, rather than both waiting
// for a third that holds the rest of the budget.
func TestBudgetWaitersGiveWayToOlderOnes(t *testing.T) {
	b := newMemoryBudget(2 << 20)
	ctx := context.Background()
	holder, older, younger := b.ticket(ctx, time.Minute), b.ticket(ctx, time.Minute), b.ticket(ctx, time.Minute)
	a, err := holder.buffer(1<<20, 1<<20, true)
	if err != nil {
		t.Fatal(err)
	}
	c, err := younger.buffer(512<<10, 512<<10, true)
	if err != nil {
		t.Fatal(err)
	}
	defer runtime.KeepAlive(a)
	fromYounger := take(younger, 1<<20)
	awaitWaiters(t, b, 1)
	fromOlder := take(older, 1<<20)
	if got := <-fromYounger; !errors.Is(got.err, errGaveWay) {
		t.Fatalf("the younger request: %v, want errGaveWay", got.err)
	}
	younger.put(c)
	got := <-fromOlder
	if got.err != nil {
		t.Fatalf("the older request: %v", got.err)
	}
	defer runtime.KeepAlive(got.buf)
	if s := b.stats(); s.InUse != 2<<20 {
		t.Fatalf("stats %+v", s)
	}
}

// TestBudgetCollectsWhatWasLetGo: room taken by buffers let go but not yet
// collected comes back through a collection the waiter makes run.
func TestBudgetCollectsWhatWasLetGo(t *testing.T) {
	b := newMemoryBudget(16 << 20)
	holder := b.ticket(context.Background(), time.Minute)
	buf, err := holder.buffer(12<<20, 12<<20, true) // too large to be cached
	if err != nil {
		t.Fatal(err)
	}
	holder.put(buf)
	buf = nil
	if s := b.stats(); s.Held != 12<<20 || s.InUse != 0 {
		t.Fatalf("after letting go: %+v", s)
	}
	waiter := b.ticket(context.Background(), 10*time.Second)
	if _, err := waiter.buffer(8<<20, 8<<20, true); err != nil {
		t.Fatalf("the waiter: %v", err)
	}
	if s := b.stats(); s.Collections == 0 || s.Waits != 1 || s.InUse != 8<<20 {
		t.Fatalf("stats %+v", s)
	}
}

// TestBudgetUnderContention reads bodies of random sizes, some of them
// trickled, from many clients at once through a small budget, and checks
// what the budget promises: it is never exceeded, every request gets its
// body or a clear refusal, the counts add up, and once every request is
// done nothing is in use and, collected, nothing is held.
func TestBudgetUnderContention(t *testing.T) {
	const clients, rounds, limit = 16, 20, 8 << 20
	b := newMemoryBudget(limit)
	var served, overloaded, gaveWay, beyond atomic.Int64
	var wg sync.WaitGroup
	for c := range clients {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(c), 1))
			for range rounds {
				size := rng.IntN(3 << 20)
				var src io.Reader = strings.NewReader(strings.Repeat("x", size))
				if rng.IntN(4) == 0 {
					src = &slowReader{r: src, piece: 16 << 10}
				}
				r := httptest.NewRequest("POST", "/v1/messages", src)
				if rng.IntN(3) == 0 {
					r.ContentLength = -1
				}
				tk := b.ticket(context.Background(), time.Duration(rng.IntN(200))*time.Millisecond)
				body, err := readBody(r, 32<<20, tk)
				switch {
				case err == nil:
					if len(body.bytes()) != size {
						t.Errorf("read %d bytes of %d", len(body.bytes()), size)
					}
					served.Add(1)
					out, err := copyRoom(tk, len(body.bytes()))
					if err == nil {
						out.set(append(out.room(), body.bytes()...))
						out.close()
					}
					body.close()
				case errors.Is(err, errOverloaded):
					overloaded.Add(1)
				case errors.Is(err, errGaveWay):
					gaveWay.Add(1)
				case errors.Is(err, errBeyondBudget):
					beyond.Add(1)
				default:
					t.Errorf("reading %d bytes: %v", size, err)
				}
			}
		})
	}
	wg.Wait()
	if served.Load()+overloaded.Load()+gaveWay.Load()+beyond.Load() != clients*rounds {
		t.Fatalf("%d served, %d overloaded, %d gave way, %d beyond the budget, of %d",
			served.Load(), overloaded.Load(), gaveWay.Load(), beyond.Load(), clients*rounds)
	}
	if served.Load() == 0 {
		t.Fatal("no request was served")
	}
	s := b.stats()
	if s.InUse != 0 || s.Peak > limit {
		t.Fatalf("after every request: %+v", s)
	}
	b.mu.Lock()
	if len(b.waiters) != 0 || b.givingWay != 0 {
		t.Fatalf("%d waiters, %d bytes giving way", len(b.waiters), b.givingWay)
	}
	b.cache.drain()
	b.mu.Unlock()
	deadline := time.Now().Add(10 * time.Second)
	for b.stats().Held != 0 {
		if time.Now().After(deadline) {
			t.Fatalf("%d bytes still held 10s after everything was let go", b.stats().Held)
		}
		runtime.GC()
		time.Sleep(time.Millisecond)
	}
	t.Logf("%d served, %d overloaded, %d gave way, %d beyond the budget; %d waits, %d collections, peak %d of %d",
		served.Load(), overloaded.Load(), gaveWay.Load(), beyond.Load(), s.Waits, s.Collections, s.Peak, limit)
}

// slowReader reads at most piece bytes at a time, yielding in between.
type slowReader struct {
	r     io.Reader
	piece int
}

func (s *slowReader) Read(p []byte) (int, error) {
	runtime.Gosched()
	return s.r.Read(p[:min(len(p), s.piece)])
}

// BenchmarkBudgetBuffer is what every request pays the budget for its
// buffers in the steady state: one taken from the cache and given back.
func BenchmarkBudgetBuffer(b *testing.B) {
	for _, size := range []int{256 << 10, 1 << 20} {
		b.Run(fmt.Sprint(size>>10, "KiB"), func(b *testing.B) {
			budget := newMemoryBudget(256 << 20)
			b.ReportAllocs()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					tk := budget.ticket(context.Background(), time.Second)
					buf, err := tk.buffer(size, size, true)
					if err != nil {
						b.Fatal(err)
					}
					tk.put(buf)
				}
			})
		})
	}
}

// TestBudgetLetsAnIdleCacheGo: buffers cached and not taken through two
// garbage collections are let go, as sync.Pool's are; a size in use
// stays.
func TestBudgetLetsAnIdleCacheGo(t *testing.T) {
	b := newMemoryBudget(64 << 20)
	tk := b.ticket(context.Background(), time.Second)
	buf, err := tk.buffer(1<<20, 1<<20, true)
	if err != nil {
		t.Fatal(err)
	}
	tk.put(buf)
	buf = nil
	if s := b.stats(); s.Cached != 1<<20 {
		t.Fatalf("stats %+v, want the buffer cached", s)
	}
	deadline := time.Now().Add(10 * time.Second)
	for b.stats().Held != 0 {
		if time.Now().After(deadline) {
			t.Fatalf("an idle cache still held after 10s: %+v", b.stats())
		}
		runtime.GC()
		time.Sleep(time.Millisecond)
	}

	// A size taken between every two collections stays; another goes.
	inUse, err := tk.buffer(64<<10, 64<<10, true)
	if err != nil {
		t.Fatal(err)
	}
	unused, err := tk.buffer(256<<10, 256<<10, true)
	if err != nil {
		t.Fatal(err)
	}
	tk.put(inUse)
	tk.put(unused)
	unused = nil
	deadline = time.Now().Add(10 * time.Second)
	for b.stats().Held != 64<<10 {
		if time.Now().After(deadline) {
			t.Fatalf("a size no request asks for still held after 10s: %+v", b.stats())
		}
		buf, err := tk.buffer(64<<10, 64<<10, true)
		if err != nil {
			t.Fatal(err)
		}
		tk.put(buf)
		runtime.GC()
		time.Sleep(time.Millisecond)
	}
}
