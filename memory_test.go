package llmthinking

import (
	"context"
	"testing"

	"github.com/caddyserver/caddy/v2"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/state/budget"
)

// TestReloadHandsTheBudgetOver plays a reload as Caddy does it, the new
// config (the global option and a handler) provisioned before the old one
// is cleaned up: the process's budget is the old config's, both for a
// moment, then the new one's.
func TestReloadHandsTheBudgetOver(t *testing.T) {
	ctx, cancel := caddy.NewContext(caddy.Context{Context: context.Background()})
	defer cancel()
	off := false
	type config struct {
		app *App
		h   *Handler
	}
	provision := func(size int64) config {
		c := config{&App{MemoryBudget: size}, &Handler{Backend: "a", Registry: t.Name(), Persist: &off}}
		if err := c.app.Provision(ctx); err != nil {
			t.Fatal(err)
		}
		if err := c.h.Provision(ctx); err != nil {
			t.Fatal(err)
		}
		return c
	}
	cleanup := func(c config) {
		c.h.Cleanup()
		c.app.Cleanup()
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
	cleanup(old)
	if limit() != budget.Default() {
		t.Fatalf("budget %d once the new config alone runs, want the default", limit())
	}
	cleanup(next)
}
