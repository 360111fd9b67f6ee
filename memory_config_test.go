package llmthinking

import (
	"context"
	"math"
	"runtime/debug"
	"testing"

	"github.com/caddyserver/caddy/v2"
)

func TestMemoryBudgetLargestWins(t *testing.T) {
	v := &memoryVotes{budget: newMemoryBudget(1 << 20), votes: make(map[*Handler]int64)}
	limit := func() int64 { return v.budget.stats().Budget }
	a, b, c := new(Handler), new(Handler), new(Handler)
	v.cast(a, 64<<20)
	v.cast(b, 128<<20)
	v.cast(c, 0)
	if limit() != 128<<20 {
		t.Fatalf("budget %d, want the largest set, 128 MiB", limit())
	}
	v.withdraw(b)
	v.withdraw(c)
	if limit() != 64<<20 {
		t.Fatalf("budget %d once the largest went, want 64 MiB", limit())
	}
	v.withdraw(a)
	if limit() != defaultMemoryBudget() {
		t.Fatalf("budget %d with none set, want the default %d", limit(), defaultMemoryBudget())
	}
}

func TestDefaultMemoryBudgetFollowsGOMEMLIMIT(t *testing.T) {
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(-1))
	debug.SetMemoryLimit(math.MaxInt64)
	if got := defaultMemoryBudget(); got != DefaultMemoryBudget {
		t.Fatalf("without GOMEMLIMIT: %d", got)
	}
	debug.SetMemoryLimit(256 << 20)
	if got := defaultMemoryBudget(); got != 128<<20 {
		t.Fatalf("with GOMEMLIMIT 256MiB: %d, want half", got)
	}
	debug.SetMemoryLimit(16 << 30)
	if got := defaultMemoryBudget(); got != DefaultMemoryBudget {
		t.Fatalf("with GOMEMLIMIT 16GiB: %d, want the default", got)
	}
}

// TestReloadHandsTheBudgetOver plays a reload as Caddy does it, the new
// handler provisioned before the old one is cleaned up: the process's
// budget is the old config's, both for a moment, then the new one's.
func TestReloadHandsTheBudgetOver(t *testing.T) {
	ctx, cancel := caddy.NewContext(caddy.Context{Context: context.Background()})
	defer cancel()
	off := false
	provision := func(budget int64) *Handler {
		h := &Handler{Backend: "a", Registry: t.Name(), Persist: &off, MemoryBudget: budget}
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
	if limit() != defaultMemoryBudget() {
		t.Fatalf("budget %d once the new config alone runs, want the default", limit())
	}
	next.Cleanup()
}
