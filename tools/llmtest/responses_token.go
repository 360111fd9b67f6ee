package llmtest

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
)

// respSecret seals the encrypted_content of every ResponsesUpstream, so
// that what one issued another reads, as OpenAI reads what it issued to
// any organization; the organization sealed inside decides.
var respSecret = []byte("llmtest: the Responses mock's reasoning")

// respSealed is what a reasoning item's encrypted_content carries: the
// organization it was issued to, the item's id and the id of the item
// that followed it in the answer.
type respSealed struct {
	org, id, next string
}

// respTokenHead is Fernet's version byte and a timestamp: every token
// begins "gAAAAABo", as OpenAI's do.
var respTokenHead = []byte{0x80, 0, 0, 0, 0, 0x68, 0, 0, 0}

// sealReasoning returns the encrypted_content for s: the fields after the
// head, each after its length, then their HMAC, in padded base64url. It
// is verified without a table, by any ResponsesUpstream.
func sealReasoning(s respSealed) string {
	b := append([]byte(nil), respTokenHead...)
	for _, f := range []string{s.org, s.id, s.next} {
		b = binary.AppendUvarint(b, uint64(len(f)))
		b = append(b, f...)
	}
	mac := hmac.New(sha256.New, respSecret)
	mac.Write(b)
	return base64.URLEncoding.EncodeToString(mac.Sum(b))
}

// openReasoning reads encrypted_content; it fails on anything
// sealReasoning did not write, a byte changed or cut anywhere.
func openReasoning(token string) (respSealed, bool) {
	b, err := base64.URLEncoding.DecodeString(token)
	if err != nil || len(b) < len(respTokenHead)+sha256.Size {
		return respSealed{}, false
	}
	body, sum := b[:len(b)-sha256.Size], b[len(b)-sha256.Size:]
	mac := hmac.New(sha256.New, respSecret)
	mac.Write(body)
	if !hmac.Equal(mac.Sum(nil), sum) {
		return respSealed{}, false
	}
	rest := body[len(respTokenHead):]
	var f [3]string
	for i := range f {
		n, k := binary.Uvarint(rest)
		if k <= 0 || n > uint64(len(rest)-k) {
			return respSealed{}, false
		}
		f[i], rest = string(rest[k:k+int(n)]), rest[k+int(n):]
	}
	if len(rest) > 0 {
		return respSealed{}, false
	}
	return respSealed{org: f[0], id: f[1], next: f[2]}, true
}

// shortToken is how OpenAI's messages show a token: its first and last
// four characters.
func shortToken(token string) string {
	if len(token) <= 8 {
		return token
	}
	return token[:4] + "..." + token[len(token)-4:]
}
