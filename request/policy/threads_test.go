package policy

import (
	"fmt"
	"math/rand/v2"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/block"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/request/thinking"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/request/threads"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/state/registry"
)

// chat is one conversation as a client like Claude Code sends it: the whole
// history every time, the last message marked for caching (so it changes
// on the next request), each answer appended as it came back.
type chat struct {
	header http.Header
	msgs   []string // every message but the last, as sent
	last   string   // the last message, without its cache mark
	own    map[string][]block.Key
	// wanted are the blocks of the backend of the latest turn from before
	// it: those it must have got back.
	wanted []block.Key
}

func newChat(header http.Header, first string) *chat {
	if header == nil {
		header = http.Header{}
	}
	return &chat{header: header, last: userMessage(first), own: map[string][]block.Key{}}
}

func userMessage(text string) string {
	return fmt.Sprintf(`{"role":"user","content":[{"type":"text","text":%q}]}`, text)
}

// body is the chat's next request.
func (c *chat) body() []byte {
	marked := strings.TrimSuffix(c.last, "}]}") + `,"cache_control":{"type":"ephemeral"}}]}`
	msgs := append(append([]string(nil), c.msgs...), marked)
	return []byte(`{"model":"claude-sonnet-4-5","messages":[` + strings.Join(msgs, ",") +
		`],"system":[{"type":"text","text":"You are a coding agent."}],"thinking":{"type":"enabled","budget_tokens":2000},"stream":true}`)
}

// turn plans the chat's next request for backend, then has backend answer
// it with a thinking block signed sig and a tool call, and the client reply
// with the tool's result. It returns the plan.
func (c *chat) turn(t testing.TB, p *Policy, backend, sig string) Plan {
	t.Helper()
	pl := p.Plan(Request{Body: c.body(), Header: c.header, Backend: backend})
	if pl.Passthrough != nil {
		t.Fatal(pl.Passthrough)
	}
	k := keyOf(sig)
	p.Register(pl.Thread, backend, "claude-sonnet-4-5", []block.Observed{{Kind: block.Thinking, Key: k}})
	c.wanted = append([]block.Key(nil), c.own[backend]...)
	c.own[backend] = append(c.own[backend], k)
	c.msgs = append(c.msgs, c.last, `{"role":"assistant","content":[`+thinkingBlock(sig)+
		`,{"type":"tool_use","id":"t-`+sig+`","name":"Read","input":{}}]}`)
	c.last = `{"role":"user","content":[{"type":"tool_result","tool_use_id":"t-` + sig + `","content":"ok"}]}`
	return pl
}

// turns has the chat take n turns on "anthropic", its blocks signed a0,
// a1 and on, and returns the plan of the last.
func (c *chat) turns(t testing.TB, p *Policy, n int) Plan {
	t.Helper()
	var pl Plan
	for i := range n {
		pl = c.turn(t, p, "anthropic", fmt.Sprint("a", i))
	}
	return pl
}

// kept returns the keys of the blocks a plan kept.
func kept(pl Plan) []block.Key {
	var keys []block.Key
	for _, d := range pl.Decisions {
		if d.Action == thinking.Keep {
			keys = append(keys, d.Key)
		}
	}
	return keys
}

// checkOwn fails unless the plan of c's latest turn kept exactly the
// blocks backend produced for c before it.
func checkOwn(t testing.TB, c *chat, pl Plan, backend, what string) {
	t.Helper()
	if got, want := kept(pl), c.wanted; !slices.Equal(got, want) {
		t.Fatalf("%s: %s got %d blocks kept, want its own %d (decisions %+v)", what, backend, len(got), len(want), pl.Decisions)
	}
}

func newThreadedPolicy(limits threads.Limits, cfg registry.Config) *Policy {
	reg := registry.New(cfg)
	return &Policy{Registry: reg, Foreign: thinking.Strip, Threads: threads.New(limits, reg)}
}

func TestAConversationIsOneThread(t *testing.T) {
	p := newThreadedPolicy(threads.Limits{}, registry.Config{})
	c := newChat(nil, "fix the bug")
	first := c.turn(t, p, "anthropic", "a1")
	second := c.turn(t, p, "anthropic", "a2")
	if second.Thread == 0 || second.Thread == first.Thread {
		// The first request's last message is the one Claude Code marks for
		// caching: the next request sends it again without the mark, so the
		// thread is recognized from the second request on.
		t.Logf("first request thread %d, second %d", first.Thread, second.Thread)
	}
	for i := range 5 {
		pl := c.turn(t, p, "anthropic", fmt.Sprint("a", i+3))
		if pl.Thread != second.Thread {
			t.Fatalf("turn %d is in thread %d, the conversation in %d", i+3, pl.Thread, second.Thread)
		}
		if want := len(c.msgs) - 4; pl.Restored != want {
			t.Fatalf("turn %d read %d messages from the thread's checkpoint, want %d", i+3, pl.Restored, want)
		}
	}
	if s := p.Registry.Stats(); s.Confirmed != 6 || s.Conversations != 1 {
		t.Fatalf("stats = %+v", s)
	}
}

