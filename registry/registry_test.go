package registry

import (
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
	"time"
)

// clock is a manual time source for lifecycle tests.
type clock struct{ t time.Time }

func (c *clock) now() time.Time          { return c.t }
func (c *clock) advance(d time.Duration) { c.t = c.t.Add(d) }

func newTestRegistry(t *testing.T, cfg Config) (*Registry, *clock) {
	t.Helper()
	r := New(cfg)
	c := &clock{t: time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC)}
	r.now = c.now
	t.Cleanup(func() { checkInvariants(t, r) })
	return r, c
}

func key(name string) Key { return ThinkingKey(nil, []byte(name)) }

func admit(r *Registry, conv, backend string, track bool, names ...string) Admission {
	keys := make([]Key, len(names))
	for i, n := range names {
		keys[i] = key(n)
	}
	return r.Admit(Request{Conversation: conv, Backend: backend, Keys: keys, Track: track})
}

func known(r *Registry, name string) bool {
	_, ok := r.Origin(key(name))
	return ok
}

func TestObserveThenAdmitReportsOrigins(t *testing.T) {
	r, _ := newTestRegistry(t, Config{})
	r.Observe("s1", "anthropic", key("a1"))
	r.Observe("s1", "glm", key("g1"))

	a := admit(r, "s1", "anthropic", true, "a1", "g1", "unknown")
	want := []string{"anthropic", "glm", ""}
	for i := range want {
		if a.Origins[i] != want[i] {
			t.Fatalf("origins = %q, want %q", a.Origins, want)
		}
	}
	if got := r.Stats(); got != (Stats{Blocks: 2, Confirmed: 2, Conversations: 1}) {
		t.Fatalf("stats = %+v", got)
	}
}

func TestConfirmedBlockDroppedFromHistoryIsForgotten(t *testing.T) {
	r, _ := newTestRegistry(t, Config{})
	r.Observe("s1", "A", key("b1"))
	r.Observe("s1", "A", key("b2"))
	admit(r, "s1", "A", true, "b1", "b2")

	// The client compacted its history: b1 is gone.
	admit(r, "s1", "A", true, "b2")
	if known(r, "b1") {
		t.Fatal("b1 is still known after its conversation stopped replaying it")
	}
	if !known(r, "b2") {
		t.Fatal("b2 was forgotten although it is still replayed")
	}
}

func TestConversationsNeverEvictEachOther(t *testing.T) {
	r, _ := newTestRegistry(t, Config{})
	r.Observe("s1", "A", key("shared"))
	r.Observe("s1", "A", key("own1"))
	admit(r, "s1", "A", true, "shared", "own1")
	// A fork of s1 replays the shared block.
	admit(r, "s2", "A", true, "shared")

	// s2 moves on without it; s1 still holds it.
	r.Observe("s2", "A", key("own2"))
	admit(r, "s2", "A", true, "own2")
	if !known(r, "shared") {
		t.Fatal("s2 evicted a block that s1 still holds")
	}
	// Interleaved requests of s1 never evict s2's blocks either.
	admit(r, "s1", "A", true, "shared", "own1")
	if !known(r, "own2") {
		t.Fatal("s1 evicted s2's block")
	}
	// Once s1 lets go as well, nobody holds it.
	admit(r, "s1", "A", true, "own1")
	if known(r, "shared") {
		t.Fatal("shared block outlived every holder")
	}
}

func TestRequestWithoutThinkingNeverEvicts(t *testing.T) {
	r, c := newTestRegistry(t, Config{OrphanTTL: time.Minute})
	r.Observe("s1", "A", key("held"))
	admit(r, "s1", "A", true, "held")
	r.Observe("s1", "A", key("fresh"))
	c.advance(time.Hour)

	// A title-generation side request: same session, no blocks.
	admit(r, "s1", "A", true)
	if !known(r, "held") || !known(r, "fresh") {
		t.Fatal("a request without thinking evicted blocks")
	}
}

func TestUnconfirmedBlockSurvivesAPause(t *testing.T) {
	r, c := newTestRegistry(t, Config{OrphanTTL: 5 * time.Minute})
	r.Observe("s1", "A", key("latest"))
	// The user goes to lunch; no request of s1 in between.
	c.advance(2 * time.Hour)
	a := admit(r, "s1", "A", true, "latest")
	if a.Origins[0] != "A" {
		t.Fatalf("latest turn's block forgotten after a pause: origin %q", a.Origins[0])
	}
}

