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

// Shared is a budget and the modules that use it: the llm_thinking
// handlers and the transports use it, the global option (the llm_thinking
// app) sets it up (see Settings); without the option it is Default.
type Shared struct {
	mu     sync.Mutex
	budget *Budget
	users  map[any]*Settings // the modules provisioned and not cleaned up; the global option's settings
}

// NewShared returns a shared budget nobody uses yet.
func NewShared() *Shared { return &Shared{users: make(map[any]*Settings)} }

// Settings are the global option's: the budget's size, 0 for the
// default.
type Settings struct {
	Size int64
}

// Join records user, and returns the budget.
func (m *Shared) Join(user any) *Budget { return m.join(user, nil) }

// Configure records user as the global option with its settings, and
// returns the budget.
func (m *Shared) Configure(user any, s Settings) *Budget { return m.join(user, &s) }

func (m *Shared) join(user any, s *Settings) *Budget {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.budget == nil {
		m.budget = New(Default())
	}
	m.users[user] = s
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

// apply sets the budget's limit from the global option's settings. Two
// configs live at once during a reload: the larger size holds until the
// old one leaves.
func (m *Shared) apply() {
	var size int64
	for _, s := range m.users {
		if s != nil {
			size = max(size, s.Size)
		}
	}
	if size > 0 {
		m.budget.SetLimit(size)
	} else {
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
		return Stats{Budget: Default()}
	}
	return b.Stats()
}
