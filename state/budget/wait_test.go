package budget

import (
	"context"
	"errors"
	"runtime"
	"testing"
	"time"
)

// taken is the outcome of take.
type taken struct {
	buf []byte
	err error
}

// take asks for a buffer of need bytes for tk in a goroutine, and returns
// a channel that gets the outcome. The caller keeps the buffer reachable:
// collected, it would give its room back.
func take(tk *Ticket, need int) chan taken {
	done := make(chan taken, 1)
	go func() {
		buf, err := tk.Buffer(need, need, true)
		done <- taken{buf, err}
	}()
	return done
}

// buffer takes a buffer of n bytes for tk, waiting for room if need be,
// and fails the test when it gets none.
func buffer(t *testing.T, tk *Ticket, n int) []byte {
	t.Helper()
	buf, err := tk.Buffer(n, n, true)
	if err != nil {
		t.Fatal(err)
	}
	return buf
}

// reserveWaiting asks for n bytes of room for tk in a goroutine, willing
// to wait for it, and returns a channel that gets the outcome.
func reserveWaiting(tk *Ticket, n int64) chan error {
	done := make(chan error, 1)
	go func() { done <- tk.Reserve(n, true) }()
	return done
}

// awaitWaiters waits until n requests wait for room in b.
func awaitWaiters(t *testing.T, b *Budget, n int) {
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
	b := New(8 << 20) // large requests may fill 7 MiB of it
	ctx := context.Background()
	holder, older, younger := b.Ticket(ctx, time.Minute), b.Ticket(ctx, time.Minute), b.Ticket(ctx, time.Minute)
	fill(t, holder, 8<<20)
	fromYounger := take(younger, 4<<20)
	awaitWaiters(t, b, 1)
	fromOlder := take(older, 4<<20)
	awaitWaiters(t, b, 2)
	holder.Unreserve(8 << 20)
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
	if s := b.Stats(); s.InUse != 4<<20 || s.Waits != 2 {
		t.Fatalf("stats %+v", s)
	}
}

// fill has tk, finishing, take n bytes of room at once: a finishing
// request may fill the whole budget.
func fill(t *testing.T, tk *Ticket, n int64) {
	t.Helper()
	tk.Finishing()
	if err := tk.Reserve(n, false); err != nil {
		t.Fatal(err)
	}
}

func TestBudgetWaitIsBounded(t *testing.T) {
	b := New(1 << 20)
	fill(t, b.Ticket(context.Background(), time.Minute), 1<<20)
	waiter := b.Ticket(context.Background(), 20*time.Millisecond)
	if _, err := waiter.Buffer(64<<10, 64<<10, true); !errors.Is(err, ErrOverloaded) {
		t.Fatalf("err = %v, want ErrOverloaded", err)
	}
	// The wait is bounded in all: the next one fails at once.
	if waiter.wait > 0 {
		t.Fatalf("%v of the wait left after it ran out", waiter.wait)
	}
	start := time.Now()
	if _, err := waiter.Buffer(64<<10, 64<<10, true); !errors.Is(err, ErrOverloaded) || time.Since(start) > 5*time.Second {
		t.Fatalf("second wait: %v after %v", err, time.Since(start))
	}
	ctx, cancel := context.WithCancel(context.Background())
	gone := b.Ticket(ctx, time.Minute)
	done := take(gone, 64<<10)
	awaitWaiters(t, b, 1)
	cancel()
	if got := <-done; !errors.Is(got.err, context.Canceled) {
		t.Fatalf("a client gone: err = %v", got.err)
	}
	if _, err := b.Ticket(context.Background(), time.Minute).Buffer(64<<10, 64<<10, false); !errors.Is(err, ErrNoRoom) {
		t.Fatalf("an answer's buffer without room: err = %v", err)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.waiters) != 0 || b.inUse != 1<<20 {
		t.Fatalf("%d waiters, %d in use", len(b.waiters), b.inUse)
	}
}

