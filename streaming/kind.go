package streaming

import (
	"strconv"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/registry"
)

// Kind says whether a block is a thinking or a redacted_thinking block.
type Kind uint8

// The kinds of block an observer reports.
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

// Block is a finished thinking or redacted_thinking block seen in a response.
type Block struct {
	Kind Kind
	// Index is the block's position in the response's content.
	Index int
	// Key is the block's registry key: registry.ThinkingKey of its text and
	// signature, or registry.RedactedKey of its data.
	Key registry.Key
}