func TestConversationsThatStartAlikeAreToldApart(t *testing.T) {
	p := newThreadedPolicy(threads.Limits{}, registry.Config{})
	// Two scripted runs of one agent, without a session: the same first
	// message, interleaved turn by turn, switching backends.
	a, b := newChat(nil, "run the checks"), newChat(nil, "run the checks")
	threads := map[registry.ThreadID]string{}
	for turn, backend := range []string{"anthropic", "anthropic", "glm", "glm", "anthropic", "anthropic"} {
		for name, c := range map[string]*chat{"a": a, "b": b} {
			pl := c.turn(t, p, backend, fmt.Sprint(name, turn))
			if turn == 0 {
				continue
			}
			checkOwn(t, c, pl, backend, fmt.Sprint(name, " turn ", turn))
			if other, ok := threads[pl.Thread]; ok && other != name {
				t.Fatalf("turn %d: %s and %s share thread %d", turn, name, other, pl.Thread)
			}
			threads[pl.Thread] = name
		}
	}
	if s := p.Registry.Stats(); s.Conversations != 1 || s.Confirmed != 10 {
		t.Fatalf("stats = %+v", s)
	}
}

func TestARewindBranchesAndTheOldThreadGoesOn(t *testing.T) {
	p := newThreadedPolicy(threads.Limits{}, registry.Config{})
	c := newChat(session("s"), "refactor")
	old := c.turns(t, p, 5).Thread

	// The user rewinds two turns and goes another way.
	r := &chat{header: c.header, msgs: append([]string(nil), c.msgs[:5]...), last: userMessage("another way"),
		own: map[string][]block.Key{"anthropic": append([]block.Key(nil), c.own["anthropic"][:2]...)}}
	branch := r.turn(t, p, "anthropic", "b1")
	if branch.Thread == old {
		t.Fatal("a rewound history was taken for its thread's next request")
	}
	if want := 5; branch.Restored != want {
		t.Fatalf("the branch read %d messages from the checkpoint, want %d", branch.Restored, want)
	}
	// Both go on: the branch, and (it was no rewind after all) the old
	// thread, which kept every block it held.
	checkOwn(t, r, r.turn(t, p, "anthropic", "b2"), "anthropic", "branch")
	pl := c.turn(t, p, "glm", "g1")
	if pl.Thread != old {
		t.Fatalf("the old thread came back as thread %d, want %d", pl.Thread, old)
	}
	checkOwn(t, c, c.turn(t, p, "anthropic", "a5"), "anthropic", "old thread after the branch")
}

func TestACompactedHistoryStartsANewThread(t *testing.T) {
	p := newThreadedPolicy(threads.Limits{}, registry.Config{})
	c := newChat(session("s"), "build it")
	old := c.turns(t, p, 4).Thread
	compacted := newChat(c.header, "Summary of the conversation so far: ...")
	pl := compacted.turn(t, p, "anthropic", "c1")
	if pl.Thread == old || pl.Restored != 0 {
		t.Fatalf("compacted history: thread %d (old %d), %d messages restored", pl.Thread, old, pl.Restored)
	}
	// The old thread still holds what its latest request replayed, and
	// waits for its latest answer's block.
	if s := p.Registry.Stats(); s.Threads < 2 || s.Confirmed != 3 || s.Unconfirmed != 2 {
		t.Fatalf("the compacted conversation's thread let go of the old one's blocks: %+v", s)
	}
}

func TestSessionsNarrowTheSearch(t *testing.T) {
	p := newThreadedPolicy(threads.Limits{}, registry.Config{})
	// Identical histories in two sessions are two threads.
	a, b := newChat(session("s1"), "hi"), newChat(session("s2"), "hi")
	for i := range 3 {
		pa := a.turn(t, p, "anthropic", fmt.Sprint("x", i))
		pb := b.turn(t, p, "anthropic", fmt.Sprint("x", i))
		if i > 0 && pa.Thread == pb.Thread {
			t.Fatalf("turn %d: two sessions share thread %d", i, pa.Thread)
		}
	}
}

func TestRequestsThatOnlyReadStartNoThread(t *testing.T) {
	p := newThreadedPolicy(threads.Limits{}, registry.Config{})
	c := newChat(session("s"), "hi")
	c.turn(t, p, "anthropic", "a1")
	th := c.turn(t, p, "anthropic", "a2").Thread
	before, _ := p.Threads.Len()
	// Token counting with the same history is in the thread, moves nothing.
	pl := p.Plan(Request{Body: c.body(), Header: c.header, Backend: "anthropic", ReadOnly: true})
	if pl.Thread != th {
		t.Fatalf("token counting is in thread %d, want %d", pl.Thread, th)
	}
	// A title request of the same session shares no history.
	title := []byte(`{"model":"claude-haiku-4-5","messages":[{"role":"user","content":"title?"}],"stream":false}`)
	if pl := p.Plan(Request{Body: title, Header: c.header, Backend: "anthropic"}); pl.Thread != 0 {
		t.Fatalf("a side request is in thread %d", pl.Thread)
	}
	if after, _ := p.Threads.Len(); after != before {
		t.Fatalf("%d threads, %d before", after, before)
	}
	if pl := c.turn(t, p, "anthropic", "a3"); pl.Thread != th || pl.Restored == 0 {
		t.Fatalf("after the side requests: thread %d (want %d), %d messages restored", pl.Thread, th, pl.Restored)
	}
}

