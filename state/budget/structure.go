package budget

import "errors"

// What reading a request costs in memory, beyond its body: the structure
// of its messages and content blocks, and what the policy, the registry and
// the thread make of them (thinking.Footprint). A Claude Code request's
// structure takes a few percent of its size, a conversation of the
// smallest tool loops 1.8 times; a request of a million tiny thinking
// blocks would take seventeen times its size. So the structure is counted
// in the memory budget as it grows, before it is spent, and it may take at
// most twice the body's size and 1 MiB: a request beyond that is refused
// with 413, having cost a bounded read.

// ErrTooManyParts refuses a request whose structure costs more than its
// size allows.
var ErrTooManyParts = errors.New("request holds more messages and content blocks than llm_thinking reads in a body of its size")

// StructureMeter counts a request's structure in its account as it grows
// (its Meter is a thinking.Meter).
type StructureMeter struct {
	t        *Ticket
	limit    int
	reserved int64
}

// NewStructureMeter returns the meter of the structure of a body of size
// bytes, counted in t: it may take twice the size and 1 MiB.
func NewStructureMeter(t *Ticket, size int) *StructureMeter {
	return &StructureMeter{t: t, limit: 2*size + 1<<20}
}

// Meter reserves what the structure takes beyond what was reserved, waiting
// for room as a body does, or refuses a structure over its limit.
func (m *StructureMeter) Meter(bytes int) error {
	if bytes > m.limit {
		return ErrTooManyParts
	}
	if n := int64(bytes) - m.reserved; n > 0 {
		if err := m.t.Reserve(n, true); err != nil {
			return err
		}
		m.reserved += n
	}
	return nil
}

// Release gives the room back once the plan is done with the structure.
func (m *StructureMeter) Release() {
	if m.reserved > 0 {
		m.t.Unreserve(m.reserved)
		m.reserved = 0
	}
}

// TurnsAway reports whether an error of reading a request turns the
// request away rather than passing its body on as it came: its structure
// was too large, or found no room.
func TurnsAway(err error) bool {
	return errors.Is(err, ErrTooManyParts) || errors.Is(err, ErrOverloaded) ||
		errors.Is(err, ErrGaveWay) || errors.Is(err, ErrBeyondBudget)
}
