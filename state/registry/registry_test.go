package registry

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/block"
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

// key returns a distinct key per name; the registry never looks inside keys.
func key(name string) block.Key {
	sum := sha256.Sum256([]byte(name))
	return block.Key(sum[:16])
}

// tid is the thread the tests' requests of conv are in: one per scope,
// unless a test says otherwise (see admitThread).
func tid(conv string) ThreadID {
	sum := sha256.Sum256([]byte(conv))
	return ThreadID(binary.LittleEndian.Uint64(sum[:8]) | 1)
}

func admit(r *Registry, conv, backend string, track bool, names ...string) Admission {
	return admitThread(r, conv, tid(conv), backend, track, names...)
}

// admitThread admits a request of thread th in scope conv, starting the
// thread when the request is tracked.
func admitThread(r *Registry, conv string, th ThreadID, backend string, track bool, names ...string) Admission {
	if track {
		r.StartThread(th)
	}
	keys := make([]block.Key, len(names))
	for i, n := range names {
		keys[i] = key(n)
	}
	return r.Admit(Request{Conversation: conv, Thread: th, Backend: backend, Keys: keys, Track: track})
}

// held reports whether some thread holds the block called name.
func held(r *Registry, name string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	at := r.blocks.peek(key(name))
	return at != 0 && r.blocks.holders(at) > 0
}

// released reports whether the registry still knows the block called name
// but nothing holds or owns it.
func released(r *Registry, name string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	at := r.blocks.peek(key(name))
	return at != 0 && r.blocks.holders(at) == 0 && r.blocks.entries.at(at).owner == 0
}

// leastRecent returns the names, among those given, of the blocks at the
// cold end of the registry's recency list, in the order they would be
// forgotten.
func leastRecent(r *Registry, n int) []block.Key {
	r.mu.Lock()
	defer r.mu.Unlock()
	var keys []block.Key
	for at := r.blocks.tail; at != 0 && len(keys) < n; at = r.blocks.entries.at(at).prev {
		keys = append(keys, r.blocks.entries.at(at).key)
	}
	return keys
}

// known reports whether the registry remembers the block called name.
func known(r *Registry, name string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.blocks.peek(key(name)) != 0
}

func TestObserveThenAdmitReportsOrigins(t *testing.T) {
	r, _ := newTestRegistry(t, Config{})
	r.Observe(tid("s1"), "anthropic", key("a1"))
	r.Observe(tid("s1"), "glm", key("g1"))

	a := admit(r, "s1", "anthropic", true, "a1", "g1", "unknown")
	want := []string{"anthropic", "glm", ""}
	for i := range want {
		if a.Origins[i] != want[i] {
			t.Fatalf("origins = %q, want %q", a.Origins, want)
		}
	}
	if got := r.Stats(); got != (Stats{Blocks: 2, Confirmed: 2, Conversations: 1, Threads: 1}) {
		t.Fatalf("stats = %+v", got)
	}
}

func TestBlockDroppedFromItsThreadIsReleased(t *testing.T) {
	r, _ := newTestRegistry(t, Config{MaxBlocks: 3})
	admit(r, "s1", "A", true)
	r.Observe(tid("s1"), "A", key("b1"))
	r.Observe(tid("s1"), "A", key("b2"))
	admit(r, "s1", "A", true, "b1", "b2")

	// The client compacted its history: b1 is gone from the thread.
	admit(r, "s1", "A", true, "b2")
	if !released(r, "b1") || !held(r, "b2") {
		t.Fatalf("b1 released %v, b2 held %v", released(r, "b1"), held(r, "b2"))
	}
	// Released, b1 is still known, as the first block to go.
	if !known(r, "b1") || leastRecent(r, 1)[0] != key("b1") {
		t.Fatal("the released block is not known as the first to go")
	}
	r.Observe(tid("s1"), "A", key("b3"))
	r.Observe(tid("s1"), "A", key("b4"))
	if known(r, "b1") || !known(r, "b2") || !known(r, "b3") || !known(r, "b4") {
		t.Fatal("a full registry did not forget the released block first")
	}
}

