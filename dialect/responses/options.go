package responses

import (
	"github.com/caddy-llm-thinking/caddy-llm-thinking/dialect/envelope"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/messagesapi"
)

// Provider is the name envelopes of reasoning items carry.
const Provider = "responses"

// NewSigner returns the Signer of reasoning items' envelopes for the
// upstream (its host:port) with the gateway's key.
func NewSigner(key *envelope.Key, upstream string) envelope.Signer {
	return envelope.Signer{Key: key, Provider: Provider, Upstream: upstream}
}

// Summaries a request may ask for (reasoning.summary).
const (
	SummaryAuto     = "auto"
	SummaryConcise  = "concise"
	SummaryDetailed = "detailed"
	// SummaryNone asks for no summary: thinking blocks then have no text.
	SummaryNone = "none"
)

// RequestOptions say how to translate a request for one upstream.
type RequestOptions struct {
	// Model is the model the upstream gets; "" keeps the one asked for.
	Model string
	// Signer opens the envelopes of the history's thinking blocks.
	Signer envelope.Signer
	// Summary is the reasoning summary asked for when the request thinks
	// (default SummaryAuto).
	Summary string
	// MaxTokens, when positive, caps max_output_tokens.
	MaxTokens int
	// ThinkingOff is the thinking config llm_thinking took out of the
	// request only for the Messages API's rule on tool loops (see
	// handoff.Pass): a request without one thinks as it
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
	// Signer seals the envelopes of the answer's reasoning items.
	Signer envelope.Signer
	// InputTokens stands in for the input usage when the upstream reports
	// none (an estimate).
	InputTokens int
}

// Translated is a Messages request translated for the Responses API: Body
// is the Responses request body.
type Translated = messagesapi.Translated
