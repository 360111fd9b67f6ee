package integration

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/tools/gatewaytest"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/tools/llmtest"
)

// TestSoak runs 50 conversations of 20 turns at once (one turn in three a
// tool call and its result), each switching at random among seven backends
// (one serves a model that cannot think, two want thinking back on tool
// calls or on every message, as Kimi and DeepSeek V4 do, one takes only
// adaptive thinking, as MiniMax M3 does: the gateway must learn each; one
// conversation in five names no session, so that these share one scope and
// only their histories tell them apart), while the config is reloaded every
// soakReloadTurns turns and Caddy is restarted once, halfway (the registry
// persists in storage). At the restart the Anthropic-like backend also
// changes its signing key, so that it refuses everything it signed before:
// the safety net absorbs those refusals. No client may see a 4xx, every
// backend must get back exactly the blocks it produced for each
// conversation (for Anthropic, those signed since the new key, which it
// binds to their conversation), nothing learned may be refused again after
// the restart, every upstream 4xx must be a replayed refusal, and once the
// traffic stops
// goroutines and heap must return to where they were.
// soakReloadTurns is how many turns the soak's traffic takes between two
// reloads of the config: counted in turns, not time, so that several
// reloads land in every phase however fast the machine runs it. Each reload
// drops the connections the old server still held; clients retry those as
// Claude Code's SDK does (see gatewaytest.Transport).
const soakReloadTurns = 50

func TestSoak(t *testing.T) {
	const conversations, turns = 50, 20
	flavors := map[string]llmtest.Flavor{"anthropic": llmtest.Strict, "glm": llmtest.Lenient, "ollama": llmtest.Unsigned, "local": llmtest.Unsigned,
		"kimi": llmtest.Lenient, "deepseek": llmtest.Lenient, "minimax": llmtest.Lenient}
	backends := []string{"anthropic", "glm", "ollama", "local", "kimi", "deepseek", "minimax"}
	g := newGateway(t, flavors, "", byHeader)
	g.upstreams["local"].RefuseThinking("claude-sonnet-4-5")
	// Backends whose shape the gateway learns from their refusals.
	g.upstreams["kimi"].WantThinkingBack(llmtest.KimiThinkingBack)
	g.upstreams["deepseek"].WantThinkingBack(llmtest.DeepSeekThinkingBack)
	g.upstreams["minimax"].RefuseThinkingType(llmtest.MiniMaxRefusesEnabled, "claude-sonnet-4-5")
	learners := []string{"local", "kimi", "deepseek", "minimax"}
	runtime.GC()
	baseGoroutines := runtime.NumGoroutine()
	var base runtime.MemStats
	runtime.ReadMemStats(&base)

	peak := watchHeap(t)
	var reloads atomic.Int64
	turnsDone := make(chan struct{}, conversations)
	stopReloads := reloadEvery(t, g, turnsDone, soakReloadTurns, &reloads)
	var clientErrors atomic.Int64

	convs := make([]*soakConversation, conversations)
	for i := range convs {
		convs[i] = newSoakConversation(g, fmt.Sprintf("soak-%02d", i), i%5 == 4, gatewaytest.NewTransport(), rand.New(rand.NewPCG(uint64(i), 7)))
	}
	phase := func(from, to int) {
		var wg sync.WaitGroup
		for _, sc := range convs {
			wg.Go(func() {
				for turn := from; turn < to; turn++ {
					if err := sc.turn(g, backends); err != nil {
						clientErrors.Add(1)
						t.Errorf("%s turn %d: %v", sc.c.SessionID, turn, err)
						return
					}
					select {
					case turnsDone <- struct{}{}:
					default: // the reloader is busy reloading: it counts turns, not each one
					}
				}
			})
		}
		wg.Wait()
	}

	start := time.Now()
	phase(0, turns/2)
	stopReloads()
	retriedBefore := g.stats().Retries // the counters start again with the process
	learnedBefore := map[string]int{}
	for _, name := range learners {
		learnedBefore[name] = refusals(g.upstreams[name])
	}
	restartCaddy(t, g)
	g.upstreams["anthropic"].RotateKey()
	for _, sc := range convs {
		sc.own["anthropic"] = nil // no longer acceptable to it
	}
	stopReloads = reloadEvery(t, g, turnsDone, soakReloadTurns, &reloads)
	phase(turns/2, turns)
	stopReloads()
	elapsed := time.Since(start)

	requests, switches, refused := 0, 0, 0
	for _, sc := range convs {
		requests += sc.requests
		switches += sc.switches
	}
	for _, u := range g.upstreams {
		for _, r := range u.Requests() {
			if r.Status >= 400 {
				refused++
			}
		}
	}
	learnedRefusals := 0
	for _, name := range learners {
		n := refusals(g.upstreams[name])
		learnedRefusals += n
		if n == 0 {
			t.Errorf("%s never refused anything: the soak proves nothing about it", name)
		}
		if n != learnedBefore[name] {
			t.Errorf("%s refused %d times after the restart: what was learned was not kept", name, n-learnedBefore[name])
		}
	}
	if reloads.Load() < 2 {
		t.Errorf("only %d reloads happened during the traffic", reloads.Load())
	}
	s := g.stats()
	if int(retriedBefore+s.Retries) != refused {
		t.Errorf("%d upstream 4xx, %d absorbed by retries", refused, retriedBefore+s.Retries)
	}

	// Back to baseline once the traffic is gone: clients and upstreams
	// close their idle connections, as they would after a quiet while.
	for _, sc := range convs {
		sc.c.Client.Transport.(gatewaytest.Transport).CloseIdleConnections()
	}
	g.transport.CloseIdleConnections()
	for _, u := range g.upstreams {
		u.Close()
		u.Reset() // the mocks keep every request they got
	}
	after := backToBaseline(t, "after the soak", base.HeapAlloc, baseGoroutines, 8<<20)
	if t.Failed() {
		t.FailNow()
	}
	t.Logf("soak: %d requests, %d switches, %d reloads, 1 restart, %d upstream 4xx absorbed (%d of them by backends whose model or shape was learned), %d client errors, "+
		"peak heap %d MiB (baseline %d MiB, after %d MiB), %d goroutines after (%d before), %s",
		requests, switches, reloads.Load(), refused, learnedRefusals, clientErrors.Load(), peak()>>20, base.HeapAlloc>>20, after.heap>>20,
		after.goroutines, baseGoroutines, elapsed.Round(time.Millisecond))
}