func TestOrphanExpiresOnlyWhenItsConversationMovesOn(t *testing.T) {
	r, c := newTestRegistry(t, Config{OrphanTTL: 5 * time.Minute})
	r.Observe("s1", "A", key("held"))
	admit(r, "s1", "A", true, "held")
	r.Observe("s1", "A", key("orphan")) // e.g. a response the client abandoned

	// Young orphans survive a request that does not carry them (a request
	// may have been sent before the response finished).
	admit(r, "s1", "A", true, "held")
	if !known(r, "orphan") {
		t.Fatal("orphan dropped before its TTL")
	}
	// Other conversations never expire it.
	c.advance(10 * time.Minute)
	admit(r, "s2", "A", true, "x")
	if !known(r, "orphan") {
		t.Fatal("another conversation's request expired s1's orphan")
	}
	// Its own conversation moving on without it, after the TTL, does.
	admit(r, "s1", "A", true, "held")
	if known(r, "orphan") {
		t.Fatal("orphan kept after its conversation moved on past the TTL")
	}
	if !known(r, "held") {
		t.Fatal("held block dropped with the orphan")
	}
}

func TestReadOnlyAdmitChangesNothing(t *testing.T) {
	r, c := newTestRegistry(t, Config{OrphanTTL: time.Minute})
	r.Observe("s1", "A", key("b1"))
	admit(r, "s1", "A", true, "b1")
	r.Observe("s1", "A", key("young"))
	c.advance(time.Hour)

	a := admit(r, "s1", "B", false, "other")
	if a.Switched {
		t.Fatal("read-only admission counted a switch")
	}
	if !a.Mixed {
		t.Fatal("read-only admission must still report that s1 was served by another backend")
	}
	if !known(r, "b1") || !known(r, "young") {
		t.Fatal("read-only admission evicted blocks")
	}
	if s := r.Stats(); s.Switches != 0 || s.Confirmed != 1 {
		t.Fatalf("stats after read-only admission = %+v", s)
	}
}

func TestSwitchesAndMixedConversations(t *testing.T) {
	r, _ := newTestRegistry(t, Config{})
	steps := []struct {
		backend      string
		wantMixed    bool
		wantSwitched bool
		wantPrevious string
	}{
		{"A", false, false, ""},
		{"A", false, false, ""},
		{"B", true, true, "A"},
		{"B", true, false, ""},
		{"A", true, true, "B"},
	}
	for i, s := range steps {
		a := admit(r, "s1", s.backend, true)
		if a.Mixed != s.wantMixed || a.Switched != s.wantSwitched || a.Previous != s.wantPrevious {
			t.Fatalf("step %d to %s: got mixed=%v switched=%v previous=%q", i, s.backend, a.Mixed, a.Switched, a.Previous)
		}
	}
	if got := r.Stats().Switches; got != 2 {
		t.Fatalf("switches = %d, want 2", got)
	}
	// Another conversation on B alone is not mixed.
	if a := admit(r, "s2", "B", true); a.Mixed || a.Switched {
		t.Fatalf("fresh conversation reported %+v", a)
	}
}

func TestManyBackendsStayMixed(t *testing.T) {
	r, _ := newTestRegistry(t, Config{})
	for i := range maxSeenBackends + 3 {
		admit(r, "s1", fmt.Sprintf("b%d", i), true)
	}
	if a := admit(r, "s1", "b0", true); !a.Mixed {
		t.Fatal("conversation served by many backends not reported mixed")
	}
}

func TestMaxBlocksBoundsMemory(t *testing.T) {
	r, _ := newTestRegistry(t, Config{MaxBlocks: 3})
	for i := range 10 {
		r.Observe("s1", "A", key(fmt.Sprint(i)))
	}
	if got := r.Stats().Blocks; got != 3 {
		t.Fatalf("blocks = %d, want 3", got)
	}
	for _, n := range []string{"7", "8", "9"} {
		if !known(r, n) {
			t.Fatalf("most recent block %s was evicted", n)
		}
	}
}

func TestConfigureShrinksSurvivingRegistry(t *testing.T) {
	r, _ := newTestRegistry(t, Config{MaxBlocks: 10})
	names := []string{"0", "1", "2", "3", "4", "5"}
	for _, n := range names {
		r.Observe("s1", "A", key(n))
	}
	admit(r, "s1", "A", true, names...)
	r.Configure(Config{MaxBlocks: 2})
	if s := r.Stats(); s.Blocks != 2 || s.Confirmed != 2 {
		t.Fatalf("stats after shrink = %+v", s)
	}
}

