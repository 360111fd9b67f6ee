package registry

import (
	"crypto/sha256"
	"encoding/hex"
	"hash"
)

// Key identifies one thinking or redacted_thinking block by its whole
// content. It is a truncated SHA-256, stable across processes, so the same
// block gets the same key whether it was read from a response stream or from
// a request that replays it.
//
// A thinking block's key covers its text and its signature: Claude Code asks
// for display "omitted", so most blocks arrive with empty text and only the
// signature tells them apart. A redacted block's key covers its data.
type Key [16]byte

// String returns the key in hex, for logs.
func (k Key) String() string { return hex.EncodeToString(k[:]) }

// Domain separators keep a thinking block and a redacted block with equal
// bytes from sharing a key. They are variables so that writing them to a
// hash.Hash does not allocate a copy each time.
var (
	thinkingDomain = []byte("llm_thinking/thinking/v1\x00")
	redactedDomain = []byte("llm_thinking/redacted_thinking/v1\x00")
)

// ThinkingHasher computes the key of a thinking block whose text arrives in
// pieces, as thinking_delta events do. The zero value is not ready; use
// NewThinkingHasher. A hasher can be reused after Reset.
type ThinkingHasher struct {
	text  hash.Hash
	outer hash.Hash
	sum   [sha256.Size]byte
}

// NewThinkingHasher returns a hasher for one block's text.
func NewThinkingHasher() *ThinkingHasher {
	return &ThinkingHasher{text: sha256.New(), outer: sha256.New()}
}

// Write adds decoded thinking text. It never fails.
func (h *ThinkingHasher) Write(p []byte) (int, error) {
	return h.text.Write(p)
}

// Reset forgets all text written so far.
func (h *ThinkingHasher) Reset() { h.text.Reset() }

// Key returns the key of the block made of the text written so far and the
// decoded signature. The signature is hashed after a fixed-size digest of the
// text, so no choice of text and signature can imitate another pair. Key does
// not reset the text.
func (h *ThinkingHasher) Key(signature []byte) Key {
	h.outer.Reset()
	h.outer.Write(thinkingDomain)
	h.outer.Write(h.text.Sum(h.sum[:0]))
	h.outer.Write(signature)
	var k Key
	copy(k[:], h.outer.Sum(h.sum[:0]))
	return k
}

// ThinkingKey returns the key of a thinking block with the given decoded text
// and signature.
func ThinkingKey(text, signature []byte) Key {
	inner := sha256.Sum256(text)
	outer := sha256.New()
	outer.Write(thinkingDomain)
	outer.Write(inner[:])
	outer.Write(signature)
	var sum [sha256.Size]byte
	var k Key
	copy(k[:], outer.Sum(sum[:0]))
	return k
}

// RedactedKey returns the key of a redacted_thinking block with the given
// decoded data.
func RedactedKey(data []byte) Key {
	h := sha256.New()
	h.Write(redactedDomain)
	h.Write(data)
	var sum [sha256.Size]byte
	var k Key
	copy(k[:], h.Sum(sum[:0]))
	return k
}
