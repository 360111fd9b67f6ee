package integration

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/adminapi"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/request/failover"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/tools/llmtest"
)

// withFailover makes the gateway fail over through backends, in order, a
// conversation that went on holding on the backend that answered for five
// minutes, as Caddyfile.example configures it. Holds are per process: the
// holds still there when the test ends are ended then, so that none sends
// another test's conversation elsewhere.
func withFailover(backends ...string) func(*gateway) {
	return func(g *gateway) {
		g.Handler += "\nfailover " + strings.Join(backends, " ") + " {\n\thold 5m\n}"
		g.t.Cleanup(func() { g.endHolds("") })
	}
}

// endHolds ends the holds on backend (on every backend when "") through
// the admin API, as an operator does once the first backend answers
// again, and returns how many ended.
func (g *gateway) endHolds(backend string) int {
	g.t.Helper()
	n, err := server.EndHolds(backend)
	if err != nil {
		g.t.Error(err)
	}
	return n
}

// holds lists the conversations that hold on a backend.
func (g *gateway) holds() []failover.Hold {
	g.t.Helper()
	h, err := server.Holds()
	if err != nil {
		g.t.Fatal(err)
	}
	return h.Holds
}

// assertHold fails unless the one hold is session's, on backend, for about
// d from now (a minute either way).
func (g *gateway) assertHold(session, backend string, d time.Duration) {
	g.t.Helper()
	h := g.holds()
	if len(h) != 1 || h[0].Conversation != hashedSession(session) || h[0].Backend != backend {
		g.t.Fatalf("holds: %+v, want %s's on %s", h, session, backend)
	}
	if left := time.Until(h[0].Until); left < d-time.Minute || left > d+time.Minute {
		g.t.Errorf("the hold on %s ends in %s, want %s", backend, left.Round(time.Second), d)
	}
}

// backends reads what each backend used and how often a request went on
// from it, since the process started.
func (g *gateway) backends() map[string]adminapi.BackendStats {
	g.t.Helper()
	b, err := server.Backends()
	if err != nil {
		g.t.Fatal(err)
	}
	return b
}

// failoversTotal is the metric of the requests that went on to another
// backend.
const failoversTotal = "caddy_llm_thinking_failovers_total"

// assertAnsweredBy fails unless the client got the answer of the upstream
// called name, with no header of an answer that turned the request away
// (the request id is the one name gave it).
func assertAnsweredBy(t *testing.T, turn *llmtest.Turn, name string) {
	t.Helper()
	if id := turn.Header.Get("Request-Id"); !strings.HasPrefix(id, "req_"+name+"_") {
		t.Errorf("the client got request id %q, want %s's", id, name)
	}
	for _, h := range []string{"Retry-After", "X-Should-Retry"} {
		if v := turn.Header.Get(h); v != "" {
			t.Errorf("the client got %s: %s, of the answer that turned its request away", h, v)
		}
	}
}

// failoverRun is a conversation through a failover list, checked on
// every turn for where its request went and what the backend that
// answered got back.
type failoverRun struct {
	t *testing.T
	g *gateway
	c *llmtest.Conversation
	// own holds each backend's thinking blocks, as the client replays them.
	own map[string][]json.RawMessage
}

// failoverRun starts a conversation through the gateway (see failoverRun).
func (g *gateway) failoverRun(session string) *failoverRun {
	return &failoverRun{t: g.t, g: g, c: g.conversation(session), own: map[string][]json.RawMessage{}}
}

// turn sends a turn, which must reach the upstreams of asked, in that
// order, each once, and no other: every one but the last turning it away,
// the last answering 200 to the client, having got back exactly the
// blocks it produced, byte for byte. It returns the turn.
func (r *failoverRun) turn(asked []string, send func() (*llmtest.Turn, error)) *llmtest.Turn {
	r.t.Helper()
	before := map[string]int{}
	for name, u := range r.g.upstreams {
		before[name] = len(u.Requests())
	}
	history := len(historyBlocks(r.c))
	turn := okTurns(r.t)(send())
	last := asked[len(asked)-1]
	for name, u := range r.g.upstreams {
		reqs := u.Requests()[before[name]:]
		want := 0
		if slices.Contains(asked, name) {
			want = 1
		}
		if len(reqs) != want {
			r.t.Fatalf("%s received %d requests, want %d (asked: %v)", name, len(reqs), want, asked)
		}
		if want == 1 && (name == last) != (reqs[0].Status == 200) {
			r.t.Fatalf("%s answered %d (asked: %v)", name, reqs[0].Status, asked)
		}
	}
	assertBlocks(r.t, thinkingBlocks(r.t, lastRequest(r.t, r.g.upstreams[last]).Body), r.own[last])
	r.own[last] = append(r.own[last], historyBlocks(r.c)[history:]...)
	return turn
}