func TestConversationsNeverEvictEachOther(t *testing.T) {
	r, _ := newTestRegistry(t, Config{})
	admit(r, "s1", "A", true)
	r.Observe(tid("s1"), "A", key("shared"))
	r.Observe(tid("s1"), "A", key("own1"))
	admit(r, "s1", "A", true, "shared", "own1")
	// A fork of s1 replays the shared block.
	admit(r, "s2", "A", true, "shared")

	// s2 moves on without it; s1 still holds it.
	r.Observe(tid("s2"), "A", key("own2"))
	admit(r, "s2", "A", true, "own2")
	if !held(r, "shared") {
		t.Fatal("s2 released a block that s1 still holds")
	}
	// Interleaved requests of s1 never release s2's blocks either.
	admit(r, "s1", "A", true, "shared", "own1")
	if !held(r, "own2") {
		t.Fatal("s1 released s2's block")
	}
	// Once s1 lets go as well, nobody holds it.
	admit(r, "s1", "A", true, "own1")
	if !released(r, "shared") {
		t.Fatal("shared block still held after every holder let go")
	}
}

func TestThreadsOfOneScopeNeverReleaseEachOthersBlocks(t *testing.T) {
	r, _ := newTestRegistry(t, Config{MaxBlocks: 8})
	// Two conversations of a client that names no session: one scope, two
	// threads, interleaved turn by turn.
	const t1, t2 ThreadID = 1, 2
	var h1, h2 []string
	for turn := range 4 {
		for _, th := range []ThreadID{t1, t2} {
			h := &h1
			if th == t2 {
				h = &h2
			}
			admitThread(r, "", th, "A", true, *h...)
			name := fmt.Sprint(th, "-", turn)
			r.Observe(th, "A", key(name))
			*h = append(*h, name)
		}
	}
	for _, name := range append(h1, h2...) {
		if !known(r, name) {
			t.Fatalf("block %s forgotten", name)
		}
	}
	admitThread(r, "", t1, "A", true, h1...)
	admitThread(r, "", t2, "A", true, h2...)
	for _, name := range append(h1, h2...) {
		if !held(r, name) {
			t.Fatalf("block %s not held by its thread", name)
		}
	}
	if s := r.Stats(); s.Conversations != 1 || s.Threads != 2 || s.Confirmed != 8 {
		t.Fatalf("stats = %+v", s)
	}
}

func TestAnEndedThreadReleasesWhatItHeld(t *testing.T) {
	r, _ := newTestRegistry(t, Config{MaxThreads: 2})
	admitThread(r, "s", 1, "A", true)
	r.Observe(1, "A", key("mine"))
	r.Observe(1, "A", key("waiting"))
	admitThread(r, "s", 1, "A", true, "mine")
	admitThread(r, "s", 2, "A", true, "mine")
	r.Observe(2, "A", key("theirs"))
	admitThread(r, "s", 2, "A", true, "mine", "theirs")

	r.EndThreads(1)
	if !held(r, "mine") || !released(r, "waiting") {
		t.Fatalf("after thread 1 ended: mine held %v, waiting released %v", held(r, "mine"), released(r, "waiting"))
	}
	// Crowded out by newer threads, thread 2 ends too.
	admitThread(r, "s", 3, "A", true)
	admitThread(r, "s", 4, "A", true)
	if s := r.Stats(); s.Threads != 2 || s.Confirmed != 0 || s.Blocks != 3 {
		t.Fatalf("stats = %+v", s)
	}
	if a := admitThread(r, "s", 5, "A", false, "mine", "theirs"); a.Origins[0] != "A" || a.Origins[1] != "A" {
		t.Fatalf("blocks of ended threads lost their origins: %q", a.Origins)
	}
}

// withOldOrphan returns a registry, with an orphan TTL of a minute, an
// hour after s1's request on A brought back the block called held and A
// answered with the block called orphan, which no request has brought yet.
func withOldOrphan(t *testing.T, held, orphan string) *Registry {
	t.Helper()
	r, c := newTestRegistry(t, Config{OrphanTTL: time.Minute})
	r.Observe(tid("s1"), "A", key(held))
	admit(r, "s1", "A", true, held)
	r.Observe(tid("s1"), "A", key(orphan))
	c.advance(time.Hour)
	return r
}

func TestRequestWithoutThinkingNeverEvicts(t *testing.T) {
	r := withOldOrphan(t, "held", "fresh")

	// A title-generation side request: same session, no blocks.
	admit(r, "s1", "A", true)
	if !known(r, "held") || !known(r, "fresh") {
		t.Fatal("a request without thinking evicted blocks")
	}
}

