package budget

import "testing"

// TestTheGlobalOptionSetsTheSize: the app's memory_budget sets the
// process's budget; handlers and transports say nothing of it; without
// the option, the default. The last user to leave closes the budget.
func TestTheGlobalOptionSetsTheSize(t *testing.T) {
	m := NewShared()
	h, tr, app := new(int), new(int), new(int)
	limit := func() int64 { return m.Stats().Budget }
	m.Join(h)
	m.Join(tr)
	if limit() != Default() {
		t.Fatalf("budget %d, want the default %d", limit(), Default())
	}
	m.Configure(app, Settings{Size: 32 << 20})
	if limit() != 32<<20 {
		t.Fatalf("budget %d, want the global option's 32 MiB", limit())
	}
	// A reload: the new config's option joins before the old one leaves.
	next := new(int)
	m.Configure(next, Settings{Size: 64 << 20})
	m.Leave(app)
	if limit() != 64<<20 {
		t.Fatalf("budget %d after a reload, want 64 MiB", limit())
	}
	m.Leave(next)
	if limit() != Default() {
		t.Fatalf("budget %d once the option went, want the default", limit())
	}
	kept := m.budget
	m.Leave(h)
	m.Leave(tr)
	if m.budget != nil || limit() != Default() {
		t.Fatal("the budget outlived its last user")
	}
	if kept.Stats().Budget != Default() {
		t.Fatalf("a budget closed changed its limit: %d", kept.Stats().Budget)
	}
}
