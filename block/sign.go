package block

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
)

// MACSigner returns a deterministic signer for the thinking blocks this
// module makes: prefix followed by the unpadded base64url HMAC-SHA256,
// keyed with key, of domain and then the digest of the block's text.
// domain keeps the MACs of one use apart from those of any other with the
// same key; key names who produced the text, so that equal text from two
// producers gets two signatures, and two block keys.
func MACSigner(prefix, domain, key string) func(textSum [sha256.Size]byte) string {
	k := []byte(key)
	return func(textSum [sha256.Size]byte) string {
		mac := hmac.New(sha256.New, k)
		mac.Write([]byte(domain))
		mac.Write(textSum[:])
		var sum [sha256.Size]byte
		return prefix + base64.RawURLEncoding.EncodeToString(mac.Sum(sum[:0]))
	}
}