// TestBudgetYoungestGivesWay: two requests hold what large requests may
// fill, with a third, and both wait for more; neither could ever finish,
// so the younger gives way.
func TestBudgetYoungestGivesWay(t *testing.T) {
	b := New(4 << 20) // large requests may fill 3.5 MiB of it
	older, younger := b.Ticket(context.Background(), time.Minute), b.Ticket(context.Background(), time.Minute)
	fill(t, b.Ticket(context.Background(), time.Minute), 1536<<10)
	var held [][]byte
	for _, tk := range []*Ticket{older, younger} {
		buf := buffer(t, tk, 1<<20)
		held = append(held, buf)
	}
	defer runtime.KeepAlive(held) // collected, they would give their room back
	fromYounger := take(younger, 1<<20)
	awaitWaiters(t, b, 1)
	fromOlder := take(older, 1<<20)
	if got := <-fromYounger; !errors.Is(got.err, ErrGaveWay) {
		t.Fatalf("the younger request: %v, want ErrGaveWay", got.err)
	}
	b.mu.Lock()
	waiting := len(b.waiters) == 1 && b.waiters[0].t == older && older.held == 1<<20
	b.mu.Unlock()
	if !waiting {
		t.Fatal("the older request was served before the younger let go")
	}
	younger.Put(held[1])
	if got := <-fromOlder; got.err != nil {
		t.Fatalf("the older request: %v", got.err)
	}
}

// TestBudgetWaitersGiveWayToOlderOnes: a younger request that waits holding
// bytes gives them to an older one that waits, rather than both waiting
// for a third that holds the rest of the budget.
func TestBudgetWaitersGiveWayToOlderOnes(t *testing.T) {
	b := New(4 << 20) // large requests may fill 3.5 MiB of it
	ctx := context.Background()
	holder, older, younger := b.Ticket(ctx, time.Minute), b.Ticket(ctx, time.Minute), b.Ticket(ctx, time.Minute)
	fill(t, holder, 2560<<10)
	c := buffer(t, younger, 1<<20)
	fromYounger := take(younger, 1<<20)
	awaitWaiters(t, b, 1)
	fromOlder := take(older, 1<<20)
	if got := <-fromYounger; !errors.Is(got.err, ErrGaveWay) {
		t.Fatalf("the younger request: %v, want ErrGaveWay", got.err)
	}
	younger.Put(c)
	got := <-fromOlder
	if got.err != nil {
		t.Fatalf("the older request: %v", got.err)
	}
	defer runtime.KeepAlive(got.buf)
	if s := b.Stats(); s.InUse != 3584<<10 {
		t.Fatalf("stats %+v", s)
	}
}

// TestBudgetGivesRoomBackAtOnce: a buffer given back gives its room back
// at once, cached or not, while it is still reachable (its request
// returning): a request waiting for that room is served then, not once Go
// collects the buffer.
func TestBudgetGivesRoomBackAtOnce(t *testing.T) {
	b := New(16 << 20) // large requests may fill 14 MiB of it
	holder := b.Ticket(context.Background(), time.Minute)
	buf := buffer(t, holder, 12<<20) // too large to be cached
	waiter := b.Ticket(context.Background(), time.Minute)
	got := take(waiter, 8<<20)
	awaitWaiters(t, b, 1)
	holder.Put(buf)
	r := <-got
	if r.err != nil {
		t.Fatalf("the waiter: %v", r.err)
	}
	runtime.KeepAlive(buf) // reachable all along: no collection gave its room back
	if s := b.Stats(); s.Held != 8<<20 || s.InUse != 8<<20 || s.Waits != 1 || s.Collected != 0 {
		t.Fatalf("stats %+v, want the waiter's 8 MiB held alone", s)
	}

	// A buffer cached counts as cached; when a waiter needs its room and
	// cannot use it, it is let go at once.
	small := buffer(t, holder, 1<<20) // the cache keeps up to 2 MiB
	holder.Put(small)
	if s := b.Stats(); s.Held != 9<<20 || s.Cached != 1<<20 || s.InUse != 8<<20 {
		t.Fatalf("stats %+v, want 1 MiB cached beside the 8 in use", s)
	}
	if err := b.Ticket(context.Background(), time.Minute).Reserve(6<<20, true); err != nil {
		t.Fatalf("a reservation the cache was in the way of: %v", err)
	}
	runtime.KeepAlive(small)
	b.mu.Lock()
	defer b.mu.Unlock()
	if held := b.held(); held != 14<<20 || b.cache.bytes != 0 || len(b.leases) != 1 || b.waits.Load() != 2 {
		t.Fatalf("held %d, cached %d, %d buffers leased, %d waits: want 14 MiB held, nothing cached, the waiter's buffer leased",
			held, b.cache.bytes, len(b.leases), b.waits.Load())
	}
}