// soakConversation is one conversation of the soak and what it knows of
// whose blocks its history holds.
type soakConversation struct {
	c        *llmtest.Conversation
	rng      *rand.Rand
	own      map[string][]int // backend -> indexes of its blocks in the history
	last     string
	requests int
	switches int
}

// newSoakConversation starts a conversation called id, through transport;
// an anonymous one names no session (the gateway tells it apart by its
// history). Its upstreams' records find its requests by its id all the same.
func newSoakConversation(g *gateway, id string, anonymous bool, transport http.RoundTripper, rng *rand.Rand) *soakConversation {
	c := g.conversation(id)
	c.Anonymous = anonymous
	c.Header.Set("X-Soak-Client", c.SessionID) // for the upstreams' records only
	c.Client = &http.Client{Transport: transport, Timeout: time.Minute}
	return &soakConversation{c: c, rng: rng, own: map[string][]int{}}
}

// turn sends one turn to a random backend, one time in three a tool call
// and its result, and checks that the backend got exactly its own blocks of
// this conversation on each request (besides the empty ones a backend that
// wants thinking back gets on messages without its own).
func (sc *soakConversation) turn(g *gateway, backends []string) error {
	backend := backends[sc.rng.IntN(len(backends))]
	if sc.last != "" && backend != sc.last {
		sc.switches++
	}
	sc.last = backend
	sc.c.Header.Set("X-Backend", backend)
	if sc.rng.IntN(3) == 0 {
		if err := sc.send(g, backend, func() (*llmtest.Turn, error) { return sc.c.Say("[tool] soak turn") }); err != nil {
			return err
		}
		return sc.send(g, backend, func() (*llmtest.Turn, error) { return sc.c.ToolResult("soak result") })
	}
	return sc.send(g, backend, func() (*llmtest.Turn, error) { return sc.c.Say("soak turn") })
}