func TestUnconfirmedBlockSurvivesAPause(t *testing.T) {
	r, c := newTestRegistry(t, Config{OrphanTTL: 5 * time.Minute})
	r.Observe(tid("s1"), "A", key("latest"))
	// The user goes to lunch; no request of s1 in between.
	c.advance(2 * time.Hour)
	a := admit(r, "s1", "A", true, "latest")
	if a.Origins[0] != "A" {
		t.Fatalf("latest turn's block forgotten after a pause: origin %q", a.Origins[0])
	}
}

func TestOrphanIsReleasedOnlyWhenItsThreadMovesOn(t *testing.T) {
	r, c := newTestRegistry(t, Config{OrphanTTL: 5 * time.Minute})
	admit(r, "s1", "A", true)
	r.Observe(tid("s1"), "A", key("held"))
	admit(r, "s1", "A", true, "held")
	r.Observe(tid("s1"), "A", key("orphan")) // e.g. a response the client abandoned

	// Young orphans survive a request that does not carry them (a request
	// may have been sent before the response finished).
	admit(r, "s1", "A", true, "held")
	if released(r, "orphan") {
		t.Fatal("orphan released before its TTL")
	}
	// Other conversations never release it.
	c.advance(10 * time.Minute)
	admit(r, "s2", "A", true, "x")
	admitThread(r, "s1", 7, "A", true, "y")
	if released(r, "orphan") {
		t.Fatal("another thread's request released s1's orphan")
	}
	// Its own thread moving on without it, after the TTL, does.
	admit(r, "s1", "A", true, "held")
	if !released(r, "orphan") || !held(r, "held") {
		t.Fatalf("orphan released %v, held block held %v", released(r, "orphan"), held(r, "held"))
	}
	if got := leastRecent(r, 1); got[0] != key("orphan") {
		t.Fatal("the released orphan is not the first block to be forgotten")
	}
}

func TestReadOnlyAdmitChangesNothing(t *testing.T) {
	r := withOldOrphan(t, "b1", "young")

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
		r.Observe(tid("s1"), "A", key(fmt.Sprint(i)))
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
		r.Observe(tid("s1"), "A", key(n))
	}
	admit(r, "s1", "A", true, names...)
	r.Configure(Config{MaxBlocks: 2})
	if s := r.Stats(); s.Blocks != 2 || s.Confirmed != 2 {
		t.Fatalf("stats after shrink = %+v", s)
	}
}

func TestEvictedConversationKeepsItsBlocks(t *testing.T) {
	r, _ := newTestRegistry(t, Config{MaxConversations: 2})
	r.Observe(tid("s1"), "A", key("b1"))
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

// TestConcurrentConversationsLoseNothing runs conversations in parallel,
// each switching between two backends and sharing one block, in a registry
// large enough to evict nothing: every registration must be there at the end
// with its own origin, and the counts must add up.
func TestConcurrentConversationsLoseNothing(t *testing.T) {
	const convs, turns = 8, 100
	r, _ := newTestRegistry(t, Config{})
	r.Observe(tid("seed"), "A", key("shared"))
	var wg sync.WaitGroup
	for g := range convs {
		wg.Go(func() {
			conv := fmt.Sprintf("s%d", g)
			history := []string{"shared"}
			for i := range turns {
				backend := []string{"A", "B"}[i/10%2]
				name := fmt.Sprintf("%d-%d", g, i)
				admit(r, conv, backend, true, history...)
				r.Observe(tid(conv), backend, key(name))
				history = append(history, name)
			}
			admit(r, conv, "A", true, history...)
		})
	}
	wg.Wait()

	// Every conversation switched at turns 10, 20, ..., 90, and back to A
	// at the end unless it already was there.
	want := Stats{Blocks: convs*turns + 1, Confirmed: convs*turns + 1, Conversations: convs, Threads: convs, Switches: convs * 10}
	if got := r.Stats(); got != want {
		t.Fatalf("stats = %+v, want %+v", got, want)
	}
	for g := range convs {
		names := []string{"shared"}
		for i := range turns {
			names = append(names, fmt.Sprintf("%d-%d", g, i))
		}
		a := admit(r, "reader", "A", false, names...)
		for i, origin := range a.Origins {
			want := "A"
			if i > 0 {
				want = []string{"A", "B"}[(i-1)/10%2]
			}
			if origin != want {
				t.Fatalf("block %s has origin %q, want %q", names[i], origin, want)
			}
		}
	}
	r.mu.Lock()
	holders := r.blocks.holders(r.blocks.peek(key("shared")))
	r.mu.Unlock()
	if holders != convs {
		t.Fatalf("the shared block has %d holders, want %d", holders, convs)
	}
}

// TestConcurrentUseUnderEviction runs the same kind of load in a registry
// far too small for it, so that evictions race with every operation; the
// cross references must still agree afterwards (checked at cleanup) and the
// bounds must hold.
func TestConcurrentUseUnderEviction(t *testing.T) {
	r, _ := newTestRegistry(t, Config{MaxBlocks: 64, MaxConversations: 8})
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			conv := fmt.Sprintf("s%d", g%4)
			var history []string
			for i := range 200 {
				name := fmt.Sprintf("%d-%d", g, i)
				r.Observe(tid(conv), fmt.Sprint("b", i%3), key(name))
				history = append(history, name)
				if len(history) > 5 {
					history = history[1:]
				}
				admit(r, conv, fmt.Sprint("b", i%3), i%4 != 0, history...)
			}
		})
	}
	wg.Wait()
	if s := r.Stats(); s.Blocks > 64 || s.Conversations > 8 || s.Confirmed+s.Unconfirmed != s.Blocks {
		t.Fatalf("stats out of bounds: %+v", s)
	}
}