func TestEvictedConversationKeepsItsBlocks(t *testing.T) {
	r, _ := newTestRegistry(t, Config{MaxConversations: 2})
	r.Observe("s1", "A", key("b1"))
	admit(r, "s1", "A", true, "b1")
	admit(r, "s2", "A", true)
	admit(r, "s3", "A", true) // pushes s1 out
	if got := r.Stats().Conversations; got != 2 {
		t.Fatalf("conversations = %d, want 2", got)
	}
	if a := admit(r, "s1", "B", true, "b1"); a.Origins[0] != "A" {
		t.Fatalf("block of an evicted conversation lost its origin: %q", a.Origins[0])
	}
}

func TestConcurrentUse(t *testing.T) {
	r, _ := newTestRegistry(t, Config{MaxBlocks: 64, MaxConversations: 8})
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			conv := fmt.Sprintf("s%d", g%4)
			var history []string
			for i := range 200 {
				name := fmt.Sprintf("%d-%d", g, i)
				r.Observe(conv, fmt.Sprint("b", i%3), key(name))
				history = append(history, name)
				if len(history) > 5 {
					history = history[1:]
				}
				admit(r, conv, fmt.Sprint("b", i%3), i%4 != 0, history...)
				r.Stats()
			}
		})
	}
	wg.Wait()
}

// TestRandomOperationsKeepInvariants drives the registry with random
// operations and checks its bookkeeping after each one.
func TestRandomOperationsKeepInvariants(t *testing.T) {
	r, c := newTestRegistry(t, Config{MaxBlocks: 12, MaxConversations: 4, OrphanTTL: time.Minute})
	rng := rand.New(rand.NewPCG(1, 2))
	convs := []string{"", "s1", "s2", "s3", "s4", "s5"}
	backends := []string{"A", "B", "C"}
	for step := range 5000 {
		conv := convs[rng.IntN(len(convs))]
		backend := backends[rng.IntN(len(backends))]
		switch rng.IntN(5) {
		case 0, 1:
			r.Observe(conv, backend, key(fmt.Sprint(rng.IntN(30))))
		case 2, 3:
			var names []string
			for range rng.IntN(6) {
				names = append(names, fmt.Sprint(rng.IntN(30)))
			}
			admit(r, conv, backend, rng.IntN(4) != 0, names...)
		case 4:
			c.advance(time.Duration(rng.IntN(90)) * time.Second)
		}
		if t.Failed() {
			return
		}
		checkInvariantsAt(t, r, step)
	}
}

func checkInvariants(t *testing.T, r *Registry) { checkInvariantsAt(t, r, -1) }

// checkInvariantsAt verifies that the registry's cross references agree:
// holders and held sets mirror each other, owners and pending sets mirror
// each other, and the confirmed count matches.
func checkInvariantsAt(t *testing.T, r *Registry, step int) {
	t.Helper()
	r.mu.Lock()
	defer r.mu.Unlock()
	live := make(map[*conversation]bool)
	for _, id := range r.convs.Keys() {
		c, _ := r.convs.Peek(id)
		live[c] = true
	}
	confirmed := 0
	for _, k := range r.blocks.Keys() {
		e, _ := r.blocks.Peek(k)
		if len(e.holders) > 0 {
			confirmed++
			if e.owner != nil {
				t.Fatalf("step %d: block %v has holders and an owner", step, k)
			}
		}
		for _, h := range e.holders {
			if !live[h] {
				t.Fatalf("step %d: block %v held by an evicted conversation", step, k)
			}
			if _, ok := h.held[k]; !ok {
				t.Fatalf("step %d: block %v lists a holder that does not hold it", step, k)
			}
		}
		if e.owner != nil {
			if !live[e.owner] {
				t.Fatalf("step %d: block %v owned by an evicted conversation", step, k)
			}
			if _, ok := e.owner.pending[k]; !ok {
				t.Fatalf("step %d: block %v names an owner that is not waiting for it", step, k)
			}
		}
	}
	if confirmed != r.confirmed {
		t.Fatalf("step %d: confirmed count %d, entries with holders %d", step, r.confirmed, confirmed)
	}
	for c := range live {
		for k := range c.held {
			e, ok := r.blocks.Peek(k)
			if !ok {
				t.Fatalf("step %d: conversation holds forgotten block %v", step, k)
			}
			found := false
			for _, h := range e.holders {
				found = found || h == c
			}
			if !found {
				t.Fatalf("step %d: conversation holds %v but is not among its holders", step, k)
			}
		}
		for k := range c.pending {
			e, ok := r.blocks.Peek(k)
			if !ok || e.owner != c {
				t.Fatalf("step %d: conversation waits for %v which it does not own", step, k)
			}
		}
	}
}
