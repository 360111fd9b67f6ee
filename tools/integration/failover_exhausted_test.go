package integration

import (
	"bytes"
	"net/http"
	"testing"
	"time"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/tools/llmtest"
)

// TestFailoverEveryBackendFails: when every backend of the list turns the
// request away (Anthropic, then a second Anthropic account, both strict),
// the client gets the last one's answer as it came: its status, its
// envelope byte for byte, its retry-after and request id, nothing of the
// first's.
func TestFailoverEveryBackendFails(t *testing.T) {
	for _, tc := range []struct {
		name        string
		first, last llmtest.Failure
		stream      bool
	}{
		{"rate-limited", llmtest.RateLimited(30), llmtest.RateLimited(7), false},
		{"overloaded", llmtest.Overloaded, llmtest.Overloaded, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := newGateway(t, map[string]llmtest.Flavor{"anthropic": llmtest.Strict, "backup": llmtest.Strict}, "anthropic",
				withFailover("anthropic", "backup"))
			anthropic, backup := g.upstreams["anthropic"], g.upstreams["backup"]
			anthropic.FailNext(tc.first)
			backup.FailNext(tc.last)
			c := g.noRetries(g.conversation("failover-exhausted-" + tc.name))
			c.Stream = tc.stream
			turn, err := c.Say("hello")
			if err != nil {
				t.Fatal(err)
			}
			sent := lastRequest(t, backup)
			if turn.Status != tc.last.Status || !bytes.Equal(turn.Body, sent.Response) || turn.ErrorType != tc.last.Type {
				t.Fatalf("the client got %d %s, want backup's %d %s", turn.Status, turn.Body, tc.last.Status, sent.Response)
			}
			for _, h := range []string{"Retry-After", "X-Should-Retry"} {
				if got, want := turn.Header.Get(h), tc.last.Header.Get(h); got != want {
					t.Errorf("%s: %q, want backup's %q", h, got, want)
				}
			}
			if id := turn.Header.Get("Request-Id"); id != "req_backup_1" {
				t.Errorf("request id %q, want backup's", id)
			}
			if n, m := len(anthropic.Requests()), len(backup.Requests()); n != 1 || m != 1 {
				t.Errorf("anthropic got %d requests, backup %d; want one each", n, m)
			}
		})
	}
}

// noRetries makes c send each request once: the gateway's own answer is
// what the test reads, not the one a retry of a 529 gets (see
// gatewaytest.Transport).
func (g *gateway) noRetries(c *llmtest.Conversation) *llmtest.Conversation {
	tr := &http.Transport{}
	g.t.Cleanup(tr.CloseIdleConnections)
	c.Client = &http.Client{Transport: tr, Timeout: 15 * time.Second}
	return c
}

// TestFailoverLastBackendUnreachable: a last backend that cannot be
// reached (nothing listens at its address) gives the client a 502 in
// Anthropic's envelope, which clients retry, not the first backend's 529.
func TestFailoverLastBackendUnreachable(t *testing.T) {
	g := newGateway(t, map[string]llmtest.Flavor{"anthropic": llmtest.Strict}, "anthropic",
		withFailover("anthropic", "down"), func(g *gateway) { g.Upstreams["down"] = "127.0.0.1:1" })
	g.upstreams["anthropic"].FailNext(llmtest.Overloaded)
	c := g.noRetries(g.conversation("failover-unreachable"))
	turn, err := c.Say("hello")
	if err != nil {
		t.Fatal(err)
	}
	if turn.Status != http.StatusBadGateway || turn.ErrorType != "api_error" || turn.ErrorMessage == "" {
		t.Fatalf("the client got %d %s", turn.Status, turn.Body)
	}
	if turn.Header.Get("Request-Id") != "" || turn.Header.Get("X-Should-Retry") != "" {
		t.Errorf("the 502 carries the headers of Anthropic's 529: %v", turn.Header)
	}
}
