package integration

import (
	"bytes"
	"cmp"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/state/budget"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/tools/llmtest"
)

// The flood of the memory budget's issue, scaled to CI: floodClients
// upload a floodBody Messages request each, at once, through a gateway
// whose budget holds four of them, to an upstream that reads 64 KiB every
// 5 ms (a 4 MiB body takes it some 330 ms).
const (
	floodBudget  = 16 << 20
	floodBody    = 4 << 20
	floodClients = 12
	floodWait    = time.Second
	// floodMargin is how far the heap of the whole test process (Caddy,
	// the clients, the upstream) may grow past its size before the flood
	// and the budget: what Caddy and net/http allocate per connection and
	// request, and garbage the collector has not reached yet. The process
	// runs the flood with a soft memory limit of the budget and the margin
	// over what it held before, less floodSlack (see heapDuringFlood).
	floodMargin = 12 << 20
	// floodSlack is how far the heap may go past that limit: it is soft,
	// and an allocation may run ahead of the collector for a moment.
	floodSlack = 4 << 20
)

// slowGateway starts a slow upstream and a gateway in front of it with the
// given budget and wait.
func slowGateway(t *testing.T, budget int64, wait time.Duration) (*gateway, *llmtest.SlowUpstream) {
	t.Helper()
	slow, err := llmtest.NewSlowUpstream(64<<10, 5*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(slow.Close)
	g := newGateway(t, nil, "", func(g *gateway) {
		g.Proxy = slow.HostPort()
		g.Handler = fmt.Sprintf("backend slow\nregistry %s\npersist off\nmemory_wait %s", registryName(t), wait)
		g.Global = fmt.Sprintf("llm_thinking {\n\t\tmemory_budget %d\n\t}", budget)
	})
	return g, slow
}

// messagesBody returns a Messages request of exactly size bytes.
func messagesBody(size int) []byte {
	const head, tail = `{"model":"m","max_tokens":16,"messages":[{"role":"user","content":"`, `"}]}`
	return []byte(head + strings.Repeat("x", size-len(head)-len(tail)) + tail)
}

// floodResult is what the clients of a flood saw.
type floodResult struct {
	ok, tooLarge, overloaded atomic.Int64
	// backend, when set, is the X-Backend header of the requests.
	backend string
	// path is where the requests go: /v1/messages unless set.
	path string
	// translated says the upstream reads a translation of the body
	// (transport openai), of another length.
	translated bool
}

// readBytes is the text of the slow upstream's answer, of any length.
var readBytes = regexp.MustCompile(`"read \d+ bytes"`)

// post sends body through the gateway and counts the answer: a 200 with
// the upstream's answer (that it read length bytes, unless translated; or
// a count of tokens), a 413 request_too_large, or a 529 overloaded_error
// with Retry-After. Anything else fails the test.
func (f *floodResult) post(t *testing.T, client *http.Client, url string, body io.Reader, length int64) {
	req, err := http.NewRequest(http.MethodPost, url+cmp.Or(f.path, "/v1/messages"), body)
	if err != nil {
		t.Error(err)
		return
	}
	req.ContentLength = length
	req.Header.Set("Content-Type", "application/json")
	if f.backend != "" {
		req.Header.Set("X-Backend", f.backend)
	}
	resp, err := client.Do(req)
	if err != nil {
		t.Errorf("flood request: %v", err)
		return
	}
	defer resp.Body.Close()
	answer, err := io.ReadAll(resp.Body)
	read := bytes.Contains(answer, []byte(fmt.Sprintf(`"read %d bytes"`, length))) ||
		(f.translated && readBytes.Match(answer)) || bytes.HasPrefix(answer, []byte(`{"input_tokens":`))
	switch {
	case err != nil:
		t.Errorf("reading the answer: %v", err)
	case resp.StatusCode == http.StatusOK && read:
		f.ok.Add(1)
	case resp.StatusCode == http.StatusRequestEntityTooLarge && bytes.Contains(answer, []byte(`"type":"request_too_large"`)):
		f.tooLarge.Add(1)
	case resp.StatusCode == 529 && resp.Header.Get("Retry-After") != "" &&
		bytes.Contains(answer, []byte(`"type":"overloaded_error"`)):
		f.overloaded.Add(1)
	default:
		t.Errorf("flood request answered %d %v: %.200s", resp.StatusCode, resp.Header, answer)
	}
}

// memoryStats reads the memory budget's statistics from the admin API.
func memoryStats(t *testing.T) budget.Stats {
	t.Helper()
	s, err := server.Memory()
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestFloodStaysWithinTheBudget floods the gateway with large uploads to a
// slow upstream. Every client gets its answer or a 529 it can retry, the
// process's heap stays within the budget and a stated margin, nothing is
// held once the flood is over, and the gateway serves normally after.
func TestFloodStaysWithinTheBudget(t *testing.T) {
	g, slow := slowGateway(t, floodBudget, floodWait)
	body := messagesBody(floodBody)
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}, Timeout: time.Minute}
	before := memoryStats(t)
	heap := heapDuringFlood(t)
	var f floodResult
	var wg sync.WaitGroup
	start := time.Now()
	for range floodClients {
		wg.Go(func() { f.post(t, client, g.url(), bytes.NewReader(body), int64(len(body))) })
	}
	wg.Wait()
	elapsed := time.Since(start)
	grown := heap.growth(t)

	if f.ok.Load()+f.overloaded.Load() != floodClients {
		t.Fatalf("%d answered, %d overloaded, of %d", f.ok.Load(), f.overloaded.Load(), floodClients)
	}
	if f.ok.Load() == 0 {
		t.Fatal("the flood got no answer at all")
	}
	after := awaitNothingInUse(t)
	if got := after.Overloaded - before.Overloaded; got != uint64(f.overloaded.Load()) {
		t.Errorf("the gateway counted %d 529s, the clients saw %d", got, f.overloaded.Load())
	}
	if after.Peak > floodBudget {
		t.Errorf("the budget held %d bytes at its peak, past its %d", after.Peak, floodBudget)
	}
	givenBack(t, before, after)
	if _, complete, _ := slow.Received(); complete != int(f.ok.Load()) {
		t.Errorf("the upstream read %d bodies whole, the clients got %d answers", complete, f.ok.Load())
	}

	// The gateway serves normally after the flood.
	var next floodResult
	for range 3 {
		next.post(t, client, g.url(), bytes.NewReader(body), int64(len(body)))
	}
	if next.ok.Load() != 3 {
		t.Errorf("after the flood, %d of 3 requests answered", next.ok.Load())
	}
	t.Logf("flood of %d x %d MiB: %d answered, %d overloaded in %v; heap %d MiB before, peak %d MiB (+%d MiB, budget %d MiB); "+
		"budget peak %d MiB, %d waits, %d collected",
		floodClients, floodBody>>20, f.ok.Load(), f.overloaded.Load(), elapsed.Round(time.Millisecond),
		heap.base>>20, (heap.base>>20)+uint64(grown>>20), grown>>20, floodBudget>>20,
		after.Peak>>20, after.Waits-before.Waits, after.Collected-before.Collected)
}