// TestBudgetReservationWaitsForRoom: room reserved for a copy larger than
// any cached buffer waits as a buffer does, and is served when other room
// reserved is given back, or turns out larger than the copy it was for.
func TestBudgetReservationWaitsForRoom(t *testing.T) {
	b := New(16 << 20)
	ctx := context.Background()
	holder, first, second := b.Ticket(ctx, time.Minute), b.Ticket(ctx, time.Minute), b.Ticket(ctx, time.Minute)
	if err := holder.Reserve(12<<20, true); err != nil {
		t.Fatal(err)
	}
	fromFirst := reserveWaiting(first, 8<<20)
	awaitWaiters(t, b, 1)
	holder.Unreserve(12 << 20)
	if err := <-fromFirst; err != nil {
		t.Fatalf("after room was given back: %v", err)
	}
	fromSecond := reserveWaiting(second, 12<<20)
	awaitWaiters(t, b, 1)
	copied := make([]byte, 0, 1<<20)
	first.Adopt(copied, 8<<20) // the copy took less than was reserved
	if err := <-fromSecond; err != nil {
		t.Fatalf("after a copy took less than its room: %v", err)
	}
	runtime.KeepAlive(copied) // collected, it would give its room back
	if s := b.Stats(); s.InUse != 13<<20 || s.Waits != 2 {
		t.Fatalf("stats %+v, want 13 MiB in use after 2 waits", s)
	}
}

// TestAFinishingRequestGoesFirstAndNeverGivesWay: a request holding its
// upstream's answer waits before older requests still on their way, and
// when room must be made, they give way to it, never it to them.
func TestAFinishingRequestGoesFirstAndNeverGivesWay(t *testing.T) {
	b := New(2 << 20)
	ctx := context.Background()
	holder, older, finishing := b.Ticket(ctx, time.Minute), b.Ticket(ctx, time.Minute), b.Ticket(ctx, time.Minute)
	for _, r := range []struct {
		t *Ticket
		n int64
	}{{holder, 1536 << 10}, {older, 256 << 10}, {finishing, 128 << 10}} {
		if r.t == finishing {
			finishing.Finishing() // past the limit of requests on their way
		}
		if err := r.t.Reserve(r.n, false); err != nil {
			t.Fatal(err)
		}
	}
	fromOlder := reserveWaiting(older, 1<<20)
	awaitWaiters(t, b, 1)
	fromFinishing := reserveWaiting(finishing, 256<<10)
	if err := <-fromOlder; !errors.Is(err, ErrGaveWay) {
		t.Fatalf("the older request on its way: %v, want ErrGaveWay", err)
	}
	older.Unreserve(256 << 10) // its client gets a 529: what it held goes
	if err := <-fromFinishing; err != nil {
		t.Fatalf("the finishing request: %v", err)
	}
	if s := b.Stats(); s.InUse != (1536+128+256)<<10 {
		t.Fatalf("stats %+v", s)
	}
}
