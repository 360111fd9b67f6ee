package llmthinking

import (
	"errors"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/state/budget"
)

// What reading a request costs in memory, beyond its body: the structure
// of its messages and content blocks, and what the policy, the registry and
// the thread make of them (thinking.Footprint). A Claude Code request's
// structure takes a few percent of its size, a conversation of the
// smallest tool loops 1.8 times; a request of a million tiny thinking
// blocks would take seventeen times its size. So the structure is counted
// in the memory budget as it grows, before it is spent, and it may take at
// most twice the body's size and 1 MiB: a request beyond that is refused
// with 413, having cost a bounded read.

// errTooManyParts refuses a request whose structure costs more than its
// size allows.
var errTooManyParts = errors.New("request holds more messages and content blocks than llm_thinking reads in a body of its size")

// maxStructure returns what the structure of a body of size bytes may take.
func maxStructure(size int) int { return 2*size + 1<<20 }

// structureMeter counts a request's structure in its account as it grows
// (see thinking.Meter).
type structureMeter struct {
	t        *budget.Ticket
	limit    int
	reserved int64
}

// meter reserves what the structure takes beyond what was reserved, waiting
// for room as a body does, or refuses a structure over its limit.
func (m *structureMeter) meter(bytes int) error {
	if bytes > m.limit {
		return errTooManyParts
	}
	if n := int64(bytes) - m.reserved; n > 0 {
		if err := m.t.Reserve(n, true); err != nil {
			return err
		}
		m.reserved += n
	}
	return nil
}

// release gives the room back once the plan is done with the structure.
func (m *structureMeter) release() {
	if m.reserved > 0 {
		m.t.Unreserve(m.reserved)
		m.reserved = 0
	}
}

// turnedAway reports whether a plan's Passthrough turns the request away
// (see turnAway) rather than passing its body on: its structure was too
// large, or found no room.
func turnedAway(err error) bool {
	return errors.Is(err, errTooManyParts) || errors.Is(err, budget.ErrOverloaded) ||
		errors.Is(err, budget.ErrGaveWay) || errors.Is(err, budget.ErrBeyondBudget)
}
