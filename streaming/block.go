package streaming

import "github.com/caddy-llm-thinking/caddy-llm-thinking/block"

// Block is a finished thinking or redacted_thinking block seen in a response.
type Block struct {
	Kind block.Kind
	// Index is the block's position in the response's content.
	Index int
	// Key is the block's key, as a request replaying the block gets it.
	Key block.Key
}
