package gemini

import "github.com/caddy-llm-thinking/caddy-llm-thinking/envelope"

// Provider is the name envelopes of Gemini's signatures carry.
const Provider = "gemini"

// DummySignature is the thought signature Google documents for function
// calls Gemini did not make (another model's, in history that moved to
// Gemini), "skip_thought_signature_validator", as the official SDKs send
// it (the field is bytes: standard base64): it skips the check, on the
// Gemini API and Vertex alike.
const DummySignature = "c2tpcF90aG91Z2h0X3NpZ25hdHVyZV92YWxpZGF0b3I="

// NewSigner returns the Signer of Gemini's envelopes for the upstream
// (its host:port) with the gateway's key.
func NewSigner(key *envelope.Key, upstream string) envelope.Signer {
	return envelope.Signer{Key: key, Provider: Provider, Upstream: upstream}
}

// RequestOptions say how to translate a request for one upstream.
type RequestOptions struct {
	// Model is the model the upstream gets; "" keeps the one asked for.
	Model string
	// Signer opens the envelopes of the history's thinking blocks.
	Signer envelope.Signer
	// ThinkingOff is the thinking config llm_thinking took out of the
	// request only for the Messages API's rule on tool loops (see
	// handoff.With): a request without one thinks as it
	// says.
	ThinkingOff []byte
	// Grow and Hold: as jsonout.Writer's.
	Grow func(p []byte, n int) ([]byte, error)
	Hold func(bytes int) error
}

// AnswerOptions say how to translate one answer.
type AnswerOptions struct {
	// Model is the model the answer names: the one the client asked for.
	Model string
	// Signer seals the envelopes of the answer's signatures.
	Signer envelope.Signer
	// InputTokens stands in for the input usage when the upstream reports
	// none (an estimate).
	InputTokens int
}

// Translated is a Messages request translated for Gemini.
type Translated struct {
	// Body is the generateContent request body.
	Body []byte
	// Model is the model the client asked for, which the answer names.
	Model string
	// Upstream is the model the upstream gets, which its path names.
	Upstream string
	// Stream reports that the client asked for a stream.
	Stream bool
	// InputTokens estimates the input.
	InputTokens int
}
