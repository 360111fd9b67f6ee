package chatcompletions

import (
	"crypto/sha256"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/block"
)

// Sign mints the signature of a thinking block made from a server's
// reasoning, from the SHA-256 digest of its text. It must be deterministic:
// the block's key covers the signature, and a stream and a JSON answer with
// the same reasoning must give the same key.
type Sign func(textSum [sha256.Size]byte) string

// signDomain keeps these MACs apart from any other use of the same key.
const signDomain = "llm_thinking/chat_completions/v1\x00"

// DefaultSign returns the Sign for the answers of one server, named by
// identity (the transport uses the upstream's address): block.ReasoningPrefix
// followed by the unpadded base64url HMAC-SHA256, keyed with identity, of
// the text digest. Equal reasoning from two servers so gets two keys, and
// llm_thinking, which registers each block for the backend it routed the
// request to, never mistakes one server's block for another's.
func DefaultSign(identity string) Sign {
	return block.Tagger(block.ReasoningPrefix, signDomain, identity)
}
