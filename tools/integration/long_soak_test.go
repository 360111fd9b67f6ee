package integration

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"net/http"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/tools/gatewaytest"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/tools/llmtest"
)

// longSoakEnv names the environment variable that runs TestLongSoak, and
// for how long: a Go duration of at least 10m.
const longSoakEnv = "LLM_THINKING_SOAK"

// TestLongSoak runs for as long as LLM_THINKING_SOAK says, outside CI
// (without it, go test reports the test skipped, never passed): round after
// round, fresh conversations (one in five naming no session) switch at
// random among three backends while a flood of large uploads goes to a
// slow upstream through a 32 MiB budget, and the config is reloaded every 2s. The conversations send a
// 529 again after its Retry-After, as Claude Code does, and so do the
// uploads. Every backend must get back exactly the blocks it produced, no
// client may see a 4xx, every upload gets its answer; once the traffic
// stops, the goroutines and the heap must be back where they were, but
// for what the registry learned. The heap once the config is unloaded is
// reported too.
//
//	LLM_THINKING_SOAK=10m go -C tools test -race -run TestLongSoak -timeout 30m -v ./integration/
func TestLongSoak(t *testing.T) {
	value := os.Getenv(longSoakEnv)
	if value == "" {
		t.Skipf("not run: set %s=10m (or longer) to run the long soak", longSoakEnv)
	}
	length, err := time.ParseDuration(value)
	if err != nil || length < 10*time.Minute {
		t.Fatalf("%s=%q: want a duration of at least 10m", longSoakEnv, value)
	}
	const conversations, turns = 10, 10
	flavors := map[string]llmtest.Flavor{"anthropic": llmtest.Strict, "glm": llmtest.Lenient, "ollama": llmtest.Unsigned}
	backends := []string{"anthropic", "glm", "ollama"}
	slow, err := llmtest.NewSlowUpstream(64<<10, 5*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(slow.Close)
	g := newGateway(t, flavors, "", byHeader, func(g *gateway) {
		g.Upstreams["slow"] = slow.HostPort()
		g.Handler += "\nmemory_wait 2s"
		g.Global = fmt.Sprintf("llm_thinking {\n\t\tmemory_budget %d\n\t}", floodBudget*2)
	})
	runtime.GC()
	baseGoroutines := runtime.NumGoroutine()
	var base runtime.MemStats
	runtime.ReadMemStats(&base)
	peak := sampleHeap(t)
	var reloads atomic.Int64
	stopReloads := reloadEvery(t, g, nil, 2, &reloads)
	// The flood's clients retry as the SDKs do: a connection a reload
	// dropped, a 529 after its Retry-After.
	flood := &floodResult{backend: "slow"}
	floodClient := &http.Client{Transport: gatewaytest.Transport{Transport: &http.Transport{DisableKeepAlives: true}}, Timeout: 2 * time.Minute}
	body := messagesBody(floodBody)

	start := time.Now()
	rounds, requests, switches := 0, 0, 0
	var clients []gatewaytest.Transport
	for time.Since(start) < length && !t.Failed() {
		rounds++
		convs := make([]*soakConversation, conversations)
		for i := range convs {
			transport := gatewaytest.NewTransport()
			clients = append(clients, transport)
			convs[i] = newSoakConversation(g, fmt.Sprintf("long-%d-%d", rounds, i), i%5 == 4, transport, rand.New(rand.NewPCG(uint64(rounds), uint64(i))))
		}
		var wg sync.WaitGroup
		for _, sc := range convs {
			wg.Go(func() {
				for turn := range turns {
					if err := sc.turn(g, backends); err != nil {
						t.Errorf("%s turn %d: %v", sc.c.SessionID, turn, err)
						return
					}
				}
			})
		}
		for range floodClients {
			wg.Go(func() { flood.post(t, floodClient, g.url(), bytes.NewReader(body), int64(len(body))) })
		}
		wg.Wait()
		for _, sc := range convs {
			requests += sc.requests
			switches += sc.switches
		}
		for _, u := range g.upstreams {
			u.Reset() // the mocks keep every request they got
		}
		for _, c := range clients {
			c.CloseIdleConnections()
		}
		clients = clients[:0]
	}
	stopReloads()
	elapsed := time.Since(start)
	if posted := int64(rounds * floodClients); flood.ok.Load() != posted {
		t.Errorf("%d of %d uploads answered (%d gave up after 529s)", flood.ok.Load(), posted, flood.overloaded.Load())
	}
	heapPeak := peak()
	stats := g.stats()
	memory := awaitNothingInUse(t)
	// Back to a quiet gateway: the upstreams go, with the connections
	// Caddy kept alive to them.
	for _, u := range g.upstreams {
		u.Close()
	}
	slow.Close()

	// With the registry loaded, what it learned stays: the checkpoints of
	// its conversations (at most 16 MiB) and its blocks (about 100 bytes
	// each, with their index), and 8 MiB for everything else.
	learned := uint64(16<<20 + 128*stats.Blocks)
	loaded := backToBaseline(t, "with the registry loaded", base.HeapAlloc, baseGoroutines, learned+8<<20)
	// Unloaded, what is left is reported, not checked: Caddy keeps
	// handlers of configs that served traffic for a while after they go
	// (so did the module before the memory budget), and their registry
	// with them.
	if err := server.Unload(); err != nil {
		t.Fatal(err)
	}
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	unloaded := baseline{m.HeapAlloc, runtime.NumGoroutine()}
	idle := memoryStats(t)
	t.Logf("long soak: %v, %d rounds, %d conversation requests, %d switches, %d reloads; flood: %d uploads answered; "+
		"registry: %d blocks, %d conversations; budget peak %d MiB of %d MiB, %d waits, %d 529s, %d collected",
		elapsed.Round(time.Second), rounds, requests, switches, reloads.Load(), flood.ok.Load(),
		stats.Blocks, stats.Conversations, memory.Peak>>20, memory.Budget>>20, memory.Waits, memory.Overloaded, memory.Collected)
	t.Logf("heap: %.1f MiB before, peak %.1f MiB, %.1f MiB after with the registry loaded, %.1f MiB once unloaded "+
		"(the budget holding %d KiB); goroutines: %d before, %d after, %d once unloaded",
		mib(base.HeapAlloc), mib(heapPeak), mib(loaded.heap), mib(unloaded.heap), idle.Held>>10,
		baseGoroutines, loaded.goroutines, unloaded.goroutines)
}

// mib returns n bytes in MiB.
func mib(n uint64) float64 { return float64(n) / (1 << 20) }
