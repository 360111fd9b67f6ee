package integration

import (
	"fmt"
	"strings"
	"testing"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/tools/llmtest"
)

// accounts are two Anthropic accounts, strict mocks each signing with a
// key of its own: another account refuses a conversation's blocks as the
// newest models, bound to the account, do.
var accounts = map[string]llmtest.Flavor{"account-a": llmtest.Strict, "account-b": llmtest.Strict}

// pooled makes the site's one reverse_proxy a pool of the accounts, picked
// by the lb_policy given, behind llm_thinking with one backend name for
// the pool, as docs/configuration.md's "One account per conversation"
// configures it.
func pooled(policy string) func(*gateway) {
	return func(g *gateway) {
		g.Proxy = g.Upstreams["account-a"] + " " + g.Upstreams["account-b"] + " {\n\t\tlb_policy " + policy + "\n\t}"
		g.Handler = "backend anthropic\nregistry " + registryName(g.t)
	}
}

// poolTurns are the turns of each conversation after its first: a tool
// loop goes on, ends, and a turn follows.
var poolTurns = []func(c *llmtest.Conversation) (*llmtest.Turn, error){
	func(c *llmtest.Conversation) (*llmtest.Turn, error) { return c.ToolResult("a.go b.go [tool]") },
	func(c *llmtest.Conversation) (*llmtest.Turn, error) { return c.ToolResult("package a") },
	func(c *llmtest.Conversation) (*llmtest.Turn, error) { return c.Say("thanks") },
}

// poolTraffic runs conversations with thinking and tool loops through the
// pool: their first turns one after another, until there are five or more,
// an odd number, and each account got one (the header policy hashes the
// session id, so which is not known ahead); then their other turns in
// rounds, a turn of each conversation in turn, every other conversation
// streamed. An odd number makes round_robin send each conversation's turns
// to both accounts. It returns the sessions, in order.
func poolTraffic(t *testing.T, g *gateway) []string {
	t.Helper()
	ok := okTurns(t)
	var sessions []string
	var convs []*llmtest.Conversation
	for len(convs) < 5 || len(convs)%2 == 0 || !bothServed(g, sessions) {
		if len(convs) == 33 {
			t.Fatalf("33 conversations and %v: one account got all", sessions)
		}
		session := fmt.Sprintf("pool-%d", len(convs))
		c := g.conversation(session)
		c.Stream = len(convs)%2 == 0
		ok(c.Say("[tool] look around"))
		sessions, convs = append(sessions, session), append(convs, c)
	}
	for _, turn := range poolTurns {
		for _, c := range convs {
			ok(turn(c))
		}
	}
	return sessions
}

// bothServed reports whether each account got a request of one of the
// sessions.
func bothServed(g *gateway, sessions []string) bool {
	for name := range accounts {
		if servedBy(g.upstreams[name], sessions) == 0 {
			return false
		}
	}
	return true
}

// servedBy counts the sessions whose requests u got.
func servedBy(u *llmtest.Upstream, sessions []string) int {
	n := 0
	for _, s := range sessions {
		if len(u.RequestsOf(s)) > 0 {
			n++
		}
	}
	return n
}

// TestPoolKeepsEachConversationOnItsAccount: behind one reverse_proxy with
// lb_policy header X-Claude-Code-Session-Id, conversations spread over both
// accounts, every request of a conversation goes to the same account, and
// neither refuses anything.
func TestPoolKeepsEachConversationOnItsAccount(t *testing.T) {
	g := newGateway(t, accounts, "", pooled("header X-Claude-Code-Session-Id"))
	a, b := g.upstreams["account-a"], g.upstreams["account-b"]
	sessions := poolTraffic(t, g)
	for _, s := range sessions {
		na, nb := len(a.RequestsOf(s)), len(b.RequestsOf(s))
		if na*nb != 0 || na+nb != 1+len(poolTurns) {
			t.Errorf("conversation %s: %d requests on account-a, %d on account-b", s, na, nb)
		}
	}
	t.Logf("%d conversations: %d on account-a, %d on account-b", len(sessions), servedBy(a, sessions), servedBy(b, sessions))
	if n, m := refusals(a), refusals(b); n+m != 0 {
		t.Errorf("account-a refused %d requests, account-b %d", n, m)
	}
	if st := g.stats(); st.Retries != 0 {
		t.Errorf("%d refusals replayed", st.Retries)
	}
}

// TestPoolWithoutStickinessIsRefused shows the same traffic without the
// sticky policy: round_robin sends a conversation's next request to the
// other account, which refuses the blocks the first signed. The safety net
// hides it from the clients (every turn is answered): each refusal is
// replayed without the refused blocks, which the conversation loses.
func TestPoolWithoutStickinessIsRefused(t *testing.T) {
	g := newGateway(t, accounts, "", pooled("round_robin"))
	a, b := g.upstreams["account-a"], g.upstreams["account-b"]
	poolTraffic(t, g)
	signature := 0
	for _, u := range []*llmtest.Upstream{a, b} {
		for _, r := range u.Requests() {
			if r.Status == 400 && strings.Contains(r.ErrorMessage, "Invalid `signature` in `thinking` block") {
				signature++
			}
		}
	}
	if signature == 0 {
		t.Fatalf("no signature refused: account-a refused %d requests, account-b %d", refusals(a), refusals(b))
	}
	if st := g.stats(); st.Retries != uint64(signature) {
		t.Errorf("%d signatures refused, %d refusals replayed", signature, st.Retries)
	}
}
