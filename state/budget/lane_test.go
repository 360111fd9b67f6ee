package budget

import (
	"context"
	"errors"
	"testing"
	"time"
)

// TestSmallRequestsAreServedWhileLargeOnesFlood: large requests fill
// what they may of the budget and wait for more; a small request finds
// room at once in the reserve, and one that must wait goes before them,
// and they give way to it.
func TestSmallRequestsAreServedWhileLargeOnesFlood(t *testing.T) {
	b := New(8 << 20) // large requests may fill 7 MiB; small ones hold 256 KiB at most
	ctx := context.Background()
	flood := []*Ticket{b.Ticket(ctx, time.Minute), b.Ticket(ctx, time.Minute)}
	for _, tk := range flood {
		if err := tk.Reserve(3584<<10, false); err != nil {
			t.Fatal(err)
		}
	}
	if err := flood[0].Reserve(64<<10, false); !errors.Is(err, ErrNoRoom) {
		t.Fatalf("a large request took room past its lane: %v", err)
	}
	waiting := make(chan error, 1)
	go func() { waiting <- flood[1].Reserve(1<<20, true) }()
	awaitWaiters(t, b, 1)

	// A small request, younger than the waiting flood, gets room at once.
	small := b.Ticket(ctx, time.Minute)
	if err := small.Reserve(128<<10, false); err != nil {
		t.Fatalf("a small request during the flood: %v", err)
	}
	// Three more fill the reserve.
	if err := b.Ticket(ctx, time.Minute).Reserve(256<<10, false); err != nil {
		t.Fatal(err)
	}
	if err := b.Ticket(ctx, time.Minute).Reserve(256<<10, false); err != nil {
		t.Fatal(err)
	}
	if err := b.Ticket(ctx, time.Minute).Reserve(256<<10, false); err != nil {
		t.Fatal(err)
	}
	third := b.Ticket(ctx, time.Minute)
	fromThird := make(chan error, 1)
	go func() { fromThird <- third.Reserve(256<<10, true) }()
	// It goes before the flood, and the flood's waiter, which holds what
	// it cannot use while it waits, gives way to it.
	if err := <-waiting; !errors.Is(err, ErrGaveWay) {
		t.Fatalf("the waiting flood request: %v, want ErrGaveWay", err)
	}
	flood[1].Unreserve(3584 << 10) // its client gets a 529
	if err := <-fromThird; err != nil {
		t.Fatalf("the small request that waited: %v", err)
	}
	if s := b.Stats(); s.InUse != (3584+128+4*256)<<10 {
		t.Fatalf("stats %+v", s)
	}
}

// TestMaxBody: a body and its copy fit what a large request may fill.
func TestMaxBody(t *testing.T) {
	b := New(256 << 20)
	if got := b.MaxBody(); got != 112<<20 {
		t.Fatalf("MaxBody %d, want 112 MiB", got)
	}
}
