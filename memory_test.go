package llmthinking

import (
	"context"
	"testing"

	"github.com/caddyserver/caddy/v2"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/budget"
)

// TestReloadHandsTheBudgetOver plays a reload as Caddy does it, the new
// handler provisioned before the old one is cleaned up: the process's
// budget is the old config's, both for a moment, then the new one's.
func TestReloadHandsTheBudgetOver(t *testing.T) {
	ctx, cancel := caddy.NewContext(caddy.Context{Context: context.Background()})
	defer cancel()
	off := false
	provision := func(size int64) *Handler {
		h := &Handler{Backend: "a", Registry: t.Name(), Persist: &off, MemoryBudget: size}
		if err := h.Provision(ctx); err != nil {
			t.Fatal(err)
		}
		return h
	}
	limit := func() int64 { return budget.Process.Stats().Budget }
	old := provision(512 << 20)
	if limit() != 512<<20 {
		t.Fatalf("budget %d, want the config's 512 MiB", limit())
	}
	next := provision(0)
	if limit() != 512<<20 {
		t.Fatalf("budget %d while both configs run", limit())
	}
	old.Cleanup()
	if limit() != budget.Default() {
		t.Fatalf("budget %d once the new config alone runs, want the default", limit())
	}
	next.Cleanup()
}
