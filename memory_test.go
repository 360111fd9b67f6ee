package llmthinking

import (
	"context"
	"testing"

	"github.com/caddyserver/caddy/v2"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/budget"
)

// TestTheGlobalOptionWinsThenTheLargestHandlerVote: the app's
// memory_budget sets the process's budget; without it, the largest a
// handler sets; without any, the default. The last user to leave closes
// the budget.
func TestTheGlobalOptionWinsThenTheLargestHandlerVote(t *testing.T) {
	m := &sharedBudget{users: make(map[any]vote)}
	a, b, c, app := new(Handler), new(Handler), new(Handler), new(App)
	limit := func() int64 { return m.stats().Budget }
	m.join(a, vote{size: 64 << 20})
	m.join(b, vote{size: 128 << 20})
	m.join(c, vote{size: 0})
	if limit() != 128<<20 {
		t.Fatalf("budget %d, want the largest set, 128 MiB", limit())
	}
	m.join(app, vote{size: 32 << 20, global: true})
	if limit() != 32<<20 {
		t.Fatalf("budget %d, want the global option's 32 MiB", limit())
	}
	m.leave(app)
	m.leave(b)
	m.leave(c)
	if limit() != 64<<20 {
		t.Fatalf("budget %d once the largest went, want 64 MiB", limit())
	}
	kept := m.budget
	m.leave(a)
	if m.budget != nil || limit() != budget.Default() {
		t.Fatal("the budget outlived its last user")
	}
	if kept.Stats().Budget != 64<<20 {
		t.Fatalf("a budget closed changed its limit: %d", kept.Stats().Budget)
	}
	m.join(a, vote{size: 0})
	if limit() != budget.Default() {
		t.Fatalf("budget %d with none set, want the default %d", limit(), budget.Default())
	}
}

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
	limit := func() int64 { return processMemory.stats().Budget }
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

// TestTheGlobalOptionTurnsReclaimingOff: only the global option says
// whether the budget reclaims memory; on unless it says off.
func TestTheGlobalOptionTurnsReclaimingOff(t *testing.T) {
	m := &sharedBudget{users: make(map[any]vote)}
	off := false
	h, app := new(Handler), new(App)
	m.join(h, vote{})
	reclaims := func() bool { return m.stats().Reclaim }
	if !reclaims() {
		t.Fatal("reclaiming is off by default")
	}
	m.join(app, vote{global: true, reclaim: &off})
	if reclaims() {
		t.Fatal("the global option did not turn reclaiming off")
	}
	m.leave(app)
	if !reclaims() {
		t.Fatal("reclaiming stayed off once the option went")
	}
}
