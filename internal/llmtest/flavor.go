package llmtest

import "strconv"

// Flavor is the kind of backend an Upstream plays.
type Flavor int

const (
	// Strict is Anthropic-like: it signs its thinking blocks, validates every
	// incoming block and answers the API's exact 400 errors.
	Strict Flavor = iota + 1
	// Lenient is GLM-like: it signs its own blocks in its own format and
	// validates nothing.
	Lenient
	// Unsigned is Ollama-like: its thinking blocks carry no signature at all,
	// it validates nothing and never emits redacted_thinking.
	Unsigned
)

// String returns the flavor's name.
func (f Flavor) String() string {
	switch f {
	case Strict:
		return "Strict"
	case Lenient:
		return "Lenient"
	case Unsigned:
		return "Unsigned"
	}
	return "Flavor(" + strconv.Itoa(int(f)) + ")"
}
