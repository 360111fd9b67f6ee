package block

import "bytes"

// SynthesizedPrefix starts the signature of every thinking block this module
// synthesizes (from the <think> tags of a backend's text, see package
// thinktags, or from the reasoning of a chat-completions answer, see package
// chatcompletions). No provider's signature looks like it (theirs are opaque
// base64), so such a block is known on sight, on the response side and when
// a request replays it.
const SynthesizedPrefix = "llmthinking.v1."

// ReasoningPrefix starts the signature of a thinking block made from the
// reasoning a chat-completions server answered with (transport openai). It
// is synthesized too, but its producer reads it back as a thinking block
// (the transport puts it into the field the server expects), never as
// tagged text. The '.' after "reasoning" cannot occur in the base64url MAC
// that follows SynthesizedPrefix in a think-tags signature.
const ReasoningPrefix = SynthesizedPrefix + "reasoning."

// IsSynthesized reports whether a signature string literal (with its
// quotes, as a body holds it) is one this module minted.
func IsSynthesized(signatureLiteral []byte) bool {
	return len(signatureLiteral) > len(SynthesizedPrefix)+2 && signatureLiteral[0] == '"' &&
		bytes.HasPrefix(signatureLiteral[1:], []byte(SynthesizedPrefix))
}

// IsReasoning reports whether a signature string literal (with its quotes)
// is one this module minted for reasoning from a chat-completions answer
// (see ReasoningPrefix).
func IsReasoning(signatureLiteral []byte) bool {
	return len(signatureLiteral) > len(ReasoningPrefix)+2 && signatureLiteral[0] == '"' &&
		bytes.HasPrefix(signatureLiteral[1:], []byte(ReasoningPrefix))
}
