package integration

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/tools/llmtest"
)

// The hostile inputs of the issue on memory, scaled to CI as the flood
// is: bodies that cost far more to read or translate than they weigh, sent
// by hostileClients at once through a gateway whose budget is floodBudget.
// The whole test process (Caddy, the clients, the upstream) must stay
// within the budget and floodMargin of what its heap was before, and a
// normal request sent while the flood is held in the gateway is answered.
const (
	hostileClients = 8
	hostileBody    = 1 << 20
)

// tinyBlocks returns a Messages request of about size bytes whose one
// message of the given role holds only tiny blocks of the given JSON.
func tinyBlocks(size int, role, block string) []byte {
	head := `{"model":"m","max_tokens":16,"messages":[{"role":"user","content":"hi"},{"role":"` + role + `","content":[`
	tail := `{"type":"text","text":"x"}]},{"role":"user","content":"go"}]}`
	n := (size - len(head) - len(tail)) / (len(block) + 1)
	return []byte(head + strings.Repeat(block+",", n) + tail)
}

// hostileFlood sends body from hostileClients at once, all but its last
// byte, and waits until the gateway holds what they sent; then a normal
// request must be answered; then the clients send their last byte. It
// checks that the heap of the whole process stayed within the budget and
// the margin, that every client got an answer of the kinds allowed, and
// that the gateway holds nothing after; and returns what the clients got.
func hostileFlood(t *testing.T, g *gateway, path string, body []byte) *floodResult {
	t.Helper()
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}, Timeout: 2 * time.Minute}
	before := memoryStats(t)
	heap := heapDuringFlood(t)

	flood := floodResult{path: path, translated: true}
	resume := make(chan struct{})
	var wg sync.WaitGroup
	for range hostileClients {
		wg.Go(func() {
			stalled := &stalledBody{body: body, sent: len(body) - 1, resume: resume}
			flood.post(t, client, g.url(), stalled, int64(len(body)))
		})
	}
	deadline := time.Now().Add(30 * time.Second)
	for memoryStats(t).InUse < int64(hostileClients*(len(body)-1)) {
		if time.Now().After(deadline) {
			close(resume)
			t.Fatalf("the gateway holds %d bytes of the %d the flood sent", memoryStats(t).InUse, hostileClients*(len(body)-1))
		}
		time.Sleep(5 * time.Millisecond)
	}
	// The flood is in the gateway: a normal request is served meanwhile.
	var normal floodResult
	small := messagesBody(4 << 10)
	normal.post(t, &http.Client{Timeout: time.Minute}, g.url(), bytes.NewReader(small), int64(len(small)))
	if normal.ok.Load() != 1 {
		t.Error("a normal request was not answered while the flood was held")
	}
	close(resume)
	wg.Wait()
	grown := heap.growth(t)
	if got := flood.ok.Load() + flood.tooLarge.Load() + flood.overloaded.Load(); got != hostileClients {
		t.Fatalf("%d of %d hostile requests got an answer", got, hostileClients)
	}
	after := awaitNothingInUse(t)
	if after.Peak > floodBudget {
		t.Errorf("the budget held %d bytes at its peak, past its %d", after.Peak, floodBudget)
	}
	givenBack(t, before, after)
	t.Logf("%d x %d KiB to %s: %d answered, %d refused 413, %d overloaded; heap %d MiB before, peak +%d MiB (budget %d MiB); %d waits",
		hostileClients, len(body)>>10, path, flood.ok.Load(), flood.tooLarge.Load(), flood.overloaded.Load(),
		heap.base>>20, grown>>20, floodBudget>>20, after.Waits-before.Waits)
	return &flood
}

// TestTinyThinkingBlocksGetA413: a flood of assistant messages of tiny
// thinking blocks, each costing seventeen times its size to read, is
// refused with 413 before its structure outgrows twice its size; none of
// it reaches the upstream.
func TestTinyThinkingBlocksGetA413(t *testing.T) {
	g, slow := slowGateway(t, floodBudget, 10*time.Second)
	body := tinyBlocks(hostileBody, "assistant", `{"type":"thinking"}`)
	flood := hostileFlood(t, g, "/v1/messages", body)
	if flood.tooLarge.Load() == 0 || flood.ok.Load() != 0 {
		t.Errorf("%d refused with 413, %d answered: want every one refused or overloaded", flood.tooLarge.Load(), flood.ok.Load())
	}
	if requests, _, _ := slow.Received(); requests != 1 {
		t.Errorf("the upstream got %d requests, want the normal one", requests)
	}
}

// transportGateway is slowGateway with transport openai in front of the
// slow upstream.
func transportGateway(t *testing.T) (*gateway, interface{ Received() (int, int, int64) }) {
	g, slow := slowGateway(t, floodBudget, 10*time.Second)
	g.Proxy = slow.HostPort() + " {\n\t\ttransport openai\n\t}"
	g.load()
	return g, slow
}

// TestTinyTextBlocksThroughTheTransport: a user message of tiny text
// blocks costs llm_thinking nothing to read, and transport openai more
// than its size to translate: the translation is written into memory the
// budget counts, and every request is answered or told to retry.
func TestTinyTextBlocksThroughTheTransport(t *testing.T) {
	g, slow := transportGateway(t)
	body := tinyBlocks(hostileBody, "user", `{"type":"text"}`)
	flood := hostileFlood(t, g, "/v1/messages", body)
	if flood.ok.Load() == 0 {
		t.Error("no hostile request was answered")
	}
	if _, complete, _ := slow.Received(); complete != int(flood.ok.Load())+1 {
		t.Errorf("the upstream read %d bodies whole, the clients got %d answers and the normal one", complete, flood.ok.Load())
	}
}

