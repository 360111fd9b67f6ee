package thinktags

import "github.com/caddy-llm-thinking/caddy-llm-thinking/block"

// Options say how to read and sign the think sections of a backend's
// responses.
type Options struct {
	// AssumeOpen says that the first content block of a response, when it
	// is text, starts inside a think section: the backend omits the opening
	// tag (DeepSeek-R1 style). A response that then never closes it is all
	// thinking.
	AssumeOpen bool
	// Sign mints the signature of each synthesized thinking block. It must
	// not be nil; DefaultSign gives the module's format.
	Sign Sign
}

// Block is a thinking block synthesized from a think section.
type Block struct {
	// Index is the block's position in the rewritten content.
	Index int
	// Key is the block's key, as the response observer computes it for the
	// rewritten response and as a request replaying the block gets it.
	Key block.Key
}

// maxSections bounds the think sections, and so the blocks reported, of one
// response. Each gives at most two blocks, which keeps a response within the
// 1024 content indices the response observer follows; no real response
// comes near it.
const maxSections = 256
