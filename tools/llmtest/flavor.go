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
	// Tagged is llama.cpp with --reasoning-format none: it emits no thinking
	// block but writes its reasoning into its text, between <think> and
	// </think> (see Upstream.OmitOpeningTag), streams that text in deltas
	// of a few runes, writes "<", ">" and "&" in its JSON as they are, and
	// validates nothing.
	Tagged
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
	case Tagged:
		return "Tagged"
	}
	return "Flavor(" + strconv.Itoa(int(f)) + ")"
}