// TestCountTokensOfTinyBlocks: count_tokens, which the transport answers
// itself, reads the same flood within the budget.
func TestCountTokensOfTinyBlocks(t *testing.T) {
	g, slow := transportGateway(t)
	body := tinyBlocks(hostileBody, "user", `{"type":"text","text":"a"}`)
	flood := hostileFlood(t, g, "/v1/messages/count_tokens", body)
	if flood.ok.Load() == 0 {
		t.Error("no count was answered")
	}
	if requests, _, _ := slow.Received(); requests != 1 {
		t.Errorf("the upstream got %d requests, want the normal one", requests)
	}
}

// TestLargeBodiesThroughTheTransport is the flood of large uploads to a
// slow upstream, through transport openai: the body the handler holds is
// the one the transport translates, not a copy of it, so the flood stays
// within the budget as it does without the transport.
func TestLargeBodiesThroughTheTransport(t *testing.T) {
	g, slow := transportGateway(t)
	body := messagesBody(floodBody)
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}, Timeout: time.Minute}
	before := memoryStats(t)
	heap := heapDuringFlood(t)
	f := floodResult{translated: true}
	var wg sync.WaitGroup
	for range floodClients {
		wg.Go(func() { f.post(t, client, g.url(), bytes.NewReader(body), int64(len(body))) })
	}
	wg.Wait()
	grown := heap.growth(t)
	if f.ok.Load()+f.overloaded.Load() != floodClients || f.ok.Load() == 0 {
		t.Fatalf("%d answered, %d overloaded, %d refused, of %d", f.ok.Load(), f.overloaded.Load(), f.tooLarge.Load(), floodClients)
	}
	after := awaitNothingInUse(t)
	if after.Peak > floodBudget {
		t.Errorf("the budget held %d bytes at its peak, past its %d", after.Peak, floodBudget)
	}
	givenBack(t, before, after)
	if _, complete, _ := slow.Received(); complete != int(f.ok.Load()) {
		t.Errorf("the upstream read %d bodies whole, the clients got %d answers", complete, f.ok.Load())
	}
	t.Logf("%d x %d MiB through transport openai: %d answered, %d overloaded; heap %d MiB before, peak +%d MiB (budget %d MiB)",
		floodClients, floodBody>>20, f.ok.Load(), f.overloaded.Load(), heap.base>>20, grown>>20, floodBudget>>20)
}

// TestFailingUpstreamLogsNoSecrets: when the upstream cannot be reached,
// Caddy's own error log writes the request with its headers, at error
// level; with the example's log filter the API key is not in it, and the
// session id only as a hash, as in llm_thinking's own events.
func TestFailingUpstreamLogsNoSecrets(t *testing.T) {
	g := newGateway(t, nil, "", func(g *gateway) {
		g.Proxy = "127.0.0.1:1" // nothing listens there
		g.Handler = "backend dead\nregistry " + registryName(t) + "\npersist off"
	})
	for _, path := range []string{"/v1/messages", "/v1/models"} {
		h := http.Header{"Content-Type": {"application/json"}, "X-Api-Key": {"sk-ant-SECRET-KEY-42"}, "X-Claude-Code-Session-Id": {"SESSION-SECRET-42"}}
		if status, _, _ := g.send(t, path, h, []byte(`{"model":"m","messages":[{"role":"user","content":"hi"}]}`)); status != http.StatusBadGateway {
			t.Fatalf("%s: %d, want the 502 of an unreachable upstream", path, status)
		}
	}
	errorLines := 0
	for _, line := range bytes.Split(g.logBytes(), []byte("\n")) {
		var e map[string]any
		if json.Unmarshal(line, &e) == nil && e["level"] == "error" && e["request"] != nil {
			errorLines++
		}
	}
	if errorLines == 0 {
		t.Fatal("no error line carries the request: the check below proves nothing")
	}
	log := string(g.logBytes())
	for _, secret := range []string{"SECRET-KEY-42", "SESSION-SECRET-42"} {
		if i := strings.Index(log, secret); i >= 0 {
			line := log[strings.LastIndexByte(log[:i], '\n')+1:]
			line, _, _ = strings.Cut(line, "\n")
			t.Errorf("log contains %q: %.600s", secret, line)
		}
	}
}

// TestARetryAfterAFailedDialFindsTheBody: reverse_proxy tries a dead
// upstream first, then the next: the transport borrows llm_thinking's
// body again for the retry, and the upstream gets all of it.
func TestARetryAfterAFailedDialFindsTheBody(t *testing.T) {
	slow, err := llmtest.NewSlowUpstream(64<<10, time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(slow.Close)
	g := newGateway(t, nil, "", func(g *gateway) {
		g.Proxy = "127.0.0.1:1 " + slow.HostPort() + " {\n\t\tlb_policy first\n\t\tlb_retries 2\n\t\tfail_duration 10s\n\t\ttransport openai\n\t}"
		g.Handler = "backend chat\nregistry " + registryName(t) + "\npersist off"
	})
	body := messagesBody(256 << 10)
	f := floodResult{translated: true}
	f.post(t, &http.Client{Transport: g.transport, Timeout: time.Minute}, g.url(), bytes.NewReader(body), int64(len(body)))
	if f.ok.Load() != 1 {
		t.Fatal("the retried request was not answered")
	}
	requests, complete, read := slow.Received()
	if requests != 1 || complete != 1 || read < int64(len(body)) {
		t.Fatalf("the upstream got %d requests, %d whole, %d bytes: want the whole translation of a %d-byte body", requests, complete, read, len(body))
	}
}
