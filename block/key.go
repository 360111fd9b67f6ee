package block

import (
	"encoding/binary"
	"encoding/hex"

	"github.com/cespare/xxhash/v2"
)

// Key identifies one thinking or redacted_thinking block by its whole
// content. It is stable across processes and releases, so the same block
// gets the same key whether it was read from a response stream or from a
// request that replays it, and whichever gateway sharing a registry read it.
//
// A thinking block's key covers its text and its signature: Claude Code asks
// for display "omitted", so most blocks arrive with empty text and only the
// signature tells them apart. A redacted block's key covers its data.
//
// A key is 128 bits of two independently seeded XXH64 digests, not a
// cryptographic hash: keys are computed for every block of every request,
// and SHA-256 cost a quarter of reading a body. Accidental collisions are
// out of reach (about 2^-100 for a million blocks). A deliberate one needs
// the other block's bytes, which live only in its own conversation, and
// could only make the gateway strip a block or replay one refusal.
type Key [16]byte

// String returns the key in hex, for logs.
func (k Key) String() string { return hex.EncodeToString(k[:]) }

// Seeds of the two digests, one pair per kind of block, so that a thinking
// block and a redacted block with equal bytes never share a key.
type seeds struct{ low, high uint64 }

var (
	thinkingSeeds = seeds{0x6c6c6d5f7468696e, 0x6b696e675f6b6579} // "llm_thinking_key"
	redactedSeeds = seeds{0x6c6c6d5f72656461, 0x637465645f6b6579} // "llm_redacted_key"
)

// Hasher computes block keys; it is the only place keys are made. A thinking
// block's decoded text is written to it, whole or in pieces as
// thinking_delta events deliver it, and Thinking then gives the key of that
// text with a signature. The zero value is ready to use, and a Hasher can be
// reused after Reset. A Hasher is not safe for concurrent use.
type Hasher struct {
	low, high xxhash.Digest
	textLen   uint64 // bytes of text written since the last Reset
	started   bool   // the digests are seeded and hold textLen bytes of text, less pending's

	// pending is text written and not yet given to the digests: a stream
	// writes a few words at a time, which cost the two digests far more
	// given one by one than gathered.
	pending  [512]byte
	nPending int
}

// start readies the digests for a block of the kind s seeds.
func (h *Hasher) start(s seeds) {
	h.low.ResetWithSeed(s.low)
	h.high.ResetWithSeed(s.high)
	h.textLen, h.started, h.nPending = 0, true, 0
}

// Write adds decoded thinking text. It never fails.
func (h *Hasher) Write(p []byte) (int, error) {
	if !h.started {
		h.start(thinkingSeeds)
	}
	h.textLen += uint64(len(p))
	if h.nPending+len(p) <= len(h.pending) {
		h.nPending += copy(h.pending[h.nPending:], p)
		return len(p), nil
	}
	h.flush()
	if len(p) < len(h.pending) {
		h.nPending = copy(h.pending[:], p)
		return len(p), nil
	}
	h.low.Write(p)
	h.high.Write(p)
	return len(p), nil
}

// flush gives the pending text to the digests.
func (h *Hasher) flush() {
	if h.nPending > 0 {
		h.low.Write(h.pending[:h.nPending])
		h.high.Write(h.pending[:h.nPending])
		h.nPending = 0
	}
}

// Reset forgets all text written so far.
func (h *Hasher) Reset() { h.started = false }

// Thinking returns the key of the thinking block made of the text written
// since the last Reset and the decoded signature. The lengths of both are
// hashed after them, so no choice of text and signature can imitate another
// pair. Thinking ends the block: the next one starts with Reset.
func (h *Hasher) Thinking(signature []byte) Key {
	if !h.started {
		h.start(thinkingSeeds)
	}
	return h.finish(signature, h.textLen)
}

// Redacted returns the key of the redacted_thinking block with the given
// decoded data. The text written so far plays no part in it, and is
// forgotten.
func (h *Hasher) Redacted(data []byte) Key {
	h.start(redactedSeeds)
	return h.finish(data, 0)
}

// finish writes the last field and the lengths, and returns the key.
func (h *Hasher) finish(last []byte, textLen uint64) Key {
	var lengths [16]byte
	binary.LittleEndian.PutUint64(lengths[:8], textLen)
	binary.LittleEndian.PutUint64(lengths[8:], uint64(len(last)))
	h.flush()
	h.low.Write(last)
	h.high.Write(last)
	h.low.Write(lengths[:])
	h.high.Write(lengths[:])
	h.started = false
	var k Key
	binary.BigEndian.PutUint64(k[:8], h.low.Sum64())
	binary.BigEndian.PutUint64(k[8:], h.high.Sum64())
	return k
}
