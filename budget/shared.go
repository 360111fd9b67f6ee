package budget

import "sync"

// Process is the memory budget every module of the process shares: the
// llm_thinking handlers, the app of its global option, the transports. It
// is made when the first module that uses it is provisioned, and closed
// when the last is cleaned up, so that a Caddy whose config has no such
// module pays nothing for it. It outlives reloads: on a reload the new
// config is provisioned before the old one is cleaned up, so what the
// requests of the old config still hold counts against the new one's room.
var Process = NewShared()

// Shared is a budget and the modules that use it, with what each says of
// its size: the global option's memory_budget (the llm_thinking app's)
// wins; without it, the largest handler memory_budget, kept for configs
// written before the option; without any, Default.
type Shared struct {
	mu     sync.Mutex
	budget *Budget
	users  map[any]Vote // the modules provisioned and not cleaned up
}

// NewShared returns a shared budget nobody uses yet.
func NewShared() *Shared { return &Shared{users: make(map[any]Vote)} }

// Vote is what one user says of the budget: its size (0 for nothing), and,
// for the global option, whether it reclaims memory (nil for the default).
type Vote struct {
	Size    int64
	Global  bool // the global option's
	Reclaim *bool
}

// Join records user and its say, and returns the budget.
func (m *Shared) Join(user any, v Vote) *Budget {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.budget == nil {
		m.budget = New(Default())
	}
	m.users[user] = v
	m.apply()
	return m.budget
}

// Leave forgets user; the last one to leave closes the budget.
func (m *Shared) Leave(user any) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.users[user]; !ok {
		return
	}
	delete(m.users, user)
	if len(m.users) == 0 && m.budget != nil {
		m.budget.Close()
		m.budget = nil
		return
	}
	m.apply()
}

// apply sets the budget's limit and reclaiming from the votes.
func (m *Shared) apply() {
	var handlers, global int64
	reclaim := true
	for _, v := range m.users {
		if v.Global {
			global = max(global, v.Size)
		} else {
			handlers = max(handlers, v.Size)
		}
		if v.Reclaim != nil && !*v.Reclaim {
			reclaim = false
		}
	}
	m.budget.SetReclaim(reclaim)
	switch {
	case global > 0:
		m.budget.SetLimit(global)
	case handlers > 0:
		m.budget.SetLimit(handlers)
	default:
		m.budget.SetLimit(Default())
	}
}

// Stats returns the budget's figures; while nobody uses one, the limit
// one would have, and nothing held.
func (m *Shared) Stats() Stats {
	m.mu.Lock()
	b := m.budget
	m.mu.Unlock()
	if b == nil {
		return Stats{Budget: Default(), Reclaim: true}
	}
	return b.Stats()
}
