package integration

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/tools/llmtest"
)

// TestUpstreamResetMidStream: the upstream breaks the connection in the
// middle of a reply. The client sees the broken stream, nothing of it is
// registered, and the conversation goes on.
func TestUpstreamResetMidStream(t *testing.T) {
	g := newGateway(t, anthropicAndGLM, "anthropic")
	anthropic := g.upstreams["anthropic"]
	c, ok := g.session("reset")
	ok(c.Say("hello"))
	before := g.stats()

	anthropic.CutNextStream(5) // after the thinking block is complete
	if turn, err := c.Say("cut me off"); err == nil {
		t.Fatalf("the client read a cut stream as complete: %d", turn.Status)
	}
	if after := g.stats(); after.Blocks != before.Blocks {
		t.Fatalf("a cut stream registered blocks: %d then %d", before.Blocks, after.Blocks)
	}
	ok(c.Send())
	assertBlocks(t, thinkingBlocks(t, lastRequest(t, anthropic).Body), historyBlocks(c)[:1])
}

// TestHugeEventPassesThrough streams a reply with events larger than any
// buffer of the observer: every byte reaches the client, the observer gives
// up on that reply (its blocks stay unknown) and nothing breaks.
func TestHugeEventPassesThrough(t *testing.T) {
	g := newGateway(t, anthropicAndGLM, "anthropic")
	c, ok := g.session("huge")
	turn := ok(c.Say("[huge] a long answer please"))
	if n := bytes.Count(turn.Message, []byte("x")); n < 3<<20 {
		t.Fatalf("the client got %d bytes of the huge text", n)
	}
	ok(c.Say("and a short one"))
}

// TestMalformedRequestsPassThroughUntouched sends bodies llm_thinking cannot
// read: they reach the upstream byte for byte and its answer reaches the
// client, whatever it is.
func TestMalformedRequestsPassThroughUntouched(t *testing.T) {
	g := newGateway(t, anthropicAndGLM, "anthropic")
	anthropic := g.upstreams["anthropic"]
	bodies := map[string]string{
		"truncated":     `{"model":"m","messages":[{"role":"assistant","content":[{"type":"thinking","thinking":"a","sig`,
		"deeply nested": `{"model":"m","messages":[{"role":"user","content":"hi"}],"metadata":` + strings.Repeat(`[`, 100000) + strings.Repeat(`]`, 100000) + `}`,
		"not an object": `[{"role":"user","content":"hi"}]`,
		"unknown types": `{"model":"m","messages":[{"role":"assistant","content":[{"type":"future_block","x":1}]},{"role":"user","content":"go"}],"stream":false}`,
	}
	for name, body := range bodies {
		t.Run(name, func(t *testing.T) {
			anthropic.Reset()
			status, _, _ := g.send(t, "/v1/messages", jsonHeader, []byte(body))
			got := lastRequest(t, anthropic)
			if string(got.Body) != body {
				t.Fatalf("the upstream got other bytes than the client sent")
			}
			if status != got.Status {
				t.Fatalf("client got %d, upstream answered %d", status, got.Status)
			}
		})
	}
}

// TestFailingStorageNeverFailsARequest: with every storage call failing,
// conversations go on and switch as before; the failures are counted.
func TestFailingStorageNeverFailsARequest(t *testing.T) {
	g := newGateway(t, anthropicAndGLM, "glm", faultyStorageAt(t), withHandler("persist_interval 10ms"))
	setFaults(failing)
	defer setFaults(healthy)
	c, ok := g.session("failing-storage")
	ok(c.Say("on glm"))
	g.use("anthropic")
	ok(c.Say("on anthropic"))
	ok(c.Say("again"))
	assertBlocks(t, thinkingBlocks(t, lastRequest(t, g.upstreams["anthropic"]).Body), historyBlocks(c)[1:2])
	// The writes fail in the background, and are counted and logged.
	for deadline := time.Now().Add(10 * time.Second); ; {
		s := g.stats()
		if s.Persist == nil || s.Persist.Writes != 0 {
			t.Fatalf("persist stats %+v", s.Persist)
		}
		if s.Persist.Failures > 0 && s.Persist.Unwritten > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no failed write within 10s: %+v", s.Persist)
		}
		time.Sleep(5 * time.Millisecond)
	}
	if len(g.logEvents("thinking.persist_failed")) == 0 {
		t.Fatal("storage failures were not logged")
	}
}

// TestHangingStorageNeverHoldsARequest: a storage that never answers (until
// the caller gives up) costs a request with unknown blocks at most the
// bounded wait, and other requests nothing. A request held by it would hit
// the client's timeout and fail the test.
func TestHangingStorageNeverHoldsARequest(t *testing.T) {
	g := newGateway(t, anthropicAndGLM, "glm", faultyStorageAt(t))
	setFaults(hanging)
	defer setFaults(healthy)
	c, ok := g.session("hanging-storage")
	c.Client.Timeout = 5e9 // 5s: far above the bounded wait, far below the storage's
	ok(c.Say("on glm"))
	g.use("anthropic")
	ok(c.Say("on anthropic"))
	// A block nobody knows makes the request ask storage, which hangs.
	g.use("glm")
	unknown := llmtest.NewConversation(g.url(), "unknown-blocks")
	unknown.Client = c.Client
	unknown.Messages = []json.RawMessage{
		json.RawMessage(`{"role":"user","content":"hi"}`),
		json.RawMessage(`{"role":"assistant","content":[{"type":"thinking","thinking":"","signature":"never-seen"},{"type":"text","text":"x"}]}`),
	}
	faults.Lock()
	calls := faults.calls
	faults.Unlock()
	ok(unknown.Say("with a block this gateway never saw"))
	faults.Lock()
	asked := faults.calls > calls
	faults.Unlock()
	if !asked {
		t.Fatal("the unknown block did not make the gateway ask storage")
	}
}

// faultyStorageAt makes the gateway's storage the faulty test module.
func faultyStorageAt(t *testing.T) func(*gateway) {
	return func(g *gateway) { g.Storage = "llm_thinking_test_faulty " + t.TempDir() }
}