func TestThreadsAreBounded(t *testing.T) {
	limits := threads.Limits{PerScope: 3, Max: 5, Budget: 1 << 20}
	p := newThreadedPolicy(limits, registry.Config{})
	var chats []*chat
	for i := range 8 {
		scope := session(fmt.Sprint("s", i%2))
		c := newChat(scope, fmt.Sprint("task ", i))
		for j := range 3 {
			c.turn(t, p, "anthropic", fmt.Sprint(i, "-", j))
		}
		chats = append(chats, c)
		n, bytes := p.Threads.Len()
		if n > limits.Max || bytes > limits.Budget {
			t.Fatalf("%d threads holding %d bytes, beyond %+v", n, bytes, limits)
		}
		if s := p.Registry.Stats(); s.Threads != n {
			t.Fatalf("the registry tracks %d threads, Threads %d", s.Threads, n)
		}
	}
	// The least recently used were forgotten, their blocks released, not
	// lost: a forgotten conversation's next request is read in full and
	// gets its own blocks back.
	c := chats[0]
	pl := c.turn(t, p, "anthropic", "0-again")
	if pl.Restored != 0 {
		t.Fatalf("a forgotten thread's checkpoint was used (%d messages)", pl.Restored)
	}
	checkOwn(t, c, c.turn(t, p, "anthropic", "0-more"), "anthropic", "forgotten thread")

	// The budget bounds memory whatever the bodies.
	small := newThreadedPolicy(threads.Limits{Budget: 4 << 10}, registry.Config{})
	for i := range 20 {
		c := newChat(nil, fmt.Sprint("task ", i))
		for j := range 4 {
			c.turn(t, small, "anthropic", fmt.Sprint(i, "-", j))
		}
		if _, bytes := small.Threads.Len(); bytes > 4<<10 {
			t.Fatalf("threads hold %d bytes, beyond a budget of 4 KiB", bytes)
		}
	}
}

// TestConcurrentThreadsLoseNothing runs session-less conversations that
// start alike in parallel, each switching backends, with thread limits
// small enough to forget threads as they go: every request must keep
// exactly the blocks its backend produced for that conversation, and the
// counts must add up (the threads package checks its own counts).
func TestConcurrentThreadsLoseNothing(t *testing.T) {
	p := newThreadedPolicy(threads.Limits{PerScope: 6, Max: 6}, registry.Config{})
	const chats, turns = 8, 30
	var wg sync.WaitGroup
	for g := range chats {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(g), 9))
			c := newChat(nil, fmt.Sprint("task ", g%2))
			for i := range turns {
				backend := []string{"anthropic", "glm"}[rng.IntN(2)]
				pl := c.turn(t, p, backend, fmt.Sprint(g, "-", i))
				for _, d := range pl.Decisions {
					if d.Action == thinking.Keep && d.Origin != backend {
						t.Errorf("chat %d turn %d: kept a block of %q for %s", g, i, d.Origin, backend)
					}
				}
				if got := kept(pl); !slices.Equal(got, c.wanted) {
					t.Errorf("chat %d turn %d: %s got %d of its %d blocks", g, i, backend, len(got), len(c.wanted))
				}
			}
		})
	}
	wg.Wait()
	n, _ := p.Threads.Len()
	if s := p.Registry.Stats(); n > 6 || s.Threads != n || s.Blocks != chats*turns || s.Confirmed+s.Unconfirmed != s.Blocks {
		t.Fatalf("%d threads; stats %+v", n, s)
	}
}

// TestRequestsAtOnceShareTheirThreadsCheckpoint: clients that send the
// same history at the same time (several workers of one app, retries) all
// read it from the thread's checkpoint.
func TestRequestsAtOnceShareTheirThreadsCheckpoint(t *testing.T) {
	p := newThreadedPolicy(threads.Limits{}, registry.Config{})
	c := newChat(nil, "the same task")
	c.turns(t, p, 3)
	body := c.body()
	first := p.Plan(Request{Body: body, Header: c.header, Backend: "anthropic"})
	var wg sync.WaitGroup
	restored := make([]int, 8)
	for i := range restored {
		wg.Go(func() {
			pl := p.Plan(Request{Body: body, Header: c.header, Backend: "anthropic"})
			restored[i] = pl.Restored
			if pl.Thread != first.Thread {
				t.Errorf("request %d is in thread %d, want %d", i, pl.Thread, first.Thread)
			}
		})
	}
	wg.Wait()
	for i, n := range restored {
		if n != len(c.msgs)+1 {
			t.Errorf("request %d read %d of %d messages from the checkpoint", i, n, len(c.msgs)+1)
		}
	}
}
