package budget

import (
	"context"
	"runtime"
	"testing"
	"time"
)

// TestTicketTakesALargerCachedBufferWithoutRoom: with room, a request gets
// a buffer of its size, even with a larger one cached; with no room left,
// it (an answer, which never waits) gets that larger buffer rather than
// none.
func TestTicketTakesALargerCachedBufferWithoutRoom(t *testing.T) {
	b := New(8 << 20) // which caches up to 1 MiB
	hog := b.Ticket(context.Background(), time.Second)
	large, err := hog.Buffer(1<<20, 1<<20, false)
	if err != nil {
		t.Fatal(err)
	}
	hog.Put(large)
	answer := b.Ticket(context.Background(), 0)
	first, err := answer.Buffer(64<<10, 64<<10, false)
	if err != nil || cap(first) != 64<<10 {
		t.Fatalf("with room: cap %d, %v; want a 64 KiB buffer", cap(first), err)
	}
	s := b.Stats()
	fill(t, hog, s.Budget-s.Held)
	second, err := answer.Buffer(64<<10, 64<<10, false)
	if err != nil || cap(second) != 1<<20 {
		t.Fatalf("without room: cap %d, %v; want the cached 1 MiB buffer", cap(second), err)
	}
	runtime.KeepAlive([][]byte{first, second})
}
