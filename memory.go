package llmthinking

import (
	"sync"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/budget"
)

// processMemory is the memory budget every handler of the process shares
// (see package budget). It is made when the first handler or app that uses
// it is provisioned, and closed when the last is cleaned up, so that a
// Caddy whose config has no llm_thinking pays nothing for it. It outlives
// reloads: on a reload the new config is provisioned before the old one is
// cleaned up, so what the requests of the old config still hold counts
// against the new one's room.
var processMemory = &sharedBudget{users: make(map[any]vote)}

// sharedBudget is the process's budget and who uses it, with what each
// says of its size: the global option's memory_budget (the llm_thinking
// app's) wins; without it, the largest handler memory_budget, kept for
// configs written before the option; without any, budget.Default.
type sharedBudget struct {
	mu     sync.Mutex
	budget *budget.Budget
	users  map[any]vote // the handlers and apps provisioned and not cleaned up
}

// vote is what one user says of the budget: its size (0 for nothing), and,
// for the global option, whether it reclaims memory (nil for the default).
type vote struct {
	size    int64
	global  bool // the global option's
	reclaim *bool
}

// join records user and its say, and returns the budget.
func (m *sharedBudget) join(user any, v vote) *budget.Budget {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.budget == nil {
		m.budget = budget.New(budget.Default())
	}
	m.users[user] = v
	m.apply()
	return m.budget
}

// leave forgets user; the last one to leave closes the budget.
func (m *sharedBudget) leave(user any) {
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
func (m *sharedBudget) apply() {
	var handlers, global int64
	reclaim := true
	for _, v := range m.users {
		if v.global {
			global = max(global, v.size)
		} else {
			handlers = max(handlers, v.size)
		}
		if v.reclaim != nil && !*v.reclaim {
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
		m.budget.SetLimit(budget.Default())
	}
}

// stats returns the budget's figures; while no handler uses one, the
// limit one would have, and nothing held.
func (m *sharedBudget) stats() budget.Stats {
	m.mu.Lock()
	b := m.budget
	m.mu.Unlock()
	if b == nil {
		return budget.Stats{Budget: budget.Default(), Reclaim: true}
	}
	return b.Stats()
}