// TestRandomOperationsKeepInvariants drives the registry with random
// operations and checks its bookkeeping after each one.
func TestRandomOperationsKeepInvariants(t *testing.T) {
	r, c := newTestRegistry(t, Config{MaxBlocks: 12, MaxConversations: 4, MaxThreads: 5, OrphanTTL: time.Minute})
	rng := rand.New(rand.NewPCG(1, 2))
	convs := []string{"", "s1", "s2", "s3", "s4", "s5"}
	backends := []string{"A", "B", "C"}
	for step := range 5000 {
		conv := convs[rng.IntN(len(convs))]
		th := ThreadID(rng.IntN(8) + 1)
		backend := backends[rng.IntN(len(backends))]
		switch rng.IntN(6) {
		case 0, 1:
			r.Observe(th, backend, key(fmt.Sprint(rng.IntN(30))))
		case 2, 3:
			var names []string
			for range rng.IntN(6) {
				names = append(names, fmt.Sprint(rng.IntN(30)))
			}
			admitThread(r, conv, th, backend, rng.IntN(4) != 0, names...)
		case 4:
			c.advance(time.Duration(rng.IntN(90)) * time.Second)
		case 5:
			r.EndThreads(th)
		}
		if t.Failed() {
			return
		}
		checkInvariantsAt(t, r, step)
	}
}

func checkInvariants(t *testing.T, r *Registry) { checkInvariantsAt(t, r, -1) }

// checkInvariantsAt verifies that the registry's cross references agree:
// the recency list and the index hold the same entries, every holder and
// owner is a live thread that knows the block (in its latest request, or
// among those it waits for), the confirmed count matches, and every scope
// and thread is in its slot.
func checkInvariantsAt(t *testing.T, r *Registry, step int) {
	t.Helper()
	r.mu.Lock()
	defer r.mu.Unlock()
	live := make(map[holderID]*thread)
	for _, id := range r.threads.Keys() {
		c, _ := r.threads.Peek(id)
		if r.holders.at(c.holder) != c {
			t.Fatalf("step %d: thread %d is not in its slot", step, id)
		}
		live[c.holder] = c
	}
	for _, name := range r.scopes.Keys() {
		if s, _ := r.scopes.Peek(name); r.scopeIDs.at(s.id) != s {
			t.Fatalf("step %d: scope %q is not in its slot", step, name)
		}
	}
	listed, confirmed := 0, 0
	var prev slot
	for at := r.blocks.head; at != 0; at = r.blocks.entries.at(at).next {
		e := *r.blocks.entries.at(at)
		listed++
		if e.prev != prev || r.blocks.peek(e.key) != at {
			t.Fatalf("step %d: recency list and index disagree at slot %d", step, at)
		}
		prev = at
		if r.blocks.holders(at) > 0 {
			confirmed++
			if e.owner != 0 {
				t.Fatalf("step %d: block %v has holders and an owner", step, e.key)
			}
		}
		r.blocks.eachHolder(at, func(h holderID) {
			c := live[h]
			if c == nil {
				t.Fatalf("step %d: block %v held by a thread that is gone", step, e.key)
			}
			if !slices.Contains(c.replayed, e.key) {
				t.Fatalf("step %d: block %v held by a thread that did not replay it", step, e.key)
			}
		})
		if e.owner != 0 {
			c := live[e.owner]
			if c == nil {
				t.Fatalf("step %d: block %v owned by a thread that is gone", step, e.key)
			}
			if !slices.Contains(waitingFor(r, c), at) {
				t.Fatalf("step %d: block %v names an owner that is not waiting for it", step, e.key)
			}
		}
	}
	if listed != r.blocks.len() || prev != r.blocks.tail || listed > r.blocks.max {
		t.Fatalf("step %d: %d listed, %d indexed, bound %d", step, listed, r.blocks.len(), r.blocks.max)
	}
	if confirmed != r.confirmed {
		t.Fatalf("step %d: confirmed count %d, entries with holders %d", step, r.confirmed, confirmed)
	}
	for _, c := range live {
		for _, at := range waitingFor(r, c) {
			if e := *r.blocks.entries.at(at); r.blocks.peek(e.key) != at || e.owner != c.holder {
				t.Fatalf("step %d: thread waits for %v which it does not own", step, e.key)
			}
		}
	}
}

