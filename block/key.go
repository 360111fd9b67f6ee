package block

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

// Hasher computes block keys; it is the only place keys are made. A thinking
// block's decoded text is written to it, whole or in pieces as
// thinking_delta events deliver it, and Thinking then gives the key of that
// text with a signature. The zero value is ready to use, and a Hasher can be
// reused after Reset. A Hasher is not safe for concurrent use.
type Hasher struct {
	text  hash.Hash
	outer hash.Hash
	sum   [sha256.Size]byte
	wrote bool // text was written since the last Reset
}

// emptyText is the digest of no text. Claude Code asks for display
// "omitted", so most blocks have no text: their key skips a digest.
var emptyText = sha256.Sum256(nil)

// init allocates the digests on first use, so that the zero value works.
func (h *Hasher) init() {
	if h.text == nil {
		h.text, h.outer = sha256.New(), sha256.New()
	}
}

// Write adds decoded thinking text. It never fails.
func (h *Hasher) Write(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	h.init()
	h.wrote = true
	return h.text.Write(p)
}

// Reset forgets all text written so far.
func (h *Hasher) Reset() {
	if h.wrote {
		h.text.Reset()
		h.wrote = false
	}
}

// Thinking returns the key of the thinking block made of the text written
// since the last Reset and the decoded signature. The signature is hashed
// after a fixed-size digest of the text, so no choice of text and signature
// can imitate another pair. Thinking does not reset the text.
func (h *Hasher) Thinking(signature []byte) Key {
	h.init()
	h.outer.Reset()
	h.outer.Write(thinkingDomain)
	if h.wrote {
		h.outer.Write(h.text.Sum(h.sum[:0]))
	} else {
		h.outer.Write(emptyText[:])
	}
	h.outer.Write(signature)
	return h.outerKey()
}

// Redacted returns the key of the redacted_thinking block with the given
// decoded data. The text written so far plays no part in it.
func (h *Hasher) Redacted(data []byte) Key {
	h.init()
	h.outer.Reset()
	h.outer.Write(redactedDomain)
	h.outer.Write(data)
	return h.outerKey()
}

func (h *Hasher) outerKey() Key {
	var k Key
	copy(k[:], h.outer.Sum(h.sum[:0]))
	return k
}
