package block

import "bytes"

// SynthesizedPrefix starts the signature of every thinking block this module
// synthesizes (from the <think> tags of a backend's text, see package
// thinktags). No provider's signature looks like it (theirs are opaque
// base64), so such a block is known on sight, on the response side and when
// a request replays it.
const SynthesizedPrefix = "llmthinking.v1."

// IsSynthesized reports whether a signature string literal (with its
// quotes, as a body holds it) is one this module minted.
func IsSynthesized(signatureLiteral []byte) bool {
	return len(signatureLiteral) > len(SynthesizedPrefix)+2 && signatureLiteral[0] == '"' &&
		bytes.HasPrefix(signatureLiteral[1:], []byte(SynthesizedPrefix))
}
