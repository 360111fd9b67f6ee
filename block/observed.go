package block

// Observed is a finished thinking or redacted_thinking block seen in an
// answer, as the readers of answers report it and the policy registers it.
type Observed struct {
	Kind Kind
	// Index is the block's position in the answer's content.
	Index int
	// Key is the block's key, as a request replaying the block gets it.
	Key Key
}
