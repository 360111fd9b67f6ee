package budget

import "cmp"

// Lanes keep small requests served while large ones flood the budget. A
// request is small while what it holds, with what it asks for, stays
// within smallHold; small requests may fill the whole budget, large ones
// all of it but a reserve. So a flood of large bodies (or of bodies whose
// translation is large) can take at most seven eighths of the budget, and
// a Claude Code request of a few MiB, arriving meanwhile, finds room at
// once instead of waiting behind the flood. Waiters are served finishing
// requests first (see Ticket.Finishing), then small ones, then large ones,
// oldest first in each lane: a small request never waits behind a large
// one, and among large ones the oldest is served first, so that requests
// of any size get through.
type lane uint8

const (
	finishingLane lane = iota
	smallLane
	largeLane
)

// reserve is the part of the budget that only small requests and
// finishing ones may use: an eighth.
func (b *Budget) reserve() int64 { return b.limit / 8 }

// smallHold is the most a small request holds: a quarter of the reserve,
// so that four fit in it (8 MiB of a 256 MiB budget).
func (b *Budget) smallHold() int64 { return b.reserve() / 4 }

// laneOf returns the lane of t asking for size bytes more. Called with
// b.mu held.
func (b *Budget) laneOf(t *Ticket, size int64) lane {
	switch {
	case t.finishing:
		return finishingLane
	case t.held+size <= b.smallHold():
		return smallLane
	}
	return largeLane
}

// MaxBody returns the largest body the budget can hold with the copy it
// may need: half of what a large request may fill, seven sixteenths of
// the budget (112 MiB of 256 MiB).
func (b *Budget) MaxBody() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.room(largeLane) / 2
}

// room returns how much of the budget requests of lane l may fill.
func (b *Budget) room(l lane) int64 {
	if l == largeLane {
		return b.limit - b.reserve()
	}
	return b.limit
}

// order compares two waiters, or a request about to wait and one that
// waits: the one served first is the lesser.
func order(l1 lane, age1 uint64, l2 lane, age2 uint64) int {
	if c := cmp.Compare(l1, l2); c != 0 {
		return c
	}
	return cmp.Compare(age1, age2)
}

// first reports whether no waiter would be served before t asking in
// lane l. Called with b.mu held.
func (b *Budget) first(t *Ticket, l lane) bool {
	if len(b.waiters) == 0 {
		return true
	}
	w := b.waiters[0]
	return order(l, t.age, w.lane, w.t.age) < 0
}