// send sends one request of a turn to backend and checks what it got.
func (sc *soakConversation) send(g *gateway, backend string, request func() (*llmtest.Turn, error)) error {
	before := llmtest.ThinkingBlocks(sc.c.Messages)
	turn, err := request()
	sc.requests++
	if err != nil {
		return err
	}
	if turn.Status != http.StatusOK {
		return fmt.Errorf("client got %d: %s", turn.Status, turn.ErrorMessage)
	}
	got := g.upstreams[backend].RequestsWith("X-Soak-Client", sc.c.SessionID)
	if len(got) == 0 {
		return fmt.Errorf("%s received nothing", backend)
	}
	sent, err := llmtest.RequestThinkingBlocks(got[len(got)-1].Body)
	if err != nil {
		return err
	}
	var blocks []json.RawMessage
	for _, b := range sent {
		if !isFiller(b) {
			blocks = append(blocks, b)
		} else if backend != "kimi" && backend != "deepseek" {
			return fmt.Errorf("%s got a filler", backend)
		}
	}
	var want []json.RawMessage
	for _, i := range sc.own[backend] {
		want = append(want, before[i])
	}
	if !sameBlocks(blocks, want) {
		return fmt.Errorf("%s got %d blocks, want its own %d:\n got %s\nwant %s", backend, len(blocks), len(want), blocks, want)
	}
	for i := len(before); i < len(llmtest.ThinkingBlocks(sc.c.Messages)); i++ {
		sc.own[backend] = append(sc.own[backend], i)
	}
	return nil
}

func sameBlocks(a, b []json.RawMessage) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if string(a[i]) != string(b[i]) {
			return false
		}
	}
	return true
}

// reloadEvery posts the gateway's config again each time every turns
// values came from done, until the returned function is called, counting
// the reloads. A nil done reloads every turns seconds instead.
func reloadEvery(t *testing.T, g *gateway, done <-chan struct{}, turns int, n *atomic.Int64) (stop func()) {
	quit := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		var tick <-chan time.Time
		if done == nil {
			ticker := time.NewTicker(time.Duration(turns) * time.Second)
			defer ticker.Stop()
			tick = ticker.C
		}
		for seen := 0; ; {
			select {
			case <-quit:
				return
			case <-done:
				if seen++; seen < turns {
					continue
				}
				seen = 0
			case <-tick:
			}
			if err := server.Load(g.Site); err != nil {
				t.Errorf("reload: %v", err)
				return
			}
			n.Add(1)
		}
	})
	return func() { close(quit); wg.Wait() }
}

// restartCaddy stops the shared in-process Caddy and starts it again with
// the gateway's config, as a process restart would.
func restartCaddy(t *testing.T, g *gateway) {
	t.Helper()
	if err := server.Stop(); err != nil {
		t.Fatal(err)
	}
	var err error
	if server, err = gatewaytest.Start(adminAddr); err != nil {
		t.Fatal(err)
	}
	g.load()
}

// watchHeap samples the heap until the test ends and returns a function
// that reports the largest sample.
func watchHeap(t *testing.T) func() uint64 {
	var peak atomic.Uint64
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		tick := time.NewTicker(100 * time.Millisecond)
		defer tick.Stop()
		var m runtime.MemStats
		for {
			select {
			case <-done:
				return
			case <-tick.C:
				runtime.ReadMemStats(&m)
				if m.HeapAlloc > peak.Load() {
					peak.Store(m.HeapAlloc)
				}
			}
		}
	})
	t.Cleanup(func() { close(done); wg.Wait() })
	return peak.Load
}

// baseline is the heap and the goroutines once the traffic stopped.
type baseline struct {
	heap       uint64
	goroutines int
}

// backToBaseline waits until the heap is within slack of baseHeap and the
// goroutines within 5 of baseGoroutines, collecting, and returns them.
func backToBaseline(t *testing.T, when string, baseHeap uint64, baseGoroutines int, slack uint64) baseline {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	var m runtime.MemStats
	for {
		runtime.GC()
		runtime.ReadMemStats(&m)
		n := runtime.NumGoroutine()
		if n <= baseGoroutines+5 && m.HeapAlloc <= baseHeap+slack {
			return baseline{m.HeapAlloc, n}
		}
		if time.Now().After(deadline) {
			t.Errorf("%s, not back to baseline: %d goroutines (%d before), heap %d MiB (%d before, %d MiB allowed)",
				when, n, baseGoroutines, m.HeapAlloc>>20, baseHeap>>20, slack>>20)
			return baseline{m.HeapAlloc, n}
		}
		time.Sleep(20 * time.Millisecond)
	}
}