// sampleHeap samples the heap every millisecond until the returned function
// is called, which returns the largest sample.
func sampleHeap(t *testing.T) func() uint64 {
	var peak atomic.Uint64
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		tick := time.NewTicker(time.Millisecond)
		defer tick.Stop()
		var m runtime.MemStats
		for {
			runtime.ReadMemStats(&m)
			peak.Store(max(peak.Load(), m.HeapAlloc))
			select {
			case <-done:
				return
			case <-tick.C:
			}
		}
	})
	stop := sync.OnceFunc(func() { close(done); wg.Wait() })
	t.Cleanup(stop)
	return func() uint64 { stop(); return peak.Load() }
}

// heapWatch is the heap of the whole test process during a flood.
type heapWatch struct {
	base uint64 // after a collection, before the flood
	peak func() uint64
	// unlimit restores the soft memory limit of before the flood.
	unlimit func()
}

// heapDuringFlood collects garbage, notes the heap's size, and samples it
// until growth is called. Meanwhile the process's soft memory limit
// (GOMEMLIMIT) is what it holds now and the flood's budget and margin, as
// an operator sets it, or Caddy does from a container's limit: the budget
// bounds what llm_thinking holds, and admits a request as soon as another
// lets go of its memory; Go's collector, within the limit, frees what was
// let go.
func heapDuringFlood(t *testing.T) heapWatch {
	runtime.GC()
	var base runtime.MemStats
	runtime.ReadMemStats(&base)
	// What the runtime holds beside the heap, the heap's objects, the
	// budget and the margin, less the slack.
	limit := int64(base.Sys-base.HeapSys+base.HeapAlloc) + floodBudget + floodMargin - floodSlack
	before := debug.SetMemoryLimit(limit)
	unlimit := sync.OnceFunc(func() { debug.SetMemoryLimit(before) })
	t.Cleanup(unlimit)
	return heapWatch{base: base.HeapAlloc, peak: sampleHeap(t), unlimit: unlimit}
}