// waitingFor returns the blocks c waits for, checking the links both ways.
func waitingFor(r *Registry, c *thread) []slot {
	var out []slot
	var prev slot
	for at := c.waiting; at != 0; at = r.blocks.entries.at(at).waitNext {
		if r.blocks.entries.at(at).waitPrev != prev || len(out) > r.blocks.len() {
			panic("waiting list broken")
		}
		out = append(out, at)
		prev = at
	}
	return out
}

// TestQuickAdvanceMatchesTheFullOne runs conversations whose histories
// grow (now and then compacted, now and then refused) through two
// registries, one of which must take the full path and the index every
// time: admissions, blocks, recency, holders and counts must agree.
func TestQuickAdvanceMatchesTheFullOne(t *testing.T) {
	quick, qc := newTestRegistry(t, Config{MaxBlocks: 40, OrphanTTL: time.Minute})
	full, fc := newTestRegistry(t, Config{MaxBlocks: 40, OrphanTTL: time.Minute})
	rng := rand.New(rand.NewPCG(3, 4))
	histories := map[string][]string{}
	next := 0
	for step := range 4000 {
		conv := fmt.Sprint("s", rng.IntN(4))
		backend := []string{"A", "B"}[rng.IntN(2)]
		switch op := rng.IntN(10); {
		case op < 4: // a reply
			name := fmt.Sprint(next)
			next++
			quick.Observe(tid(conv), backend, key(name))
			full.Observe(tid(conv), backend, key(name))
			histories[conv] = append(histories[conv], name)
		case op < 8: // the next request replays the history
			q := admit(quick, conv, backend, true, histories[conv]...)
			full.mu.Lock()
			if c, ok := full.threads.Peek(tid(conv)); ok {
				c.evicted++ // no shortcut
				c.slots = nil
			}
			full.mu.Unlock()
			f := admit(full, conv, backend, true, histories[conv]...)
			if !slices.Equal(q.Origins, f.Origins) || !slices.Equal(q.Refused, f.Refused) {
				t.Fatalf("step %d: admissions differ: quick %q %v, full %q %v", step, q.Origins, q.Refused, f.Origins, f.Refused)
			}
		case op == 8 && rng.IntN(3) == 0: // a backend refuses a block
			if h := histories[conv]; len(h) > 0 {
				k := key(h[rng.IntN(len(h))])
				quick.Refuse(backend, k)
				full.Refuse(backend, k)
			}
		case op == 8: // compaction drops the oldest blocks
			if h := histories[conv]; len(h) > 2 {
				histories[conv] = h[len(h)/2:]
			}
		default:
			d := time.Duration(rng.IntN(90)) * time.Second
			qc.advance(d)
			fc.advance(d)
		}
		if q, f := quick.Stats(), full.Stats(); q != f {
			t.Fatalf("step %d: stats differ: quick %+v, full %+v", step, q, f)
		}
		checkInvariantsAt(t, quick, step)
		if q, f := recency(quick), recency(full); !slices.Equal(q, f) {
			t.Fatalf("step %d: recency differs:\nquick %v\nfull  %v", step, q, f)
		}
		for conv := range histories {
			if q, f := heldBy(quick, conv), heldBy(full, conv); q != f {
				t.Fatalf("step %d: %s holds %d blocks quick, %d full", step, conv, q, f)
			}
		}
	}
}

