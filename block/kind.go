package block

import "strconv"

// Kind says whether a block is a thinking or a redacted_thinking block.
type Kind uint8

// The kinds of block the gateway follows.
const (
	Thinking Kind = iota + 1
	Redacted
)

// String returns the block type as the Messages API spells it.
func (k Kind) String() string {
	switch k {
	case Thinking:
		return "thinking"
	case Redacted:
		return "redacted_thinking"
	}
	return "Kind(" + strconv.Itoa(int(k)) + ")"
}