// growth stops the sampling, restores the memory limit, and returns how
// much the heap grew at most, failing the test when that is past the
// flood's budget and margin.
func (h heapWatch) growth(t *testing.T) int64 {
	t.Helper()
	grown := int64(h.peak()) - int64(h.base)
	h.unlimit()
	if grown > floodBudget+floodMargin {
		t.Errorf("heap grew by %d MiB during the flood, past the %d MiB budget and the %d MiB margin",
			grown>>20, floodBudget>>20, floodMargin>>20)
	}
	return grown
}

// givenBack fails the test when memory held during a flood came back
// through Go's collector rather than given back by its request: the
// budget's room must never wait on a collection (see budget.Stats).
func givenBack(t *testing.T, before, after budget.Stats) {
	t.Helper()
	if n := after.Collected - before.Collected; n != 0 {
		t.Errorf("%d buffers or body readers came back only once Go collected them", n)
	}
}

// awaitNothingInUse waits until the memory budget has nothing in use, and
// returns its statistics.
func awaitNothingInUse(t *testing.T) budget.Stats {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		s := memoryStats(t)
		if s.InUse == 0 {
			return s
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d bytes still in use 10s after the requests ended", s.InUse)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// stalledBody sends sent bytes of a Messages request of size bytes, then
// nothing until resume is closed, then the rest.
type stalledBody struct {
	body   []byte
	sent   int
	at     int
	resume chan struct{}
}

func (s *stalledBody) Read(p []byte) (int, error) {
	if s.at == s.sent {
		<-s.resume
	}
	if s.at == len(s.body) {
		return 0, io.EOF
	}
	end := len(s.body)
	if s.at < s.sent {
		end = s.sent
	}
	n := copy(p, s.body[s.at:end])
	s.at += n
	return n, nil
}

// TestTricklingClientsDoNotStarveOthers: clients that declared bodies
// twice the budget in all, and sent a little of them, hold about what they
// sent (at most twice that: their buffers double; or a buffer of the size
// they declared that was cached already, when nobody needed room): other
// clients are served meanwhile, and the tricklers when they go on.
func TestTricklingClientsDoNotStarveOthers(t *testing.T) {
	const tricklers, declared, sent = 8, 4 << 20, 256 << 10
	g, _ := slowGateway(t, floodBudget, 10*time.Second)
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}, Timeout: time.Minute}
	before := memoryStats(t)
	resume := make(chan struct{})
	var stalled floodResult
	var wg sync.WaitGroup
	for range tricklers {
		wg.Go(func() {
			body := &stalledBody{body: messagesBody(declared), sent: sent, resume: resume}
			stalled.post(t, client, g.url(), body, declared)
		})
	}
	// Wait until the gateway holds what the tricklers sent.
	deadline := time.Now().Add(10 * time.Second)
	for memoryStats(t).InUse < tricklers*sent {
		if time.Now().After(deadline) {
			close(resume)
			t.Fatalf("the gateway holds %d bytes of the %d the tricklers sent", memoryStats(t).InUse, tricklers*sent)
		}
		time.Sleep(5 * time.Millisecond)
	}
	held := memoryStats(t).InUse
	var others floodResult
	for range 4 {
		others.post(t, client, g.url(), bytes.NewReader(messagesBody(2<<20)), 2<<20)
	}
	close(resume)
	wg.Wait()
	if cacheable := int64(floodBudget / 8); held > 2*tricklers*sent+cacheable {
		t.Errorf("tricklers that sent %d bytes each hold %d in all", sent, held)
	}
	if others.ok.Load() != 4 {
		t.Errorf("%d of 4 requests answered while the tricklers held on", others.ok.Load())
	}
	if stalled.ok.Load()+stalled.overloaded.Load() != tricklers || stalled.ok.Load() == 0 {
		t.Errorf("tricklers: %d answered, %d overloaded, of %d", stalled.ok.Load(), stalled.overloaded.Load(), tricklers)
	}
	after := awaitNothingInUse(t)
	t.Logf("%d tricklers held %d KiB having sent %d KiB each; others: %d of 4 answered; tricklers: %d answered, %d overloaded; %d waits",
		tricklers, held>>10, sent>>10, others.ok.Load(), stalled.ok.Load(), stalled.overloaded.Load(), after.Waits-before.Waits)
}
