package gemini

import (
	"fmt"
	"strings"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/dialect/envelope"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/messagesapi"
)

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
	// handoff.Pass): a request without one thinks as it
	// says.
	ThinkingOff []byte
	// Thinking says how the model takes a thinking config; ThinkingAuto
	// decides by its name.
	Thinking Thinking
	// MaxTokens, when above 0, caps max_tokens, as the other translating
	// transports' option does; MaxOutputTokens bounds it anyway.
	MaxTokens int
	// Grow and Hold: as jsonout.Writer's.
	Grow func(p []byte, n int) ([]byte, error)
	Hold func(bytes int) error
}

// Thinking is how a model takes a thinking config: Gemini 3 by a level
// (thinkingLevel, and its function responses may hold media), Gemini 2.5
// and Gemma by a budget of tokens (thinkingBudget), and a thinkingLevel to
// them is refused ("Thinking level is not supported for this model.").
type Thinking uint8

const (
	// ThinkingAuto decides by the model's name: gemini-1* and gemini-2*
	// think by budget, any other by level. An alias such as
	// gemini-flash-latest that serves a 2.5 model is taken for Gemini 3
	// until it refuses a level (see registry.NoThinkingLevel).
	ThinkingAuto Thinking = iota
	// ThinkingLevel: thinkingLevel, whatever the name.
	ThinkingLevel
	// ThinkingBudget: thinkingBudget, clamped to the model's range, and
	// the media of tool results after the function responses, not in them.
	ThinkingBudget
)

// of returns how model, by its name, takes a request under t: whether it
// checks the signatures of function calls and takes thinkingLevel under
// ThinkingAuto (Gemini 3 and later, and any model not known to be older),
// whether it thinks by level, and whether the media of tool results go
// inside function responses (a model that thinks by level, but Gemma).
func (t Thinking) of(model string) (gemini3, byLevel, mediaInResponses bool) {
	model = strings.TrimPrefix(model, "models/")
	gemini3 = !strings.HasPrefix(model, "gemini-1") && !strings.HasPrefix(model, "gemini-2")
	byLevel = t == ThinkingLevel || t == ThinkingAuto && gemini3
	return gemini3, byLevel, byLevel && !strings.HasPrefix(model, "gemma")
}

// ParseThinking reads a Thinking as the transport's option writes it:
// "auto" (or ""), "level" or "budget".
func ParseThinking(s string) (Thinking, error) {
	switch s {
	case "", "auto":
		return ThinkingAuto, nil
	case "level":
		return ThinkingLevel, nil
	case "budget":
		return ThinkingBudget, nil
	}
	return 0, fmt.Errorf("thinking %q: want auto, level or budget", s)
}

// MaxOutputTokens is the most maxOutputTokens a request asks for: Vertex
// AI refuses a value at or over the model's bound, which is exclusive
// ("... the supported range is from 1 (inclusive) to 65537 (exclusive).",
// and 65536 for some models such as gemini-2.5-flash-lite and the alias
// gemini-flash-latest), so a larger max_tokens (Claude Code asks up to
// 64000, and more on models that take it) is clamped to what every
// Gemini model takes.
const MaxOutputTokens = 65535

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
	// Translated is the translation: Body is the generateContent request
	// body.
	messagesapi.Translated
	// Upstream is the model the upstream gets, which its path names.
	Upstream string
}
