package llmtest

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
)

const (
	nonceSize     = 16
	boundMark     = "bound"
	redactedMark  = "redacted"
	glmPrefix     = "glm."
	glmRedactedID = "glm.redacted."
)

// signer mints and checks the opaque values of one Upstream. Its key is
// random per instance, so a block is only ever valid where it was made.
type signer struct {
	key []byte
}

func newSigner() signer {
	return signer{key: randomBytes(32)}
}

func randomBytes(n int) []byte {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		panic("llmtest: crypto/rand failed: " + err.Error())
	}
	return b
}

func (s signer) mac(parts ...[]byte) []byte {
	m := hmac.New(sha256.New, s.key)
	for _, p := range parts {
		m.Write(p)
	}
	return m.Sum(nil)
}

// thinkingSignature signs the thinking text exactly as it is displayed in
// the response ("" when display is omitted), and binds it to prefix, the
// digest of the conversation before the answer (see prefixes).
func (s signer) thinkingSignature(text string, prefix []byte) string {
	nonce := randomBytes(nonceSize)
	raw := append(nonce, s.mac(nonce, []byte(text))...)
	raw = append(raw, s.mac(nonce, []byte(boundMark), prefix)...)
	return base64.StdEncoding.EncodeToString(raw)
}

// validThinkingSignature reports whether signature is one of s's for text.
func (s signer) validThinkingSignature(text, signature string) bool {
	raw, ok := s.signatureBytes(signature)
	return ok && hmac.Equal(raw[nonceSize:nonceSize+sha256.Size], s.mac(raw[:nonceSize], []byte(text)))
}

// boundTo reports whether a valid signature of s's was made after prefix.
func (s signer) boundTo(signature string, prefix []byte) bool {
	raw, ok := s.signatureBytes(signature)
	return ok && hmac.Equal(raw[nonceSize+sha256.Size:], s.mac(raw[:nonceSize], []byte(boundMark), prefix))
}

// signatureBytes decodes a signature of the right size.
func (s signer) signatureBytes(signature string) ([]byte, bool) {
	raw, err := base64.StdEncoding.DecodeString(signature)
	return raw, err == nil && len(raw) == nonceSize+2*sha256.Size
}

func (s signer) redactedData() string {
	nonce := randomBytes(nonceSize)
	raw := append([]byte(redactedMark), nonce...)
	raw = append(raw, s.mac([]byte(redactedMark), nonce)...)
	return base64.StdEncoding.EncodeToString(raw)
}

func (s signer) validRedactedData(data string) bool {
	raw, err := base64.StdEncoding.DecodeString(data)
	if err != nil || len(raw) != len(redactedMark)+nonceSize+sha256.Size || string(raw[:len(redactedMark)]) != redactedMark {
		return false
	}
	nonce, sum := raw[len(redactedMark):len(redactedMark)+nonceSize], raw[len(redactedMark)+nonceSize:]
	return hmac.Equal(sum, s.mac([]byte(redactedMark), nonce))
}

// glmSignature is the Lenient flavor's own format: not base64, so a Strict
// instance rejects it like any foreign signature.
func (s signer) glmSignature(text string) string {
	nonce := randomBytes(nonceSize)
	return glmPrefix + hex.EncodeToString(append(nonce, s.mac(nonce, []byte(text))...))
}

func (s signer) glmRedactedData() string {
	nonce := randomBytes(nonceSize)
	return glmRedactedID + hex.EncodeToString(append(nonce, s.mac([]byte(redactedMark), nonce)...))
}
