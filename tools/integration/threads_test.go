package integration

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/tools/llmtest"
)

// threadClient is one conversation of a thread test and what it knows of
// whose blocks its history holds.
type threadClient struct {
	name string
	c    *llmtest.Conversation
	own  map[string][]int // backend -> indexes of its blocks in the history
}

// step sends one request of tc to backend (say it, or answer its tool
// call) and checks that backend got exactly its own blocks of this
// conversation back, byte for byte.
func (tc *threadClient) step(t *testing.T, g *gateway, backend string, send func() (*llmtest.Turn, error)) {
	t.Helper()
	before := llmtest.ThinkingBlocks(tc.c.Messages)
	okTurns(t)(send())
	got := thinkingBlocks(t, lastRequest(t, g.upstreams[backend]).Body)
	var want []json.RawMessage
	for _, i := range tc.own[backend] {
		want = append(want, before[i])
	}
	if !sameBlocks(got, want) {
		t.Fatalf("%s: %s got %d blocks, want its own %d:\n got %s\nwant %s", tc.name, backend, len(got), len(want), got, want)
	}
	for i := len(before); i < len(llmtest.ThinkingBlocks(tc.c.Messages)); i++ {
		tc.own[backend] = append(tc.own[backend], i)
	}
}

// TestThreadsOfOneScopeKeepTheirOwnBlocks runs two conversations through
// anthropic -> glm -> anthropic, interleaved request by request, tool loops
// included, as three kinds of clients send them: without any session (AI
// SDK apps, scripts), as two threads under one session id without an agent
// header, and as Claude Code runs a subagent (same session, its own agent
// header). The two conversations start with the same message, so only
// their histories tell them apart. Each must get every block its backend
// produced back, and no upstream may refuse anything.
func TestThreadsOfOneScopeKeepTheirOwnBlocks(t *testing.T) {
	kinds := []struct {
		name string
		set  func(i int, c *llmtest.Conversation)
	}{
		{"no session", func(_ int, c *llmtest.Conversation) { c.Anonymous = true }},
		{"one session id", func(_ int, c *llmtest.Conversation) {}},
		{"subagent", func(i int, c *llmtest.Conversation) {
			if i == 1 {
				c.AgentID = "agent-7"
			}
		}},
	}
	for _, kind := range kinds {
		t.Run(kind.name, func(t *testing.T) {
			g := newGateway(t, anthropicAndGLM, "anthropic")
			clients := make([]*threadClient, 2)
			for i := range clients {
				c := g.conversation("shared-session")
				kind.set(i, c)
				clients[i] = &threadClient{name: []string{"first", "second"}[i], c: c, own: map[string][]int{}}
			}
			for _, backend := range []string{"anthropic", "glm", "anthropic"} {
				g.use(backend)
				for range 2 {
					for _, tc := range clients {
						tc.step(t, g, backend, func() (*llmtest.Turn, error) { return tc.c.Say("[tool] look around") })
					}
					for _, tc := range clients {
						tc.step(t, g, backend, func() (*llmtest.Turn, error) { return tc.c.ToolResult("[tool] two files") })
					}
					for _, tc := range clients {
						tc.step(t, g, backend, func() (*llmtest.Turn, error) { return tc.c.ToolResult("done") })
					}
				}
			}
			for name, u := range g.upstreams {
				for _, r := range u.Requests() {
					if r.Status != http.StatusOK {
						t.Errorf("%s answered %d: %s", name, r.Status, r.ErrorMessage)
					}
				}
			}
			own := 0
			for _, tc := range clients {
				own += len(tc.own["anthropic"])
			}
			s := g.stats()
			if s.Retries != 0 || own < 8 {
				t.Errorf("%d retries, %d anthropic blocks in the histories; stats %+v", s.Retries, own, s)
			}
			t.Logf("%s: %d anthropic blocks back after the switches; stats %+v", kind.name, own, s)
		})
	}
}