// recency returns the registry's keys, most recently used first.
func recency(r *Registry) []block.Key {
	r.mu.Lock()
	defer r.mu.Unlock()
	var keys []block.Key
	for at := r.blocks.head; at != 0; at = r.blocks.entries.at(at).next {
		keys = append(keys, r.blocks.entries.at(at).key)
	}
	return keys
}

func heldBy(r *Registry, conv string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	c, ok := r.threads.Peek(tid(conv))
	if !ok {
		return -1
	}
	n := 0
	for at := r.blocks.head; at != 0; at = r.blocks.entries.at(at).next {
		if r.blocks.holds(at, c.holder) {
			n++
		}
	}
	return n
}

// TestAThreadHoldsABlockThatCameBackWhereItWas: a block a thread replayed,
// forgotten by a full registry and learned again in the slot it had (the
// free list gives the last slot freed first), is held by the thread's next
// request: advance must not take the slot for one the thread still holds.
func TestAThreadHoldsABlockThatCameBackWhereItWas(t *testing.T) {
	r, _ := newTestRegistry(t, Config{MaxBlocks: 4, OrphanTTL: time.Minute})
	r.Observe(tid("c"), "A", key("k"))
	admit(r, "c", "A", true, "k")
	r.Observe(tid("d"), "B", key("a"))
	r.Observe(tid("d"), "B", key("b"))
	r.Configure(Config{MaxBlocks: 2, OrphanTTL: time.Minute}) // k, least recently used, goes
	if got := admit(r, "x", "A", false, "k"); got.Origins[0] != "" {
		t.Fatalf("k still known to come from %q", got.Origins[0])
	}
	r.Configure(Config{MaxBlocks: 3, OrphanTTL: time.Minute})
	r.Observe(tid("e"), "A", key("k"))
	admit(r, "c", "A", true, "k", "k2")
	if n := heldBy(r, "c"); n != 1 {
		t.Fatalf("thread c holds %d blocks, want k", n)
	}
	checkInvariantsAt(t, r, 0)
}

// A thread's next request does not look for the blocks its last request
// replayed that the registry did not know, unless the registry learned
// them since: one learned in between, from any thread or none, is found,
// whether few keys were learned since or more than the registry remembers
// the latest of, and so is a known block sent where an unknown one was.
func TestAThreadFindsWhatWasLearnedSinceItsLastRequest(t *testing.T) {
	r, _ := newTestRegistry(t, Config{})
	r.Observe(tid("other"), "glm", key("g"))
	origins := func(a Admission) []string { return slices.Clone(a.Origins) }
	if got := origins(admit(r, "c", "A", true, "u1", "u2", "u3", "u4")); !slices.Equal(got, []string{"", "", "", ""}) {
		t.Fatalf("origins = %q, want none known", got)
	}
	r.Observe(tid("other"), "glm", key("g")) // known already: nothing learned
	if got := origins(admit(r, "c", "A", true, "u1", "g", "u3", "u4")); !slices.Equal(got, []string{"", "glm", "", ""}) {
		t.Fatalf("with g where u2 was: origins = %q", got)
	}
	r.Observe(tid("other"), "glm", key("new1"))
	r.Observe(tid("other"), "B", key("u3"))
	r.Observe(tid("other"), "glm", key("new2"))
	if got := origins(admit(r, "c", "A", true, "u1", "g", "u3", "u4")); !slices.Equal(got, []string{"", "glm", "B", ""}) {
		t.Fatalf("after u3 was learned in another thread: origins = %q", got)
	}
	r.Observe(0, "B", key("u1"))
	for i := range recentKeys {
		r.Observe(0, "glm", key(fmt.Sprint("more", i)))
	}
	if got := origins(admit(r, "c", "A", true, "u1", "g", "u3", "u4")); !slices.Equal(got, []string{"B", "glm", "B", ""}) {
		t.Fatalf("after u1 and %d more were learned: origins = %q", recentKeys, got)
	}
}
