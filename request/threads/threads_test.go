package threads

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/request/thinking"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/state/registry"
)

// chat is a conversation as a client like Claude Code sends it: the whole
// history every time, each answer appended as it came back.
type chat struct {
	scope string
	msgs  []string
}

func newChat(scope, first string) *chat {
	return &chat{scope: scope, msgs: []string{fmt.Sprintf(`{"role":"user","content":[{"type":"text","text":%q}]}`, first)}}
}

func (c *chat) body() []byte {
	return []byte(`{"model":"claude-sonnet-4-5","messages":[` + strings.Join(c.msgs, ",") +
		`],"thinking":{"type":"enabled","budget_tokens":2000},"stream":true}`)
}

// answer appends an answer with a thinking block signed sig and the
// user's next words.
func (c *chat) answer(sig string) {
	c.msgs = append(c.msgs, `{"role":"assistant","content":[{"type":"thinking","thinking":"","signature":"`+sig+`"},{"type":"text","text":"x"}]}`,
		`{"role":"user","content":[{"type":"text","text":"go on"}]}`)
}

// read reads a request of c as the policy plans one: found against the
// set, settled, its checkpoint kept. It returns its thread and how many
// messages it took from a checkpoint.
func read(t testing.TB, ts *Set, c *chat) (registry.ThreadID, int) {
	t.Helper()
	m := NewMatch(c.scope)
	r, err := thinking.Resume(c.body(), func(body []byte, o thinking.Opening) thinking.From { return ts.Find(m, body, o) })
	if err != nil {
		ts.Keep(m, nil)
		t.Fatal(err)
	}
	defer r.Release()
	id := ts.Settle(m, c.scope, r.Messages(), r.History(), true)
	ts.Keep(m, r.Save)
	return id, r.Restored()
}

// checkCounts fails unless what the set counts adds up: the bytes of
// every thread, each its history and checkpoint, the index and the lists
// holding the same threads, and the lifecycle told of as many.
func checkCounts(t *testing.T, ts *Set, reg *registry.Registry) {
	t.Helper()
	ts.mu.Lock()
	defer ts.mu.Unlock()
	sum, n := 0, 0
	for x := ts.all.head; x != nil; x = x.links[0].next {
		n++
		sum += x.size
		cp := 0
		if x.held != nil {
			cp = x.held.size
		}
		if x.size != x.hist.Size()+cp || x.gone || ts.byID[x.id] != x {
			t.Fatalf("thread %d: size %d, history %d, checkpoint %d, gone %v", x.id, x.size, x.hist.Size(), cp, x.gone)
		}
	}
	indexed := 0
	for _, list := range ts.index {
		indexed += len(list)
	}
	scoped := 0
	for _, s := range ts.scopes {
		scoped += s.n
	}
	if sum != ts.bytes || n != ts.all.n || n != len(ts.byID) || n != indexed || n != scoped {
		t.Fatalf("bytes %d counted, %d held; threads %d listed, %d counted, %d by id, %d indexed, %d in scopes",
			ts.bytes, sum, n, ts.all.n, len(ts.byID), indexed, scoped)
	}
	if s := reg.Stats(); s.Threads != n {
		t.Fatalf("the registry tracks %d threads, the set %d", s.Threads, n)
	}
}

func TestASetIsBounded(t *testing.T) {
	limits := Limits{PerScope: 3, Max: 5, Budget: 1 << 20}
	reg := registry.New(registry.Config{})
	ts := New(limits, reg)
	for i := range 8 {
		c := newChat(fmt.Sprint("s", i%2), fmt.Sprint("task ", i))
		for j := range 3 {
			read(t, ts, c)
			c.answer(fmt.Sprint(i, "-", j))
		}
		if n, bytes := ts.Len(); n > limits.Max || bytes > limits.Budget {
			t.Fatalf("%d threads holding %d bytes, beyond %+v", n, bytes, limits)
		}
		checkCounts(t, ts, reg)
	}
	// The budget bounds memory whatever the bodies.
	reg = registry.New(registry.Config{})
	small := New(Limits{Budget: 4 << 10}, reg)
	for i := range 20 {
		c := newChat("", fmt.Sprint("task ", i))
		for j := range 4 {
			read(t, small, c)
			c.answer(fmt.Sprint(i, "-", j))
		}
		if _, bytes := small.Len(); bytes > 4<<10 {
			t.Fatalf("threads hold %d bytes, beyond a budget of 4 KiB", bytes)
		}
		checkCounts(t, small, reg)
	}
}

// TestConcurrentReadsKeepTheCounts: conversations that start alike, read
// in parallel with limits small enough to forget threads as they go.
func TestConcurrentReadsKeepTheCounts(t *testing.T) {
	reg := registry.New(registry.Config{})
	ts := New(Limits{PerScope: 6, Max: 6}, reg)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			c := newChat("", fmt.Sprint("task ", g%2))
			for i := range 30 {
				read(t, ts, c)
				c.answer(fmt.Sprint(g, "-", i))
			}
		})
	}
	wg.Wait()
	checkCounts(t, ts, reg)
	if n, _ := ts.Len(); n > 6 {
		t.Fatalf("%d threads", n)
	}
}

// TestRequestsAtOnceShareACheckpoint: clients that send the same history
// at the same time (several workers of one app, retries) all read it from
// the thread's checkpoint, in that thread.
func TestRequestsAtOnceShareACheckpoint(t *testing.T) {
	reg := registry.New(registry.Config{})
	ts := New(Limits{}, reg)
	c := newChat("", "the same task")
	for i := range 3 {
		read(t, ts, c)
		c.answer(fmt.Sprint("a", i))
	}
	first, _ := read(t, ts, c)
	var wg sync.WaitGroup
	restored := make([]int, 8)
	for i := range restored {
		wg.Go(func() {
			var id registry.ThreadID
			id, restored[i] = read(t, ts, c)
			if id != first {
				t.Errorf("request %d is in thread %d, want %d", i, id, first)
			}
		})
	}
	wg.Wait()
	for i, n := range restored {
		if n != len(c.msgs) {
			t.Errorf("request %d read %d of %d messages from the checkpoint", i, n, len(c.msgs))
		}
	}
	checkCounts(t, ts, reg)
}
