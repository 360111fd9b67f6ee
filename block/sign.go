package block

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
)

// Tagger returns a deterministic signer for the thinking blocks this
// module makes from a backend's text (its <think> tags, its reasoning
// field): prefix followed by the unpadded base64url HMAC-SHA256, keyed
// with producer, of domain and then the digest of the block's text. It is
// a tag, not a secret: producer is a backend's name, which anybody can
// use. It tells the producers of equal text apart (two signatures, two
// block keys); what makes a block the producer's is the registry, which
// learned it from the producer's answer. domain keeps the tags of one use
// apart from those of any other. Where a payload must come back unforged,
// package envelope seals it with a secret key.
func Tagger(prefix, domain, producer string) func(textSum [sha256.Size]byte) string {
	k := []byte(producer)
	return func(textSum [sha256.Size]byte) string {
		mac := hmac.New(sha256.New, k)
		mac.Write([]byte(domain))
		mac.Write(textSum[:])
		var sum [sha256.Size]byte
		return prefix + base64.RawURLEncoding.EncodeToString(mac.Sum(sum[:0]))
	}
}
