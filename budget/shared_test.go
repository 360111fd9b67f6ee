package budget

import "testing"

// TestTheGlobalOptionWinsThenTheLargestHandlerVote: the app's
// memory_budget sets the process's budget; without it, the largest a
// handler sets; without any, the default. The last user to leave closes
// the budget.
func TestTheGlobalOptionWinsThenTheLargestHandlerVote(t *testing.T) {
	m := NewShared()
	a, b, c, app := new(int), new(int), new(int), new(int)
	limit := func() int64 { return m.Stats().Budget }
	m.Join(a, Vote{Size: 64 << 20})
	m.Join(b, Vote{Size: 128 << 20})
	m.Join(c, Vote{Size: 0})
	if limit() != 128<<20 {
		t.Fatalf("budget %d, want the largest set, 128 MiB", limit())
	}
	m.Join(app, Vote{Size: 32 << 20, Global: true})
	if limit() != 32<<20 {
		t.Fatalf("budget %d, want the global option's 32 MiB", limit())
	}
	m.Leave(app)
	m.Leave(b)
	m.Leave(c)
	if limit() != 64<<20 {
		t.Fatalf("budget %d once the largest went, want 64 MiB", limit())
	}
	kept := m.budget
	m.Leave(a)
	if m.budget != nil || limit() != Default() {
		t.Fatal("the budget outlived its last user")
	}
	if kept.Stats().Budget != 64<<20 {
		t.Fatalf("a budget closed changed its limit: %d", kept.Stats().Budget)
	}
	m.Join(a, Vote{Size: 0})
	if limit() != Default() {
		t.Fatalf("budget %d with none set, want the default %d", limit(), Default())
	}
}

// TestTheGlobalOptionTurnsReclaimingOff: only the global option says
// whether the budget reclaims memory; on unless it says off.
func TestTheGlobalOptionTurnsReclaimingOff(t *testing.T) {
	m := NewShared()
	off := false
	h, app := new(int), new(int)
	m.Join(h, Vote{})
	reclaims := func() bool { return m.Stats().Reclaim }
	if !reclaims() {
		t.Fatal("reclaiming is off by default")
	}
	m.Join(app, Vote{Global: true, Reclaim: &off})
	if reclaims() {
		t.Fatal("the global option did not turn reclaiming off")
	}
	m.Leave(app)
	if !reclaims() {
		t.Fatal("reclaiming stayed off once the option went")
	}
}
