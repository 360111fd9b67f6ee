package thinktags

import (
	"crypto/sha256"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/block"
)

// SignaturePrefix starts every signature DefaultSign mints (see
// block.SynthesizedPrefix): a block carrying one is known on sight to have
// been synthesized by this module.
const SignaturePrefix = block.SynthesizedPrefix

// Sign mints the signature of a synthesized thinking block from the SHA-256
// digest of its text. It must be deterministic: the block's key covers the
// signature, and the same text must get the same key from the streaming and
// the JSON rewriter.
type Sign func(textSum [sha256.Size]byte) string

// signDomain keeps these MACs apart from any other use of the same key.
const signDomain = "llm_thinking/think_tags/v1\x00"

// DefaultSign returns the Sign of the module's own format for blocks
// synthesized from the responses of one backend: SignaturePrefix followed by
// the unpadded base64url HMAC-SHA256, keyed with the backend's name, of the
// text digest. Equal thinking from two backends so gets two keys, and the
// registry never mistakes one backend's block for another's.
func DefaultSign(backend string) Sign {
	return block.Tagger(SignaturePrefix, signDomain, backend)
}
